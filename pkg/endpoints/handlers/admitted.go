package handlers

import (
	"context"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/endpoints/negotiation"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// admittedUpdate runs mutating admission on the object an update computes,
// with the current object as the old one: admission sees the same state
// the storage write is conditioned on.
type admittedUpdate struct {
	scope *RequestScope
	name  string
	opts  writeOptions
	next  rest.UpdatedObjectInfo
}

func (u *admittedUpdate) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	// The storage calls this again after each conflict: once the request
	// has ended (timed out, or its client gone) no further attempt starts.
	if err := requestEnded(ctx); err != nil {
		return nil, err
	}
	obj, err := u.next.UpdatedObject(ctx, old)
	if err != nil {
		return nil, err
	}
	// The object names itself; a PUT or PATCH may not rename it.
	if err := rest.CheckNameMatches(obj, u.name); err != nil {
		return nil, err
	}
	op, opts := admission.Update, runtime.Object(u.opts.update)
	if old == nil {
		op, opts = admission.Create, u.opts.create
	}
	if err := u.scope.admitWrite(ctx, u.scope.admissionAttributes(ctx, u.name, op, obj, old, opts, u.opts.dryRun())); err != nil {
		return nil, err
	}
	return obj, nil
}

// writeOptions are the options admission sees of a write that may create
// its object or update it (a PUT, a PATCH): kube-apiserver hands
// admission the CreateOptions or the UpdateOptions the write amounts to.
type writeOptions struct {
	create *metav1.CreateOptions
	update *metav1.UpdateOptions
}

func updateWriteOptions(o *metav1.UpdateOptions) writeOptions {
	o.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("UpdateOptions"))
	c := &metav1.CreateOptions{DryRun: o.DryRun, FieldManager: o.FieldManager, FieldValidation: o.FieldValidation}
	c.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("CreateOptions"))
	return writeOptions{create: c, update: o}
}

func (o writeOptions) dryRun() bool { return len(o.update.DryRun) > 0 }

// negotiationInputForOptions picks the decoder of an options body (a
// DeleteOptions sent with DELETE).
func negotiationInputForOptions(r *http.Request, s *RequestScope) (runtime.SerializerInfo, error) {
	return negotiation.NegotiateInput(r, s.Serializer.SupportedMediaTypes())
}

// requestEnded is the error of work that stops because the request's
// context has ended, nil while it has not. The client has had its answer
// (the timeout filter's 504) or is gone; the error only ends the work.
func requestEnded(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	return apierrors.NewTimeoutError("request did not complete within the allotted timeout", 0)
}
