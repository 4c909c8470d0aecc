package library

import (
	"math"

	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// Kubernetes' cost constants, from CEL's own.
const (
	stringTraversal = common.StringTraversalCostFactor
	regexLength     = common.RegexStringLengthCostFactor
	// maxNameFormatRegexSize prices format validate() statically: the
	// longest regex of a name format.
	maxNameFormatRegexSize = 128
	// maxFormatSize bounds the size of a Format value, to price equality.
	maxFormatSize = 64
)

// CostEstimator prices the calls of the Kubernetes libraries, and of the
// string functions Kubernetes prices itself, statically
// (checker.CostEstimator) and at run time (interpreter.ActualCostEstimator).
// Calls it does not know are left to CEL's defaults.
//
// WARNING: the static estimates decide which rules a CRD may contain, so
// any change to them, up or down, is an API change. They follow
// kube-apiserver 1.37 to the letter.
type CostEstimator struct {
	// SizeEstimator bounds the sizes of values CEL cannot size itself
	// (the fields of self, from the schema's maxLength, maxItems...).
	SizeEstimator checker.CostEstimator
}

// EstimateSize implements checker.CostEstimator.
func (c *CostEstimator) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	if c.SizeEstimator != nil {
		return c.SizeEstimator.EstimateSize(element)
	}
	return nil
}

// EstimateCallCost implements checker.CostEstimator.
func (c *CostEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	fixed := func(cost uint64) *checker.CallEstimate {
		return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: cost, Max: cost}}
	}
	switch function {
	case "check":
		// An authorization check: two per expression at most.
		return fixed(authzCheckCost)
	case "serviceAccount", "path", "group", "resource", "subresource", "namespace", "name", "allowed", "reason", "error", "errored":
		return fixed(1)
	case "fieldSelector", "labelSelector":
		if len(args) == 1 {
			return &checker.CallEstimate{CostEstimate: selectorCost(c.sizeOf(args[0]))}
		}
	case "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes":
		if target == nil {
			return nil
		}
		// One comparison per element, plus the traversal of string or
		// bytes elements.
		perElement := checker.CostEstimate{Min: 1, Max: 1}
		if elem := c.listElementNode(*target); elem != nil {
			if k := elem.Type().Kind(); k == types.StringKind || k == types.BytesKind {
				perElement = perElement.Add(c.sizeOf(elem).MultiplyByCostFactor(stringTraversal))
			}
			return &checker.CallEstimate{CostEstimate: c.sizeOf(*target).MultiplyByCost(perElement)}
		}
		if function == "includes" {
			return &checker.CallEstimate{CostEstimate: c.sizeOf(*target).MultiplyByCost(perElement)}
		}
		// indexOf and lastIndexOf of ext.Strings: a string traversal.
		return &checker.CallEstimate{CostEstimate: c.sizeOf(*target).MultiplyByCostFactor(stringTraversal)}
	case "url":
		if len(args) == 1 {
			sz := c.sizeOf(args[0])
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(stringTraversal), ResultSize: &sz}
		}
	case "lowerAscii", "upperAscii", "substring", "trim":
		if target != nil {
			sz := c.sizeOf(*target)
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(stringTraversal), ResultSize: &sz}
		}
	case "replace":
		if target != nil && len(args) >= 2 {
			return estimateReplace(c.sizeOf(*target), c.sizeOf(args[0]), c.sizeOf(args[1]))
		}
	case "split":
		if target != nil {
			sz := c.sizeOf(*target)
			// At worst "" splits every character into an element, unless
			// a literal limit says otherwise.
			maxElements := sz.Max
			if len(args) > 1 {
				if lit := args[1].Expr(); lit.Kind() == ast.LiteralKind {
					if n, ok := lit.AsLiteral().Value().(int64); ok {
						maxElements = uint64(n)
					}
				}
			}
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(2 * stringTraversal), ResultSize: &checker.SizeEstimate{Min: 0, Max: maxElements}}
		}
	case "join":
		if target != nil {
			var sz checker.SizeEstimate
			listSize := c.sizeOf(*target)
			if elem := c.listElementNode(*target); elem != nil {
				sz = listSize.Multiply(c.sizeOf(elem))
			}
			if len(args) > 0 {
				separators := checker.SizeEstimate{}
				if listSize.Min > 0 {
					separators.Min = listSize.Min - 1
				}
				if listSize.Max > 0 {
					separators.Max = listSize.Max - 1
				}
				sz = sz.Add(c.sizeOf(args[0]).Multiply(separators))
			}
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(stringTraversal), ResultSize: &sz}
		}
	case "find", "findAll":
		if target != nil && len(args) >= 1 {
			sz := c.sizeOf(*target)
			// One more than the length, so that an empty string still pays
			// for the regex.
			strCost := sz.Add(checker.SizeEstimate{Min: 1, Max: 1}).MultiplyByCostFactor(stringTraversal)
			regexCost := c.sizeOf(args[0]).MultiplyByCostFactor(regexLength)
			return &checker.CallEstimate{CostEstimate: strCost.Multiply(regexCost), ResultSize: &checker.SizeEstimate{Min: 0, Max: sz.Max}}
		}
	case "cidr", "isIP", "isCIDR":
		if len(args) >= 1 {
			return &checker.CallEstimate{CostEstimate: c.sizeOf(args[0]).MultiplyByCostFactor(stringTraversal)}
		}
	case "ip":
		if overloadID == "cidr_ip" {
			return fixed(1)
		}
		if len(args) >= 1 {
			return &checker.CallEstimate{CostEstimate: c.sizeOf(args[0]).MultiplyByCostFactor(stringTraversal)}
		}
	case "ip.isCanonical":
		if len(args) >= 1 {
			// Parse, then compare with the input.
			return &checker.CallEstimate{CostEstimate: c.sizeOf(args[0]).MultiplyByCostFactor(2 * stringTraversal)}
		}
	case "masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast":
		return fixed(1)
	case "containsIP", "containsCIDR":
		if len(args) >= 1 {
			// Compare two 4 or 16 byte addresses.
			addr := checker.SizeEstimate{Min: 4, Max: 16}
			cost := addr.Add(addr).MultiplyByCostFactor(stringTraversal)
			if function == "containsCIDR" {
				// Masking and comparing the prefix lengths.
				cost = cost.Add(addr.MultiplyByCostFactor(stringTraversal)).Add(checker.CostEstimate{Min: 1, Max: 1})
			}
			if overloadID == "cidr_contains_ip_string" || overloadID == "cidr_contains_cidr_string" {
				cost = cost.Add(checker.CostEstimate(c.sizeOf(args[0])).MultiplyByCostFactor(stringTraversal))
			}
			return &checker.CallEstimate{CostEstimate: cost}
		}
	case "quantity", "isQuantity", "semver", "isSemver":
		if len(args) >= 1 {
			return &checker.CallEstimate{CostEstimate: c.sizeOf(args[0]).MultiplyByCostFactor(stringTraversal)}
		}
	case "validate":
		if len(args) >= 1 {
			return &checker.CallEstimate{CostEstimate: c.sizeOf(args[0]).MultiplyByCostFactor(stringTraversal).MultiplyByCostFactor(maxNameFormatRegexSize * regexLength)}
		}
	case "format.named",
		"sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan", "compareTo", "add", "sub", "major", "minor", "patch",
		"getScheme", "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery":
		return fixed(1)
	case "_==_":
		if len(args) == 2 && args[0].Type().Equal(args[1].Type()) == types.True {
			return c.estimateEquality(args[0].Type(), args[1])
		}
	}
	return nil
}

// estimateEquality prices == between two values of a Kubernetes type;
// other types are left to CEL.
func (c *CostEstimator) estimateEquality(t *types.Type, rhs checker.AstNode) *checker.CallEstimate {
	switch t.TypeName() {
	case IPType.TypeName(), CIDRType.TypeName(), QuantityType.TypeName(), SemverType.TypeName():
		return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: 1}}
	case FormatType.TypeName():
		return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: maxFormatSize}.MultiplyByCostFactor(stringTraversal)}
	case URLType.TypeName():
		// Kubernetes sizes both sides from the right-hand side.
		size := checker.SizeEstimate{Min: 1, Max: 1}
		if sz := rhs.ComputedSize(); sz != nil {
			size = sz.Union(*sz)
		}
		return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: size.Max}.MultiplyByCostFactor(stringTraversal)}
	}
	return nil
}

// estimateReplace prices target.replace(old, new): a traversal plus the
// construction of a result whose size is bounded by replacing as many of
// the smallest possible old substrings with the largest new ones.
func estimateReplace(sz, oldSz, newSz checker.SizeEstimate) *checker.CallEstimate {
	var count, retained checker.SizeEstimate
	switch {
	case oldSz.Min == 0:
		// Replacing "" surrounds every character.
		count.Max = sz.Max
		if sz.Max < math.MaxUint64 {
			count.Max = sz.Max + 1
		}
		retained.Max = sz.Max
	case newSz.Max <= oldSz.Min:
		retained.Max = sz.Max
	default:
		count.Max = uint64(math.Ceil(float64(sz.Max) / float64(oldSz.Min)))
	}
	switch {
	case oldSz.Max == 0:
		count.Min = sz.Min
		if sz.Min < math.MaxUint64 {
			count.Min = sz.Min + 1
		}
		retained.Min = sz.Min
	case oldSz.Max <= newSz.Min:
		retained.Min = sz.Min
	default:
		count.Min = uint64(math.Ceil(float64(sz.Min) / float64(oldSz.Max)))
	}
	size := count.Multiply(newSz).Add(retained)
	return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(2 * stringTraversal), ResultSize: &size}
}

// CallCost implements interpreter.ActualCostEstimator.
func (c *CostEstimator) CallCost(function, overloadID string, args []ref.Val, result ref.Val) *uint64 {
	cost := func(v uint64) *uint64 { return &v }
	traverse := func(v ref.Val, factor float64) *uint64 {
		return cost(uint64(math.Ceil(float64(actualSize(v)) * factor)))
	}
	switch function {
	case "check":
		return cost(authzCheckCost)
	case "serviceAccount", "path", "group", "resource", "subresource", "namespace", "name", "allowed", "reason", "error", "errored":
		return cost(1)
	case "fieldSelector", "labelSelector":
		if len(args) >= 2 {
			n := actualSize(args[1])
			return cost(selectorCost(checker.SizeEstimate{Min: n, Max: n}).Max)
		}
	case "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes":
		var total uint64
		if len(args) > 0 {
			total = traversalCost(args[0])
		}
		return &total
	case "url", "lowerAscii", "upperAscii", "substring", "trim":
		if len(args) >= 1 {
			return traverse(args[0], stringTraversal)
		}
	case "replace", "split":
		if len(args) >= 1 {
			return traverse(args[0], 2*stringTraversal)
		}
	case "join":
		if len(args) >= 1 {
			return traverse(result, 2*stringTraversal)
		}
	case "find", "findAll":
		if len(args) >= 2 {
			strCost := uint64(math.Ceil((1.0 + float64(actualSize(args[0]))) * stringTraversal))
			regexCost := uint64(math.Ceil(float64(actualSize(args[1])) * regexLength))
			return cost(strCost * regexCost)
		}
	case "cidr", "isIP", "isCIDR":
		if len(args) >= 1 {
			return traverse(args[0], stringTraversal)
		}
	case "ip":
		if len(args) >= 1 {
			if overloadID == "cidr_ip" {
				return cost(1)
			}
			return traverse(args[0], stringTraversal)
		}
	case "ip.isCanonical":
		if len(args) >= 1 {
			return traverse(args[0], 2*stringTraversal)
		}
	case "masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast":
		return cost(1)
	case "containsIP", "containsCIDR":
		if len(args) >= 2 {
			cidrSize := actualSize(args[0])
			total := uint64(math.Ceil(float64(cidrSize+cidrSize) * stringTraversal))
			if function == "containsCIDR" {
				total += uint64(math.Ceil(float64(cidrSize)*stringTraversal)) + 1
			}
			if overloadID == "cidr_contains_ip_string" || overloadID == "cidr_contains_cidr_string" {
				total += uint64(math.Ceil(float64(actualSize(args[1])) * stringTraversal))
			}
			return &total
		}
	case "quantity", "isQuantity", "semver", "isSemver":
		if len(args) >= 1 {
			return traverse(args[0], stringTraversal)
		}
	case "validate":
		if len(args) >= 2 {
			if f, ok := args[0].Value().(Format); ok {
				strCost := uint64(math.Ceil((1.0 + float64(actualSize(args[1]))) * stringTraversal))
				regexCost := uint64(math.Ceil(float64(f.maxRegexSize) * regexLength))
				return cost(strCost * regexCost)
			}
		}
	case "format.named",
		"sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan", "compareTo", "add", "sub", "major", "minor", "patch",
		"getScheme", "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery":
		return cost(1)
	case "_==_":
		if len(args) == 2 {
			switch args[0].(type) {
			case Quantity, IP, CIDR, Format, URL, Semver:
				return cost(1)
			}
		}
	}
	return nil
}

// actualSize is the size CEL's size() would report, 1 for unsized values.
func actualSize(v ref.Val) uint64 {
	if sizer, ok := v.(traits.Sizer); ok {
		return uint64(sizer.Size().(types.Int))
	}
	return 1
}

// traversalCost is the cost of visiting every node of a value tree.
func traversalCost(v ref.Val) uint64 {
	switch v := v.(type) {
	case types.String:
		return uint64(float64(len(string(v))) * stringTraversal)
	case types.Bytes:
		return uint64(float64(len([]byte(v))) * stringTraversal)
	case traits.Lister:
		var total uint64
		for it := v.Iterator(); it.HasNext() == types.True; {
			total += traversalCost(it.Next())
		}
		return total
	case traits.Mapper:
		var total uint64
		for it := v.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			total += traversalCost(k) + traversalCost(v.Get(k))
		}
		return total
	}
	return 1
}

func (c *CostEstimator) sizeOf(n checker.AstNode) checker.SizeEstimate {
	if sz := n.ComputedSize(); sz != nil {
		return *sz
	}
	if sz := c.EstimateSize(n); sz != nil {
		return *sz
	}
	return checker.SizeEstimate{Min: 0, Max: math.MaxUint64}
}

// listElementNode is a node standing for the elements of a list node, with
// the "@items" path the size estimator understands.
func (c *CostEstimator) listElementNode(list checker.AstNode) checker.AstNode {
	params := list.Type().Parameters()
	if len(params) == 0 {
		return nil
	}
	var path []string
	if p := list.Path(); p != nil {
		path = append(append(make([]string, 0, len(p)+1), p...), "@items")
	}
	return &elementNode{path: path, t: params[0]}
}

type elementNode struct {
	path []string
	t    *types.Type
}

func (e *elementNode) Path() []string                      { return e.path }
func (e *elementNode) Type() *types.Type                   { return e.t }
func (e *elementNode) Expr() ast.Expr                      { return nil }
func (e *elementNode) ComputedSize() *checker.SizeEstimate { return nil }

// The authorizer library's costs: a check is expensive (two fit in an
// expression's limit); parsing a selector costs its traversal and the
// requirements it may hold (one per two characters, a list and a struct
// each).
const authzCheckCost = 350000

func selectorCost(length checker.SizeEstimate) checker.CostEstimate {
	base := checker.CostEstimate{Min: common.ListCreateBaseCost, Max: common.ListCreateBaseCost}
	parse := length.MultiplyByCostFactor(stringTraversal)
	requirements := length.MultiplyByCostFactor(0.5).MultiplyByCostFactor(float64(common.ListCreateBaseCost + common.StructCreateBaseCost))
	return base.Add(parse).Add(requirements)
}
