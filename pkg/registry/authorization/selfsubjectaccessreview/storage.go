// Package selfsubjectaccessreview is the REST storage of
// authorization.k8s.io/v1 selfsubjectaccessreviews: "may I do this?"
// (`kubectl auth can-i`), asked about the requester.
package selfsubjectaccessreview

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

// Storage answers SelfSubjectAccessReviews with an authorizer.
type Storage struct {
	review.Base
	authorizer authorizer.Authorizer
}

// NewStorage returns the storage; a is the server's whole authorizer.
func NewStorage(a authorizer.Authorizer) (*Storage, error) {
	return &Storage{
		Base:       review.Base{NewFunc: func() runtime.Object { return &authorizationv1.SelfSubjectAccessReview{} }, Singular: "selfsubjectaccessreview"},
		authorizer: a,
	}, nil
}

// Map returns the storage by path.
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{"selfsubjectaccessreviews": s}
}

// NamespaceScoped is false.
func (*Storage) NamespaceScoped() bool { return false }

// Create answers the review about the requesting user.
func (s *Storage) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	r, ok := obj.(*authorizationv1.SelfSubjectAccessReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectAccessReview: %#v", obj))
	}
	if errs := authorization.ValidateSelfSubjectAccessReview(r); len(errs) > 0 {
		return nil, apierrors.NewInvalid(review.Kind, "", errs)
	}
	u, ok := request.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewBadRequest("no user present on request")
	}
	if createValidation != nil {
		if err := createValidation(ctx, r.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	r.Status = review.Decide(ctx, s.authorizer, review.Attributes(u, r.Spec.ResourceAttributes, r.Spec.NonResourceAttributes))
	return r, nil
}
