package certificates

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/mail"
	"strings"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

// Bounds of a PodCertificateRequest.
const (
	minMaxExpirationSeconds           = 3600
	kubernetesMaxMaxExpirationSeconds = 86400
	maxMaxExpirationSeconds           = 91 * 86400
	defaultMaxExpirationSeconds       = 86400
	maxUIDLength                      = 128
	maxStubRequestSize                = 100 * 1024
	maxCertificateChainSize           = 100 * 1024
)

var (
	stubPath         = specPath.Child("stubPKCS10Request")
	certChainPath    = field.NewPath("status", "certificateChain")
	notBeforePath    = field.NewPath("status", "notBefore")
	notAfterPath     = field.NewPath("status", "notAfter")
	beginRefreshPath = field.NewPath("status", "beginRefreshAt")
)

// SetDefaultsPodCertificateRequest gives a request a day as its longest
// certificate lifetime when it names none.
func SetDefaultsPodCertificateRequest(r *certificatesv1.PodCertificateRequest) {
	if r.Spec.MaxExpirationSeconds == nil {
		v := int32(defaultMaxExpirationSeconds)
		r.Spec.MaxExpirationSeconds = &v
	}
}

// ValidatePodCertificateRequest validates a request on create: who it is
// for, how long its certificate may live (a day at most for the
// kubernetes.io signers), and its stub PKCS#10 request, which must be
// signed by a key of a supported type.
func ValidatePodCertificateRequest(r *certificatesv1.PodCertificateRequest) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&r.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	spec := &r.Spec
	allErrs = append(allErrs, ValidateSignerName(specPath.Child("signerName"), spec.SignerName)...)
	if spec.UnverifiedUserAnnotations != nil {
		allErrs = append(allErrs, validateUserAnnotations(spec.UnverifiedUserAnnotations, specPath.Child("unverifiedUserAnnotations"))...)
	}
	name := func(value, child string) {
		for _, msg := range apivalidation.NameIsDNSSubdomain(value, false) {
			allErrs = append(allErrs, field.Invalid(specPath.Child(child), value, msg))
		}
	}
	uid := func(value, child string) {
		if value == "" {
			allErrs = append(allErrs, field.Invalid(specPath.Child(child), value, "must not be empty"))
		}
		if len(value) > maxUIDLength {
			allErrs = append(allErrs, field.TooLong(specPath.Child(child), value, maxUIDLength))
		}
	}
	name(spec.PodName, "podName")
	uid(string(spec.PodUID), "podUID")
	name(spec.ServiceAccountName, "serviceAccountName")
	uid(string(spec.ServiceAccountUID), "serviceAccountUID")
	name(string(spec.NodeName), "nodeName")
	uid(string(spec.NodeUID), "nodeUID")

	expPath := specPath.Child("maxExpirationSeconds")
	if spec.MaxExpirationSeconds == nil {
		return append(allErrs, field.Required(expPath, "must be set"))
	}
	limit := maxMaxExpirationSeconds
	if strings.HasPrefix(spec.SignerName, "kubernetes.io/") {
		limit = kubernetesMaxMaxExpirationSeconds
	}
	if e := int(*spec.MaxExpirationSeconds); e < minMaxExpirationSeconds || e > limit {
		allErrs = append(allErrs, field.Invalid(expPath, *spec.MaxExpirationSeconds, fmt.Sprintf("must be in the range [%d, %d]", minMaxExpirationSeconds, limit)))
	}

	if len(spec.StubPKCS10Request) == 0 {
		return append(allErrs, field.Invalid(specPath, field.OmitValueType{}, "exactly one of (stubPKCS10Request) or (pkixPublicKey, proofOfPossession) must be set"))
	}
	if len(spec.StubPKCS10Request) > maxStubRequestSize {
		return append(allErrs, field.TooLong(stubPath, spec.StubPKCS10Request, maxStubRequestSize))
	}
	req, err := x509.ParseCertificateRequest(spec.StubPKCS10Request)
	if err != nil {
		return append(allErrs, field.Invalid(stubPath, field.OmitValueType{}, "must be a valid PKCS#10 CSR"))
	}
	if err := req.CheckSignature(); err != nil {
		return append(allErrs, field.Invalid(stubPath, field.OmitValueType{}, "could not verify PKCS#10 CSR signature"))
	}
	switch pub := req.PublicKey.(type) {
	case ed25519.PublicKey:
	case *ecdsa.PublicKey:
		if pub.Curve != elliptic.P256() && pub.Curve != elliptic.P384() && pub.Curve != elliptic.P521() {
			allErrs = append(allErrs, field.Invalid(stubPath, "curve "+pub.Curve.Params().Name, "elliptic public keys must use curve P256 or P384"))
		}
	case *rsa.PublicKey:
		if bits := pub.Size() * 8; bits != 3072 && bits != 4096 {
			allErrs = append(allErrs, field.Invalid(stubPath, fmt.Sprintf("%d-bit modulus", bits), "RSA keys must have modulus size 3072 or 4096"))
		}
	default:
		allErrs = append(allErrs, field.Invalid(stubPath, field.OmitValueType{}, "unknown public key type; supported types are Ed25519, ECDSA, and RSA"))
	}
	return allErrs
}

// validateUserAnnotations follows the rules of annotations, with keys that
// must carry a domain prefix.
func validateUserAnnotations(annotations map[string]string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, k := range sets.List(sets.KeySet(annotations)) {
		lower := strings.ToLower(k)
		if !strings.Contains(lower, "/") {
			allErrs = append(allErrs, field.Invalid(fldPath, lower, `must be a domain-prefixed key (such as "acme.io/foo")`))
			continue
		}
		for _, msg := range validation.IsQualifiedName(lower) {
			allErrs = append(allErrs, field.Invalid(fldPath, lower, msg))
		}
	}
	if apivalidation.ValidateAnnotationsSize(annotations) != nil {
		allErrs = append(allErrs, field.TooLong(fldPath, "", apivalidation.TotalAnnotationSizeLimitB))
	}
	return allErrs
}

// ValidatePodCertificateRequestUpdate validates an update of the main
// resource: only the metadata may change.
func ValidatePodCertificateRequestUpdate(r, old *certificatesv1.PodCertificateRequest) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&r.ObjectMeta, &old.ObjectMeta, metadataPath)
	if !apiequality.Semantic.DeepEqual(r.Spec, old.Spec) {
		allErrs = append(allErrs, field.Invalid(specPath, internalSpec(&r.Spec), "field is immutable"))
	}
	return allErrs
}

// internalPodCertificateRequestSpec mirrors kube-apiserver's internal
// type, which has no JSON tags and still has v1beta1's key fields: the
// immutable-spec error prints the spec with Go field names.
type internalPodCertificateRequestSpec struct {
	SignerName                string
	PodName                   string
	PodUID                    string
	ServiceAccountName        string
	ServiceAccountUID         string
	NodeName                  string
	NodeUID                   string
	MaxExpirationSeconds      *int32
	PKIXPublicKey             []byte
	ProofOfPossession         []byte
	StubPKCS10Request         []byte
	UnverifiedUserAnnotations map[string]string
}

func internalSpec(s *certificatesv1.PodCertificateRequestSpec) internalPodCertificateRequestSpec {
	return internalPodCertificateRequestSpec{
		SignerName: s.SignerName, PodName: s.PodName, PodUID: string(s.PodUID),
		ServiceAccountName: s.ServiceAccountName, ServiceAccountUID: string(s.ServiceAccountUID),
		NodeName: string(s.NodeName), NodeUID: string(s.NodeUID), MaxExpirationSeconds: s.MaxExpirationSeconds,
		StubPKCS10Request: s.StubPKCS10Request, UnverifiedUserAnnotations: s.UnverifiedUserAnnotations,
	}
}

// ValidatePodCertificateRequestStatusUpdate validates a write of the
// status by the signer: a pending request may become Issued (with a
// certificate for the requested key and consistent times), Denied or
// Failed, once; the status is fixed otherwise.
func ValidatePodCertificateRequestStatusUpdate(r, old *certificatesv1.PodCertificateRequest, now time.Time) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&r.ObjectMeta, &old.ObjectMeta, metadataPath)
	if len(allErrs) > 0 {
		return allErrs
	}
	conditionsPath := field.NewPath("status", "conditions")
	known := []string{certificatesv1.PodCertificateRequestConditionTypeIssued, certificatesv1.PodCertificateRequestConditionTypeDenied, certificatesv1.PodCertificateRequestConditionTypeFailed}
	terminal := 0
	for i, c := range r.Status.Conditions {
		// kube-apiserver names the index as a field: "status.conditions.[0]".
		idxPath := conditionsPath.Child(fmt.Sprintf("[%d]", i))
		switch c.Type {
		case known[0], known[1], known[2]:
			terminal++
			if terminal > 1 {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("type"), c.Type, `There may be at most one condition with type "Issued", "Denied", or "Failed"`))
			}
			if c.Status != metav1.ConditionTrue {
				allErrs = append(allErrs, field.NotSupported(idxPath.Child("status"), c.Status, []metav1.ConditionStatus{metav1.ConditionTrue}))
			}
		default:
			allErrs = append(allErrs, field.NotSupported(idxPath.Child("type"), c.Type, known))
		}
	}
	allErrs = append(allErrs, metav1validation.ValidateConditions(r.Status.Conditions, conditionsPath)...)
	if len(allErrs) > 0 {
		return allErrs
	}
	statusPath := field.NewPath("status")
	unchanged := func(a, b certificatesv1.PodCertificateRequestStatus, detail string) field.ErrorList {
		if apiequality.Semantic.DeepEqual(a, b) {
			return nil
		}
		return field.ErrorList{field.Invalid(statusPath, field.OmitValueType{}, detail)}
	}
	switch {
	case pcrIs(old, known[0]) || pcrIs(old, known[1]) || pcrIs(old, known[2]):
		return unchanged(r.Status, old.Status, "immutable after PodCertificateRequest is issued, denied, or failed")
	case pcrIs(r, known[1]) || pcrIs(r, known[2]):
		return unchanged(r.Status, certificatesv1.PodCertificateRequestStatus{Conditions: r.Status.Conditions},
			"non-condition status fields must be empty when denying or failing the PodCertificateRequest")
	case pcrIs(r, known[0]):
		return validateIssued(r, old, now)
	default:
		return unchanged(r.Status, old.Status, `status is immutable unless transitioning to "Issued", "Denied", or "Failed"`)
	}
}

func pcrIs(r *certificatesv1.PodCertificateRequest, t string) bool {
	for _, c := range r.Status.Conditions {
		if c.Type == t && c.Status == metav1.ConditionTrue {
			return true
		}
	}
	return false
}

// validateIssued checks an issued certificate chain: a leaf for the key
// of the stub request, times that match it, a refresh time within its
// life, and parseable intermediates.
func validateIssued(r, old *certificatesv1.PodCertificateRequest, now time.Time) field.ErrorList {
	st := &r.Status
	chain := st.CertificateChain
	if len(chain) > maxCertificateChainSize {
		return field.ErrorList{field.TooLong(certChainPath, chain, maxCertificateChainSize)}
	}
	leafBlock, rest := pem.Decode([]byte(chain))
	if leafBlock == nil {
		return field.ErrorList{field.Invalid(certChainPath, chain, "issued certificate chain must contain at least one certificate")}
	}
	if leafBlock.Type != "CERTIFICATE" {
		return field.ErrorList{field.Invalid(certChainPath, chain, "issued certificate chain must consist entirely of CERTIFICATE PEM blocks")}
	}
	leaf, err := x509.ParseCertificate(leafBlock.Bytes)
	if err != nil {
		return field.ErrorList{field.Invalid(certChainPath, chain, "leaf certificate does not parse as valid X.509")}
	}
	var allErrs field.ErrorList
	for _, n := range leaf.DNSNames {
		if n == "" {
			allErrs = append(allErrs, field.Invalid(certChainPath, n, "leaf certificate should not contain empty DNSName"))
		}
		if strings.Contains(n, "..") {
			allErrs = append(allErrs, field.Invalid(certChainPath, n, "leaf certificate's DNSName should not contain '..'"))
		}
		if strings.HasPrefix(n, ".") || strings.HasSuffix(n, ".") {
			allErrs = append(allErrs, field.Invalid(certChainPath, n, "leaf certificate's DNSName should not start or end with '.'"))
		}
	}
	for _, e := range leaf.EmailAddresses {
		if _, err := mail.ParseAddress(e); err != nil {
			allErrs = append(allErrs, field.Invalid(certChainPath, e, "leaf certificate should not contain invalid EmailAddress"))
		}
	}
	if req, err := x509.ParseCertificateRequest(old.Spec.StubPKCS10Request); err == nil {
		if k, ok := req.PublicKey.(interface{ Equal(crypto any) bool }); ok && !k.Equal(leaf.PublicKey) {
			return append(allErrs, field.Invalid(certChainPath, chain, "leaf certificate was not issued to the requested public key"))
		}
	}
	if st.NotBefore == nil {
		allErrs = append(allErrs, field.Required(notBeforePath, "must be present and consistent with the issued certificate"))
	}
	if st.NotAfter == nil {
		allErrs = append(allErrs, field.Required(notAfterPath, "must be present and consistent with the issued certificate"))
	}
	if st.BeginRefreshAt == nil {
		allErrs = append(allErrs, field.Required(beginRefreshPath, "must be present and in the range [notbefore+10min, notafter-10min]"))
	}
	if len(allErrs) > 0 {
		return allErrs
	}
	switch {
	case !st.NotBefore.Time.Equal(leaf.NotBefore):
		return field.ErrorList{field.Invalid(notBeforePath, st.NotBefore.Time, "must be set to the NotBefore time encoded in the leaf certificate")}
	case !(st.NotBefore.Time.After(now.Add(-5*time.Minute)) && st.NotBefore.Time.Before(now.Add(5*time.Minute))):
		return field.ErrorList{field.Invalid(notBeforePath, st.NotBefore.Time, "must be set to within 5 minutes of kube-apiserver's current time")}
	case !st.NotAfter.Time.Equal(leaf.NotAfter):
		return field.ErrorList{field.Invalid(notAfterPath, st.NotAfter.Time, "must be set to the NotAfter time encoded in the leaf certificate")}
	}
	lifetime := leaf.NotAfter.Sub(leaf.NotBefore)
	switch {
	case lifetime < time.Hour:
		return field.ErrorList{field.Invalid(certChainPath, lifetime, "leaf certificate lifetime must be >= 1 hour")}
	case lifetime > time.Duration(*r.Spec.MaxExpirationSeconds)*time.Second:
		return field.ErrorList{field.Invalid(certChainPath, lifetime, fmt.Sprintf("leaf certificate lifetime must be <= spec.maxExpirationSeconds (%v)", *r.Spec.MaxExpirationSeconds))}
	case st.BeginRefreshAt.Time.Before(st.NotBefore.Time.Add(10 * time.Minute)):
		return field.ErrorList{field.Invalid(beginRefreshPath, st.BeginRefreshAt.Time, "must be at least 10 minutes after status.notBefore")}
	case st.BeginRefreshAt.Time.After(st.NotAfter.Time.Add(-10 * time.Minute)):
		return field.ErrorList{field.Invalid(beginRefreshPath, st.BeginRefreshAt.Time, "must be at least 10 minutes before status.notAfter")}
	}
	for {
		var next *pem.Block
		next, rest = pem.Decode(rest)
		if next == nil {
			return nil
		}
		if next.Type != "CERTIFICATE" {
			return field.ErrorList{field.Invalid(certChainPath, chain, "issued certificate chain must consist entirely of CERTFICATE PEM blocks")}
		}
		if _, err := x509.ParseCertificate(next.Bytes); err != nil {
			return field.ErrorList{field.Invalid(certChainPath, chain, "intermediate certificate does not parse as valid X.509")}
		}
	}
}
