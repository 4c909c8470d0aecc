// Package subjectaccessreview is the REST storage of authorization.k8s.io/v1
// subjectaccessreviews: "may this user do this?", answered by the
// server's authorizer and never stored.
package subjectaccessreview

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/authorization"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/registry/authorization/review"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Storage answers SubjectAccessReviews with an authorizer.
type Storage struct {
	review.Base
	authorizer authorizer.Authorizer
}

// NewStorage returns the storage; a is the server's whole authorizer.
func NewStorage(a authorizer.Authorizer) (*Storage, error) {
	return &Storage{
		Base:       review.Base{NewFunc: func() runtime.Object { return &authorizationv1.SubjectAccessReview{} }, Singular: "subjectaccessreview"},
		authorizer: a,
	}, nil
}

// Map returns the storage by path.
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{"subjectaccessreviews": s}
}

// NamespaceScoped is false: the review names its namespace in its spec.
func (*Storage) NamespaceScoped() bool { return false }

// Create answers the review in its status.
func (s *Storage) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	r, ok := obj.(*authorizationv1.SubjectAccessReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SubjectAccessReview: %#v", obj))
	}
	if errs := authorization.ValidateSubjectAccessReview(r); len(errs) > 0 {
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
