package resource

import (
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"
	resourcev1 "k8s.io/api/resource/v1"

	kapicel "github.com/kapi-dev/kapi/pkg/cel"
	"github.com/kapi-dev/kapi/pkg/cel/library"
)

// A device selector is a CEL expression over one variable, device, whose
// type kube-apiserver 1.37 declares as the object kubernetes.DRADevice:
//
//	driver                    string, at most 63 bytes
//	allowMultipleAllocations  bool (DRAConsumableCapacity, beta, on)
//	attributes                map(domain, map(id, any)): the attribute values
//	capacity                  map(domain, map(id, kubernetes.Quantity))
//
// Attribute values have the type google.protobuf.Any (CEL's "any"), which
// the checker accepts wherever a value is expected, so a selector that
// only reads an attribute still "evaluates to bool". The server never
// evaluates a selector (the scheduler does); it compiles it to report
// errors and estimates its worst-case cost, in the environment of new
// expressions: the libraries of the compatibility version (1.36) plus
// cel.bind.
const (
	deviceVar     = "device"
	deviceObject  = "kubernetes.DRADevice"
	driverField   = "driver"
	multiAllocFld = "allowMultipleAllocations"
	attrsField    = "attributes"
	capacityField = "capacity"
)

var (
	domainMapType   = cel.MapType(cel.StringType, cel.MapType(cel.StringType, cel.AnyType))
	capacityMapType = cel.MapType(cel.StringType, cel.MapType(cel.StringType, library.QuantityType))
	deviceFields    = map[string]*types.Type{
		driverField:   cel.StringType,
		multiAllocFld: cel.BoolType,
		attrsField:    domainMapType,
		capacityField: capacityMapType,
	}
)

// selectorEnv is built once: an environment is expensive and immutable.
var selectorEnv = sync.OnceValues(func() (*cel.Env, error) {
	base, err := cel.NewEnv(kapicel.CompileOptions(kapicel.NewExpressions)...)
	if err != nil {
		return nil, err
	}
	return base.Extend(
		ext.Bindings(ext.BindingsVersion(0)),
		cel.CustomTypeProvider(&deviceTypes{Provider: base.CELTypeProvider()}),
		cel.Variable(deviceVar, cel.ObjectType(deviceObject)),
	)
})

// deviceTypes adds the device object to the environment's types.
type deviceTypes struct {
	types.Provider
}

func (p *deviceTypes) FindStructType(name string) (*types.Type, bool) {
	if name == deviceObject {
		return types.NewTypeTypeWithParam(types.NewObjectType(deviceObject)), true
	}
	return p.Provider.FindStructType(name)
}

func (p *deviceTypes) FindStructFieldNames(name string) ([]string, bool) {
	if name == deviceObject {
		return []string{driverField, multiAllocFld, attrsField, capacityField}, true
	}
	return p.Provider.FindStructFieldNames(name)
}

func (p *deviceTypes) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	if name != deviceObject {
		return p.Provider.FindStructFieldType(name, field)
	}
	t, ok := deviceFields[field]
	if !ok {
		return nil, false
	}
	return &types.FieldType{Type: t}, true
}

func (p *deviceTypes) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if name == deviceObject {
		return types.NewErr("%s cannot be constructed", deviceObject)
	}
	return p.Provider.NewValue(name, fields)
}

// selectorError is a selector that does not compile: invalid says whether
// kube-apiserver reports it as an invalid value (the expression's fault)
// or an internal error.
type selectorError struct {
	detail  string
	invalid bool
}

// compileSelector compiles a selector as kube-apiserver does, returning
// its estimated worst-case cost.
func compileSelector(expression string) (uint64, *selectorError) {
	env, err := selectorEnv()
	if err != nil {
		return 0, &selectorError{detail: fmt.Sprintf("unexpected error loading CEL environment: %v", err)}
	}
	ast, issues := env.Compile(expression)
	if issues != nil {
		return 0, &selectorError{detail: "compilation failed: " + issues.String(), invalid: true}
	}
	if out := ast.OutputType(); out != cel.BoolType && out != cel.AnyType {
		return 0, &selectorError{detail: fmt.Sprintf("must evaluate to %v or the unknown type, not %v", cel.BoolType.String(), out.String()), invalid: true}
	}
	est, err := env.EstimateCost(ast, &library.CostEstimator{SizeEstimator: deviceSizes{}})
	if err != nil {
		return 0, &selectorError{detail: "cost estimation failed: " + err.Error()}
	}
	return est.Max, nil
}

// deviceSizes bounds the sizes of what device reaches, from the limits of
// a ResourceSlice: 32 attributes and capacities per device, domains of at
// most 63 bytes, identifiers of 32, attribute values of 64.
type deviceSizes struct{}

// sizeNode is a node of the device's type for size estimates.
type sizeNode struct {
	max          uint64
	fields       map[string]*sizeNode
	keys, values *sizeNode
	// attribute maps: any selected name is an attribute
	attributes bool
}

var deviceSizeTree = func() *sizeNode {
	perDevice := uint64(resourcev1.ResourceSliceMaxAttributesAndCapacitiesPerDevice)
	domain := &sizeNode{max: resourcev1.DeviceMaxDomainLength}
	id := &sizeNode{max: resourcev1.DeviceMaxIDLength}
	attr := &sizeNode{max: resourcev1.DeviceAttributeMaxValueLength}
	quantity := &sizeNode{}
	inner := &sizeNode{max: perDevice, keys: id, values: attr, attributes: true}
	innerCap := &sizeNode{max: perDevice, keys: id, values: quantity}
	return &sizeNode{fields: map[string]*sizeNode{
		driverField:   {max: resourcev1.DriverNameMaxLength},
		multiAllocFld: {max: 1},
		attrsField:    {max: perDevice, keys: domain, values: inner},
		capacityField: {max: perDevice, keys: domain, values: innerCap},
	}}
}()

func (deviceSizes) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	path := element.Path()
	if len(path) == 0 || path[0] != deviceVar {
		return nil
	}
	n := deviceSizeTree
	for _, name := range path[1:] {
		switch name {
		case "@items", "@values":
			n = n.values
		case "@keys":
			n = n.keys
		default:
			switch {
			case n.fields[name] != nil:
				n = n.fields[name]
			case n.attributes:
				n = n.values
			default:
				return nil
			}
		}
		if n == nil {
			return nil
		}
	}
	return &checker.SizeEstimate{Min: 0, Max: n.max}
}

func (deviceSizes) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}
