package serviceaccount

import (
	"context"
	"fmt"
	"slices"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
	sa "github.com/kapi-dev/kapi/pkg/serviceaccount"
)

// TokenSigner signs the claims of a token; pkg/app hands in the signer of
// --service-account-signing-key-file.
type TokenSigner interface {
	Sign(c *sa.Claims) (string, error)
}

// TokenConfig is what serviceaccounts/token needs to issue tokens. Without
// a Signer the subresource is not served, as kube-apiserver does not serve
// it without a signing key.
type TokenConfig struct {
	Signer TokenSigner
	// Issuer is the first --service-account-issuer.
	Issuer string
	// APIAudiences are --api-audiences, the audiences of a request that
	// names none.
	APIAudiences []string
	// MaxExpirationSeconds is --service-account-max-token-expiration; 0
	// means no limit.
	MaxExpirationSeconds int64
	// ExtendExpiration is --service-account-extend-token-expiration.
	ExtendExpiration bool
	// MaxExtendedExpirationSeconds is how long an extended token lives;
	// 0 means a year.
	MaxExtendedExpirationSeconds int64
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Objects a token may be bound to, read through their storage.
type boundObjects struct {
	pods, secrets, nodes rest.Getter
}

// TokenREST serves serviceaccounts/token: POST of an
// authentication.k8s.io/v1 TokenRequest returns it with a signed token in
// its status. Nothing is stored.
type TokenREST struct {
	accounts rest.Getter
	bound    boundObjects
	cfg      TokenConfig
}

var (
	_ rest.Creater                  = &TokenREST{}
	_ rest.Scoper                   = &TokenREST{}
	_ rest.GroupVersionKindProvider = &TokenREST{}
)

var tokenRequestKind = authenticationv1.SchemeGroupVersion.WithKind("TokenRequest")

func (r *TokenREST) New() runtime.Object   { return &authenticationv1.TokenRequest{} }
func (r *TokenREST) Destroy()              {}
func (r *TokenREST) NamespaceScoped() bool { return true }

// GroupVersionKind is authentication.k8s.io/v1 TokenRequest, whatever
// group serves the subresource.
func (r *TokenREST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return tokenRequestKind
}

// Token lifetimes kube-apiserver's validation allows.
const (
	minExpirationSeconds = 10 * 60
	maxExpirationSeconds = 1 << 32
)

// Create issues a token for the service account named in the path, in
// kube-apiserver's order: the body's name and namespace must match the
// path's; the account must exist; the spec is defaulted and validated;
// the bound object must exist (and run as the account, for a pod) with
// the uid the reference gives; the lifetime is capped by
// --service-account-max-token-expiration and, for a pod-bound token of
// the kubelet's default lifetime and the API's audiences, extended.
func (r *TokenREST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
	req := obj.(*authenticationv1.TokenRequest).DeepCopy()
	name := ""
	if info, ok := request.RequestInfoFrom(ctx); ok {
		name = info.Name
	}
	namespace := request.NamespaceValue(ctx)
	if namespace == "" {
		return nil, apierrors.NewBadRequest("namespace is required")
	}
	gk := tokenRequestKind.GroupKind()
	if req.Name != "" && req.Name != name {
		return nil, apierrors.NewInvalid(gk, name, field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), req.Name, "must match the service account name if specified")})
	}
	if req.Namespace != "" && req.Namespace != namespace {
		return nil, apierrors.NewInvalid(gk, name, field.ErrorList{field.Invalid(field.NewPath("metadata", "namespace"), req.Namespace, "must match the service account namespace if specified")})
	}
	obj, err := r.accounts.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	acct := obj.(*corev1.ServiceAccount)

	if len(req.Spec.Audiences) == 0 {
		req.Spec.Audiences = slices.Clone(r.cfg.APIAudiences)
	}
	if req.Spec.ExpirationSeconds == nil {
		req.Spec.ExpirationSeconds = new(int64)
		*req.Spec.ExpirationSeconds = 60 * 60
	}
	req.Name, req.Namespace = acct.Name, acct.Namespace
	if req.UID == "" {
		req.UID = acct.UID
	} else if req.UID != acct.UID {
		warning.AddWarning(ctx, fmt.Sprintf("the UID in the token request (%s) does not match the UID of the service account (%s) but TokenRequestServiceAccountUIDValidation is not enabled. In the future, this will return a conflict error", req.UID, acct.UID))
	}
	now := time.Now
	if r.cfg.Now != nil {
		now = r.cfg.Now
	}
	issuedAt := now()
	req.CreationTimestamp = metav1.NewTime(issuedAt)
	req.Status = authenticationv1.TokenRequestStatus{}
	if errs := validateTokenRequest(req); len(errs) > 0 {
		return nil, apierrors.NewInvalid(gk, "", errs)
	}
	if createValidation != nil {
		if err := createValidation(ctx, req.DeepCopyObject()); err != nil {
			return nil, err
		}
	}

	claims := sa.BoundRequest{
		Issuer:         r.cfg.Issuer,
		Audiences:      req.Spec.Audiences,
		Namespace:      acct.Namespace,
		ServiceAccount: sa.Ref{Name: acct.Name, UID: string(acct.UID)},
		IssuedAt:       issuedAt.Unix(),
		ID:             string(uuid.NewUUID()),
	}
	if ref := req.Spec.BoundObjectRef; ref != nil {
		if err := r.bind(ctx, name, namespace, ref, &claims); err != nil {
			return nil, err
		}
	}

	expiration := *req.Spec.ExpirationSeconds
	if max := r.cfg.MaxExpirationSeconds; max > 0 && expiration > max {
		warning.AddWarning(ctx, fmt.Sprintf("requested expiration of %d seconds shortened to %d seconds", expiration, max))
		expiration = max
		*req.Spec.ExpirationSeconds = max
	}
	claims.ExpirationSeconds = expiration
	if r.cfg.ExtendExpiration && claims.Pod != nil && expiration == sa.WarnOnlyExpirationSeconds && r.apiAudiences(req.Spec.Audiences) {
		claims.WarnAfterSeconds = expiration
		claims.ExpirationSeconds = sa.ExtendedExpirationSeconds
		if r.cfg.MaxExtendedExpirationSeconds > 0 {
			claims.ExpirationSeconds = r.cfg.MaxExtendedExpirationSeconds
		}
	}
	token, err := r.cfg.Signer.Sign(sa.BoundClaims(claims))
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("failed to generate token: %v", err))
	}
	req.Status = authenticationv1.TokenRequestStatus{
		Token:               token,
		ExpirationTimestamp: metav1.NewTime(issuedAt.Add(time.Duration(expiration) * time.Second)),
	}
	return req, nil
}

// bind checks the object ref names and records it in the claims.
func (r *TokenREST) bind(ctx context.Context, account, namespace string, ref *authenticationv1.BoundObjectReference, claims *sa.BoundRequest) error {
	gvk := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind)
	var uid string
	if ref.Name == "" && gvk.Group == "" && (gvk.Kind == "Pod" || gvk.Kind == "Node" || gvk.Kind == "Secret") {
		// kube-apiserver's storage answers a get without a name so.
		return apierrors.NewBadRequest("Name parameter required.")
	}
	switch {
	case gvk.Group == "" && gvk.Kind == "Pod":
		obj, err := r.bound.pods.Get(ctx, ref.Name, &metav1.GetOptions{})
		if err != nil {
			return err
		}
		pod := obj.(*corev1.Pod)
		if pod.Spec.ServiceAccountName != account {
			return apierrors.NewBadRequest(fmt.Sprintf("cannot bind token for serviceaccount %q to pod running with different serviceaccount name.", account))
		}
		uid = string(pod.UID)
		claims.Pod = &sa.Ref{Name: pod.Name, UID: uid}
		if nodeName := pod.Spec.NodeName; nodeName != "" {
			// A missing node still gets its name into the token, so that
			// the token tells where the pod was scheduled.
			claims.Node = &sa.Ref{Name: nodeName}
			obj, err := r.bound.nodes.Get(request.WithNamespace(ctx, ""), nodeName, &metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
			case err != nil:
				return apierrors.NewInternalError(err)
			default:
				claims.Node.UID = string(obj.(*corev1.Node).UID)
			}
		}
	case gvk.Group == "" && gvk.Kind == "Node":
		obj, err := r.bound.nodes.Get(request.WithNamespace(ctx, ""), ref.Name, &metav1.GetOptions{})
		if err != nil {
			return err
		}
		uid = string(obj.(*corev1.Node).UID)
		claims.Node = &sa.Ref{Name: ref.Name, UID: uid}
	case gvk.Group == "" && gvk.Kind == "Secret":
		obj, err := r.bound.secrets.Get(ctx, ref.Name, &metav1.GetOptions{})
		if err != nil {
			return err
		}
		uid = string(obj.(*corev1.Secret).UID)
		claims.Secret = &sa.Ref{Name: ref.Name, UID: uid}
	default:
		return apierrors.NewBadRequest(fmt.Sprintf("cannot bind token to object of type %s", gvk.String()))
	}
	if ref.UID != "" && string(ref.UID) != uid {
		return apierrors.NewConflict(schema.GroupResource{Group: gvk.Group, Resource: gvk.Kind}, ref.Name,
			fmt.Errorf("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID))
	}
	return nil
}

// apiAudiences tells whether every audience is one of the API's.
func (r *TokenREST) apiAudiences(auds []string) bool {
	for _, a := range auds {
		if !slices.Contains(r.cfg.APIAudiences, a) {
			return false
		}
	}
	return true
}

// validateTokenRequest is kube-apiserver's static validation of a
// TokenRequest.
func validateTokenRequest(req *authenticationv1.TokenRequest) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("spec", "expirationSeconds")
	switch exp := *req.Spec.ExpirationSeconds; {
	case exp < minExpirationSeconds:
		errs = append(errs, field.Invalid(p, exp, "may not specify a duration less than 10 minutes"))
	case exp > maxExpirationSeconds:
		errs = append(errs, field.Invalid(p, exp, "may not specify a duration larger than 2^32 seconds"))
	}
	return errs
}
