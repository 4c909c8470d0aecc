package objectmeta

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metavalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"github.com/kapi-dev/kapi/pkg/apiextensions/schema"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/internal/walk"
)

// IsTypeOrObjectMetaField reports the fields of an embedded resource (and of
// the resource root) that belong to the server rather than to the schema.
func IsTypeOrObjectMetaField(name string) bool {
	return name == "apiVersion" || name == "kind" || name == "metadata"
}

// AsResourceRoot returns s marked as an embedded resource, which is how the
// root of a custom resource is treated by pruning, coercion and validation
// of TypeMeta and ObjectMeta. s itself is not changed.
func AsResourceRoot(s *schema.Structural) *schema.Structural {
	if s == nil {
		return &schema.Structural{XEmbeddedResource: true}
	}
	if s.XEmbeddedResource {
		return s
	}
	clone := *s
	clone.XEmbeddedResource = true
	return &clone
}

// ObjectMetaOptions says how GetObjectMeta reads metadata.
type ObjectMetaOptions struct {
	// DropMalformedFields keeps what can be read of a malformed metadata
	// object, field by field, instead of failing.
	DropMalformedFields bool
	// ReturnUnknownFieldPaths decodes strictly and returns the paths of
	// fields ObjectMeta does not know, prefixed with ParentPath.metadata.
	ReturnUnknownFieldPaths bool
	// ParentPath is where the object holding metadata sits; nil for the
	// resource root.
	ParentPath *field.Path
}

// GetObjectMeta decodes obj["metadata"] into an ObjectMeta as a typed
// decode would, reporting whether metadata was there at all.
func GetObjectMeta(obj map[string]interface{}, opts ObjectMetaOptions) (meta *metav1.ObjectMeta, found bool, unknownFieldPaths []string, err error) {
	metadata, found := obj["metadata"]
	if !found {
		return nil, false, nil, nil
	}

	raw, err := utiljson.Marshal(metadata)
	if err != nil {
		return nil, false, nil, err
	}
	meta = &metav1.ObjectMeta{}
	var decodeErr error
	if opts.ReturnUnknownFieldPaths {
		var strictErrs []error
		strictErrs, decodeErr = kjson.UnmarshalStrict(raw, meta)
		if decodeErr == nil {
			return meta, true, unknownMetadataPaths(opts.ParentPath, strictErrs), nil
		}
	} else if decodeErr = utiljson.Unmarshal(raw, meta); decodeErr == nil {
		return meta, true, nil, nil
	}
	if !opts.DropMalformedFields {
		return nil, true, nil, decodeErr
	}

	metadataMap, ok := metadata.(map[string]interface{})
	if !ok {
		return nil, false, nil, fmt.Errorf("invalid metadata: expected object, got %T", metadata)
	}
	// Best effort: decode one field at a time into the same ObjectMeta and
	// skip the fields that fail.
	meta = &metav1.ObjectMeta{}
	probe := &metav1.ObjectMeta{}
	for _, name := range slices.Sorted(maps.Keys(metadataMap)) {
		single, err := utiljson.Marshal(map[string]interface{}{name: metadataMap[name]})
		if err != nil || utiljson.Unmarshal(single, probe) != nil {
			continue
		}
		if opts.ReturnUnknownFieldPaths {
			strictErrs, _ := kjson.UnmarshalStrict(single, meta)
			unknownFieldPaths = append(unknownFieldPaths, unknownMetadataPaths(opts.ParentPath, strictErrs)...)
		} else {
			_ = utiljson.Unmarshal(single, meta)
		}
	}
	return meta, true, unknownFieldPaths, nil
}

func unknownMetadataPaths(parent *field.Path, strictErrs []error) []string {
	var paths []string
	prefix := parent.Child("metadata").String()
	for _, err := range strictErrs {
		if fieldErr, ok := err.(kjson.FieldError); ok {
			paths = append(paths, prefix+"."+fieldErr.FieldPath())
		}
	}
	return paths
}

// SetObjectMeta writes meta back into obj["metadata"] (removing it when meta
// is nil), in the unstructured form a typed encode would produce.
func SetObjectMeta(obj map[string]interface{}, meta *metav1.ObjectMeta) error {
	if meta == nil {
		delete(obj, "metadata")
		return nil
	}
	metadata, err := runtime.DefaultUnstructuredConverter.ToUnstructured(meta)
	if err != nil {
		return err
	}
	obj["metadata"] = metadata
	return nil
}

// CoerceOptions says how Coerce treats malformed and unknown fields.
type CoerceOptions struct {
	// DropInvalidFields drops apiVersion and kind that are not strings and
	// metadata fields that do not decode, instead of failing.
	DropInvalidFields bool
	// ReturnUnknownFieldPaths returns the paths of unknown fields dropped
	// from embedded metadata.
	ReturnUnknownFieldPaths bool
}

// Coerce normalises the TypeMeta and ObjectMeta of the embedded resources
// in obj (and of obj itself if isResourceRoot) as a typed decode would:
// apiVersion and kind must be strings, and metadata is round-tripped
// through ObjectMeta, which drops unknown fields and a zero
// creationTimestamp. The first malformed field is returned as an error
// unless opts.DropInvalidFields is set. Unknown field paths come sorted.
func Coerce(fldPath *field.Path, obj interface{}, s *schema.Structural, isResourceRoot bool, opts CoerceOptions) (*field.Error, []string) {
	if isResourceRoot {
		s = AsResourceRoot(s)
	}
	c := coercer{opts: opts, root: fldPath, path: walk.NewPath()}
	err := c.coerce(obj, s)
	if err != nil {
		// Report the first error in a stable order, not map order. What was
		// coerced already is coerced again to the same result.
		c = coercer{opts: opts, root: fldPath, path: walk.NewPath(), sorted: true}
		err = c.coerce(obj, s)
	}
	sort.Strings(c.unknownFieldPaths)
	return err, c.unknownFieldPaths
}

type coercer struct {
	opts              CoerceOptions
	root              *field.Path
	path              *walk.Path
	sorted            bool
	unknownFieldPaths []string
}

func (c *coercer) coerce(x interface{}, s *schema.Structural) *field.Error {
	if s == nil {
		return nil
	}
	switch x := x.(type) {
	case map[string]interface{}:
		if s.XEmbeddedResource {
			if err := c.coerceTypeAndObjectMeta(x); err != nil {
				return err
			}
		}
		if len(s.Properties) == 0 && s.AdditionalProperties == nil {
			return nil
		}
		return walk.ForEachField(x, c.sorted, func(name string, v interface{}) *field.Error {
			if prop, found := s.Properties[name]; found {
				c.path.PushField(name)
				defer c.path.Pop()
				return c.coerce(v, prop)
			}
			if s.AdditionalProperties != nil {
				c.path.PushKey(name)
				defer c.path.Pop()
				return c.coerce(v, s.AdditionalProperties.Schema)
			}
			return nil
		})
	case []interface{}:
		for i, item := range x {
			c.path.PushIndex(i)
			err := c.coerce(item, s.Items)
			c.path.Pop()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *coercer) coerceTypeAndObjectMeta(x map[string]interface{}) *field.Error {
	for _, name := range []string{"apiVersion", "kind"} {
		v, found := x[name]
		if !found {
			continue
		}
		if _, ok := v.(string); !ok {
			if !c.opts.DropInvalidFields {
				return field.Invalid(c.path.FieldPath(c.root).Child(name), v, "must be a string")
			}
			delete(x, name)
		}
	}

	v, found := x["metadata"]
	if !found {
		return nil
	}
	fldPath := c.path.FieldPath(c.root)
	meta, found, unknown, err := GetObjectMeta(x, ObjectMetaOptions{
		DropMalformedFields:     c.opts.DropInvalidFields,
		ReturnUnknownFieldPaths: c.opts.ReturnUnknownFieldPaths,
		ParentPath:              fldPath,
	})
	c.unknownFieldPaths = append(c.unknownFieldPaths, unknown...)
	if err != nil {
		if c.opts.DropInvalidFields {
			return nil
		}
		return field.Invalid(fldPath.Child("metadata"), v, err.Error())
	}
	if !found {
		return nil
	}
	if err := SetObjectMeta(x, meta); err != nil {
		return field.Invalid(fldPath.Child("metadata"), v, err.Error())
	}
	if meta.CreationTimestamp.IsZero() {
		if metadata, ok := x["metadata"].(map[string]interface{}); ok {
			delete(metadata, "creationTimestamp")
		}
	}
	return nil
}

// ValidateEmbeddedResources checks TypeMeta and ObjectMeta of every
// embedded resource in obj (and of obj itself if isResourceRoot): apiVersion
// and kind are required non-empty strings of the right shape, and metadata
// is valid ObjectMeta whose name and generateName are path segments.
func ValidateEmbeddedResources(fldPath *field.Path, obj interface{}, s *schema.Structural, isResourceRoot bool) field.ErrorList {
	if isResourceRoot {
		s = AsResourceRoot(s)
	}
	return walk.InStableOrder(func(sorted bool) field.ErrorList {
		w := embeddedValidator{root: fldPath, path: walk.NewPath(), sorted: sorted}
		w.validate(obj, s)
		return w.errs
	})
}

type embeddedValidator struct {
	root   *field.Path
	path   *walk.Path
	sorted bool
	errs   field.ErrorList
}

func (w *embeddedValidator) validate(x interface{}, s *schema.Structural) {
	if s == nil {
		return
	}
	switch x := x.(type) {
	case map[string]interface{}:
		if s.XEmbeddedResource {
			w.errs = append(w.errs, validateTypeAndObjectMeta(w.path.FieldPath(w.root), x)...)
		}
		if len(s.Properties) == 0 && s.AdditionalProperties == nil {
			return
		}
		walk.ForEachField(x, w.sorted, func(name string, v interface{}) bool {
			if prop, found := s.Properties[name]; found {
				w.path.PushField(name)
				w.validate(v, prop)
				w.path.Pop()
			} else if s.AdditionalProperties != nil {
				w.path.PushKey(name)
				w.validate(v, s.AdditionalProperties.Schema)
				w.path.Pop()
			}
			return false
		})
	case []interface{}:
		for i, item := range x {
			w.path.PushIndex(i)
			w.validate(item, s.Items)
			w.path.Pop()
		}
	}
}

func validateTypeAndObjectMeta(fldPath *field.Path, x map[string]interface{}) field.ErrorList {
	var allErrs field.ErrorList

	// apiVersion and kind are required, metadata is not.
	if _, found := x["apiVersion"]; !found {
		allErrs = append(allErrs, field.Required(fldPath.Child("apiVersion"), ""))
	}
	if _, found := x["kind"]; !found {
		allErrs = append(allErrs, field.Required(fldPath.Child("kind"), ""))
	}

	if v, found := x["apiVersion"]; found {
		if apiVersion, ok := v.(string); !ok {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("apiVersion"), v, "must be a string"))
		} else if len(apiVersion) == 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("apiVersion"), apiVersion, "must not be empty"))
		} else if _, err := runtimeschema.ParseGroupVersion(apiVersion); err != nil {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("apiVersion"), apiVersion, err.Error()))
		}
	}
	if v, found := x["kind"]; found {
		if kind, ok := v.(string); !ok {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("kind"), v, "must be a string"))
		} else if len(kind) == 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("kind"), kind, "must not be empty"))
		} else if errs := utilvalidation.IsDNS1035Label(strings.ToLower(kind)); len(errs) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("kind"), kind, "may have mixed case, but should otherwise match: "+strings.Join(errs, ",")))
		}
	}
	if v, found := x["metadata"]; found {
		meta, _, _, err := GetObjectMeta(x, ObjectMetaOptions{})
		if err != nil {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("metadata"), v, err.Error()))
		} else {
			if len(meta.Name) == 0 {
				// An embedded object need not be named, but ObjectMeta
				// validation insists on a name or generateName.
				meta.Name = "fakename"
			}
			allErrs = append(allErrs, metavalidation.ValidateObjectMetaDeclaratively(context.TODO(), operation.Create, meta, nil, len(meta.Namespace) > 0, isPathSegment, fldPath.Child("metadata"), true)...)
		}
	}
	return allErrs
}

func isPathSegment(name string, prefix bool) []string {
	if prefix {
		return content.IsPathSegmentPrefix(name)
	}
	return content.IsPathSegmentName(name)
}
