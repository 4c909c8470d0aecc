// Package selfsubjectreview serves authentication.k8s.io/v1
// selfsubjectreviews (kubectl auth whoami): POST one and get back the
// user the request was authenticated as. Nothing is stored.
package selfsubjectreview

import (
	"context"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Storage is the REST storage of selfsubjectreviews.
type Storage struct {
	SelfSubjectReview *REST
}

// NewStorage returns the storage of selfsubjectreviews.
func NewStorage() (*Storage, error) { return &Storage{SelfSubjectReview: &REST{}}, nil }

// Map returns the storage by path: "selfsubjectreviews".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{"selfsubjectreviews": s.SelfSubjectReview}
}

// REST answers who the requester is.
type REST struct{}

var (
	_ rest.Creater              = &REST{}
	_ rest.Scoper               = &REST{}
	_ rest.SingularNameProvider = &REST{}
)

func (r *REST) New() runtime.Object     { return &authenticationv1.SelfSubjectReview{} }
func (r *REST) Destroy()                {}
func (r *REST) NamespaceScoped() bool   { return false }
func (r *REST) GetSingularName() string { return "selfsubjectreview" }

// Create returns the review with the requester's user info in its status
// and a creation timestamp, as kube-apiserver does.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	if ns := request.NamespaceValue(ctx); ns != "" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("namespace is not allowed on this type: %v", ns))
	}
	if createValidation != nil {
		if err := createValidation(ctx, obj.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	u, ok := request.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("no user info present in the request"))
	}
	out := &authenticationv1.SelfSubjectReview{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.Now()}}
	out.Status.UserInfo = authenticationv1.UserInfo{Username: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups()}
	if extra := u.GetExtra(); len(extra) > 0 {
		out.Status.UserInfo.Extra = map[string]authenticationv1.ExtraValue{}
		for k, v := range extra {
			out.Status.UserInfo.Extra[k] = v
		}
	}
	return out, nil
}
