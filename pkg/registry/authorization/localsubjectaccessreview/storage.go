// Package localsubjectaccessreview is the REST storage of
// authorization.k8s.io/v1 localsubjectaccessreviews: a SubjectAccessReview
// confined to the namespace it is created in, so that who may ask can be
// granted per namespace.
package localsubjectaccessreview

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/authorization"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/authorization/review"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Storage answers LocalSubjectAccessReviews with an authorizer.
type Storage struct {
	review.Base
	authorizer authorizer.Authorizer
}

// NewStorage returns the storage; a is the server's whole authorizer.
func NewStorage(a authorizer.Authorizer) (*Storage, error) {
	return &Storage{
		Base:       review.Base{NewFunc: func() runtime.Object { return &authorizationv1.LocalSubjectAccessReview{} }, Singular: "localsubjectaccessreview"},
		authorizer: a,
	}, nil
}

// Map returns the storage by path.
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{"localsubjectaccessreviews": s}
}

// NamespaceScoped is true: the review lives in the namespace it asks about.
func (*Storage) NamespaceScoped() bool { return true }

// Create answers the review in its status.
func (s *Storage) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	r, ok := obj.(*authorizationv1.LocalSubjectAccessReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a LocalSubjectAccessReview: %#v", obj))
	}
	// The review takes the namespace of its URL, as any namespaced
	// object does; one that names another is refused before it is read.
	ns := request.NamespaceValue(ctx)
	switch {
	case ns == "":
		return nil, apierrors.NewBadRequest(fmt.Sprintf("namespace is required on this type: %v", ns))
	case r.Namespace == "":
		r.Namespace = ns
	case r.Namespace != ns:
		return nil, apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	if errs := authorization.ValidateLocalSubjectAccessReview(r); len(errs) > 0 {
		return nil, apierrors.NewInvalid(review.Kind, "", errs)
	}
	if createValidation != nil {
		if err := createValidation(ctx, r.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	attrs := review.Attributes(review.SubjectOf(r.Spec), r.Spec.ResourceAttributes, r.Spec.NonResourceAttributes)
	r.Status = review.Decide(ctx, s.authorizer, attrs)
	return r, nil
}
