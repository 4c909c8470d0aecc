// Package tokenreview serves authentication.k8s.io/v1 tokenreviews: POST
// a token and get back whether the server's authenticators accept it, for
// which user and audiences. Nothing is stored.
package tokenreview

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Storage is the REST storage of tokenreviews.
type Storage struct {
	TokenReview *REST
}

// NewStorage returns the storage of tokenreviews, which asks authn (the
// server's own request authenticator) about tokens; apiAudiences are the
// audiences of a review that names none.
func NewStorage(authn authenticator.Request, apiAudiences []string) (*Storage, error) {
	return &Storage{TokenReview: &REST{authn: authn, apiAudiences: apiAudiences}}, nil
}

// Map returns the storage by path: "tokenreviews".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{"tokenreviews": s.TokenReview}
}

// REST reviews tokens.
type REST struct {
	authn        authenticator.Request
	apiAudiences []string
}

var (
	_ rest.Creater              = &REST{}
	_ rest.Scoper               = &REST{}
	_ rest.SingularNameProvider = &REST{}
)

func (r *REST) New() runtime.Object     { return &authenticationv1.TokenReview{} }
func (r *REST) Destroy()                {}
func (r *REST) NamespaceScoped() bool   { return false }
func (r *REST) GetSingularName() string { return "tokenreview" }

// Create authenticates the review's token as a request carrying only
// that bearer token, for the review's audiences (or the API's), and
// reports the outcome in the status, as kube-apiserver does: a rejected
// token is a 201 with authenticated=false and the error, not an error of
// the request.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	review := obj.(*authenticationv1.TokenReview).DeepCopy()
	if ns := request.NamespaceValue(ctx); ns != "" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("namespace is not allowed on this type: %v", ns))
	}
	if review.Spec.Token == "" {
		return nil, apierrors.NewBadRequest("token is required for TokenReview in authentication")
	}
	if createValidation != nil {
		if err := createValidation(ctx, review.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	auds := review.Spec.Audiences
	if len(auds) == 0 {
		auds = r.apiAudiences
	}
	req, err := http.NewRequestWithContext(authenticator.WithAudiences(ctx, auds), http.MethodGet, "/", nil)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	req.Header.Set("Authorization", "Bearer "+review.Spec.Token)
	resp, ok, err := r.authn.AuthenticateRequest(req)
	review.Status = authenticationv1.TokenReviewStatus{Authenticated: ok}
	if err != nil {
		review.Status.Error = err.Error()
	}
	var granted []string
	if ok && resp != nil {
		// An authenticator that knows no audiences (certificates, static
		// tokens) vouches for the API's own, as kube-apiserver wraps it.
		tokenAuds := resp.Audiences
		if len(tokenAuds) == 0 {
			tokenAuds = r.apiAudiences
		}
		granted = tokenAuds
		if len(auds) > 0 {
			granted = slices.DeleteFunc(slices.Clone(tokenAuds), func(a string) bool { return !slices.Contains(auds, a) })
			if len(granted) == 0 {
				review.Status = authenticationv1.TokenReviewStatus{Error: fmt.Sprintf("token audiences %q is invalid for the target audiences %q", tokenAuds, auds)}
				return review, nil
			}
		}
	}
	if ok && resp != nil && resp.User != nil {
		u := resp.User
		review.Status.User = authenticationv1.UserInfo{Username: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups()}
		if extra := u.GetExtra(); len(extra) > 0 {
			review.Status.User.Extra = map[string]authenticationv1.ExtraValue{}
			for k, v := range extra {
				review.Status.User.Extra[k] = v
			}
		}
		review.Status.Audiences = granted
	}
	return review, nil
}
