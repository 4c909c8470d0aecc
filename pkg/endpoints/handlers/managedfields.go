package handlers

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/yaml"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/api/objectkind"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Every write records its writer in metadata.managedFields, as
// kube-apiserver does: the handlers hand the object to the scope's field
// manager before mutating admission and the storage see it, so that what
// the strategies then set (status cleared, uid, generation) is not
// recorded as the client's. Creates and updates are "Update" operations
// of the manager the request names, or of its User-Agent; apply patches
// are "Apply" operations, merged into the current object by the field
// manager itself.

// trackWrite records manager as the writer of the fields obj changes from
// live (nil on a create). The object is obj itself, or the live object's
// managedFields are kept if they cannot be computed.
func (s *RequestScope) trackWrite(live, obj runtime.Object, manager string) (runtime.Object, error) {
	if s.FieldManager == nil {
		return obj, nil
	}
	live, err := s.liveOrEmpty(live)
	if err != nil {
		return nil, err
	}
	return s.FieldManager.UpdateNoErrors(live, obj, manager), nil
}

// liveOrEmpty is the object a write changes: the live one, or an empty
// object of the served kind when the write creates.
func (s *RequestScope) liveOrEmpty(live runtime.Object) (runtime.Object, error) {
	if live != nil {
		return live, nil
	}
	empty, err := s.Creater.New(s.Kind)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return empty, nil
}

// trackedUpdate records the writer of the object an update computes from
// the current one.
type trackedUpdate struct {
	scope   *RequestScope
	manager string
	next    rest.UpdatedObjectInfo
}

func (u *trackedUpdate) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	obj, err := u.next.UpdatedObject(ctx, old)
	if err != nil {
		return nil, err
	}
	return u.scope.trackWrite(old, obj, u.manager)
}

// decodeApplyPatch reads an apply patch, a partial object in YAML (or
// JSON), once for the update that may try it several times. An unknown
// field fails the apply itself, in the field manager; what strict decoding
// adds is duplicate fields, which fail under fieldValidation=Strict and
// warn under Warn. The patch is parsed once unless it has them.
func decodeApplyPatch(ctx context.Context, patch []byte, validation string) (map[string]any, error) {
	obj := map[string]any{}
	if validation == metav1.FieldValidationIgnore {
		if err := yaml.Unmarshal(patch, &obj); err != nil {
			return nil, applyDecodeError(patch, err)
		}
		return obj, nil
	}
	strictErr := yaml.UnmarshalStrict(patch, &obj)
	if strictErr == nil {
		return obj, nil
	}
	obj = map[string]any{}
	if err := yaml.Unmarshal(patch, &obj); err != nil {
		return nil, applyDecodeError(patch, err)
	}
	if validation == metav1.FieldValidationStrict {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error strict decoding patch: %v", strictErr))
	}
	// The YAML decoder's message spans lines, which a Warning header
	// cannot carry.
	warning.AddWarning(ctx, strings.Join(strings.Fields(strictErr.Error()), " "))
	return obj, nil
}

// applyDecodeError is kube-apiserver's 400 for an apply patch that cannot
// be decoded: it first converts YAML to JSON (JSON is left as it is), then
// decodes the JSON, and names the step that failed.
func applyDecodeError(patch []byte, err error) error {
	if _, convErr := yaml.ToJSON(patch); convErr != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("error encoding patch: %v", convErr))
	}
	return apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
}

// appliedObject computes the object of a server-side apply: the decoded
// patch merged into the current object, or into an empty one when there
// is none (apply creates).
type appliedObject struct {
	scope   *RequestScope
	name    string
	patch   map[string]any
	options *metav1.PatchOptions
}

func (p *appliedObject) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	s := p.scope
	live, err := s.liveOrEmpty(old)
	if err != nil {
		return nil, err
	}
	// Each try of the update gets a copy: the field manager's is its own.
	patchObj := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(p.patch)}
	force := p.options.Force != nil && *p.options.Force
	obj, err := s.FieldManager.Apply(live, patchObj, p.options.FieldManager, force)
	if err != nil {
		return nil, applyError(err)
	}
	if old == nil {
		// A uid names an object that exists: applying one that does not
		// is a conflict, not a create.
		if m, err := meta.Accessor(obj); err == nil && m.GetUID() != "" {
			return nil, apierrors.NewConflict(s.qualifiedResource(), p.name,
				fmt.Errorf("uid mismatch: the provided object specified uid %s, and no existing object was found", m.GetUID()))
		}
	}
	objectkind.ClearTyped(obj)
	return obj, nil
}

// applyError is the error a client sees of a failed apply. A patch the
// field manager cannot type (a field the schema does not declare, a string
// where it has a number) gets kube-apiserver's answer, which is that of an
// error that is no API error: 500, no reason, the field manager's message
// (kubernetes/kubernetes#139253).
func applyError(err error) error {
	if _, ok := err.(apierrors.APIStatus); !ok && strings.HasPrefix(err.Error(), "failed to create typed patch object") {
		return &apierrors.StatusError{ErrStatus: metav1.Status{
			Status:  metav1.StatusFailure,
			Code:    http.StatusInternalServerError,
			Reason:  metav1.StatusReasonUnknown,
			Message: err.Error(),
		}}
	}
	return err
}

// invalidManagedFieldsWarning is kube-apiserver's warning when mutating
// admission left managedFields it cannot read; they are restored.
const invalidManagedFieldsWarning = ".metadata.managedFields was in an invalid state after admission; this could be caused by an outdated mutating admission controller; please fix your requests: %v"

// admitWrite runs mutating admission on a write, restoring the
// managedFields the field manager recorded if admission broke them.
func (s *RequestScope) admitWrite(ctx context.Context, a *admission.Attributes) error {
	if s.Admission == nil {
		return nil
	}
	if err := requestEnded(ctx); err != nil {
		return err
	}
	m, err := meta.Accessor(a.Object)
	if s.FieldManager == nil || err != nil {
		return s.admit(ctx, a)
	}
	before := slices.Clone(m.GetManagedFields())
	if err := s.admit(ctx, a); err != nil {
		return err
	}
	if err := managedfields.ValidateManagedFields(m.GetManagedFields()); err != nil {
		m.SetManagedFields(before)
		warning.AddWarning(ctx, fmt.Sprintf(invalidManagedFieldsWarning, err))
	}
	return nil
}
