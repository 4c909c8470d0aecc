// Package selfsubjectrulesreview is the REST storage of
// authorization.k8s.io/v1 selfsubjectrulesreviews: "what may I do in
// this namespace?" (`kubectl auth can-i --list`), answered by the rule
// resolvers of the authorizers that can list rules.
package selfsubjectrulesreview

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/authorization/review"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Storage answers SelfSubjectRulesReviews with a rule resolver.
type Storage struct {
	review.Base
	resolver authorizer.RuleResolver
}

// NewStorage returns the storage; r is the union of the server's rule
// resolvers.
func NewStorage(r authorizer.RuleResolver) (*Storage, error) {
	return &Storage{
		Base:     review.Base{NewFunc: func() runtime.Object { return &authorizationv1.SelfSubjectRulesReview{} }, Singular: "selfsubjectrulesreview"},
		resolver: r,
	}, nil
}

// Map returns the storage by path.
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{"selfsubjectrulesreviews": s}
}

// NamespaceScoped is false: the namespace is in the spec.
func (*Storage) NamespaceScoped() bool { return false }

// Create lists the requester's rules in the spec's namespace. The answer
// is a new review carrying only the status, as kube-apiserver's is; rule
// lists are never null, and an incomplete answer says why in
// evaluationError.
func (s *Storage) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	r, ok := obj.(*authorizationv1.SelfSubjectRulesReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectRulesReview: %#v", obj))
	}
	u, ok := request.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewBadRequest("no user present on request")
	}
	if r.Spec.Namespace == "" {
		return nil, apierrors.NewBadRequest("no namespace on request")
	}
	if createValidation != nil {
		if err := createValidation(ctx, r.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	rr, nr, incomplete, err := s.resolver.RulesFor(ctx, u, r.Spec.Namespace)
	out := &authorizationv1.SelfSubjectRulesReview{Status: authorizationv1.SubjectRulesReviewStatus{
		ResourceRules:    append([]authorizationv1.ResourceRule{}, rr...),
		NonResourceRules: append([]authorizationv1.NonResourceRule{}, nr...),
		Incomplete:       incomplete,
	}}
	if err != nil {
		out.Status.EvaluationError = err.Error()
	}
	return out, nil
}
