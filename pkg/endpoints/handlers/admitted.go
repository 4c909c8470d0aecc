package handlers

import (
	"context"
	"net/http"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/endpoints/negotiation"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// admittedUpdate runs mutating admission on the object an update computes,
// with the current object as the old one: admission sees the same state
// the storage write is conditioned on.
type admittedUpdate struct {
	scope  *RequestScope
	name   string
	dryRun bool
	next   rest.UpdatedObjectInfo
}

func (u *admittedUpdate) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	obj, err := u.next.UpdatedObject(ctx, old)
	if err != nil {
		return nil, err
	}
	// The object names itself; a PUT or PATCH may not rename it.
	if err := rest.CheckNameMatches(obj, u.name); err != nil {
		return nil, err
	}
	op := admission.Update
	if old == nil {
		op = admission.Create
	}
	if err := u.scope.admitWrite(ctx, u.scope.admissionAttributes(ctx, u.name, op, obj, old, u.dryRun)); err != nil {
		return nil, err
	}
	return obj, nil
}

// negotiationInputForOptions picks the decoder of an options body (a
// DeleteOptions sent with DELETE).
func negotiationInputForOptions(r *http.Request, s *RequestScope) (runtime.SerializerInfo, error) {
	return negotiation.NegotiateInput(r, s.Serializer.SupportedMediaTypes())
}
