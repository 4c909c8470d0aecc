package certificates

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

var (
	metadataPath   = field.NewPath("metadata")
	specPath       = field.NewPath("spec")
	conditionsPath = field.NewPath("status", "conditions")
)

// legacyUnknownSignerName is the signer of certificates.k8s.io/v1beta1
// requests that named none; v1 refuses it on new requests.
const legacyUnknownSignerName = "kubernetes.io/legacy-unknown"

// validUsages are the key usages a request may ask for.
var validUsages = sets.New(
	certificatesv1.UsageSigning, certificatesv1.UsageDigitalSignature, certificatesv1.UsageContentCommitment,
	certificatesv1.UsageKeyEncipherment, certificatesv1.UsageKeyAgreement, certificatesv1.UsageDataEncipherment,
	certificatesv1.UsageCertSign, certificatesv1.UsageCRLSign, certificatesv1.UsageEncipherOnly,
	certificatesv1.UsageDecipherOnly, certificatesv1.UsageAny, certificatesv1.UsageServerAuth,
	certificatesv1.UsageClientAuth, certificatesv1.UsageCodeSigning, certificatesv1.UsageEmailProtection,
	certificatesv1.UsageSMIME, certificatesv1.UsageIPsecEndSystem, certificatesv1.UsageIPsecTunnel,
	certificatesv1.UsageIPsecUser, certificatesv1.UsageTimestamping, certificatesv1.UsageOCSPSigning,
	certificatesv1.UsageMicrosoftSGC, certificatesv1.UsageNetscapeSGC,
)

// csrRules says which of the rules of a request apply to one write. A
// rule is relaxed when the stored request already breaks it (kube-apiserver
// keeps serving what older versions stored), and the subresources may
// each write one part of the status.
type csrRules struct {
	setApproval              bool // /approval: Approved and Denied conditions
	setCertificate           bool // /status: status.certificate
	bothApprovedAndDenied    bool
	legacySignerName         bool
	duplicateConditionTypes  bool
	emptyConditionType       bool
	arbitraryCertificate     bool
	unknownUsages            bool
	duplicateUsages          bool
	certificateAlreadyIssued bool
}

func rulesFor(csr, old *certificatesv1.CertificateSigningRequest) csrRules {
	if old == nil {
		return csrRules{}
	}
	r := csrRules{legacySignerName: old.Spec.SignerName == legacyUnknownSignerName}
	var approved, denied bool
	types := sets.New[certificatesv1.RequestConditionType]()
	for _, c := range old.Status.Conditions {
		approved = approved || c.Type == certificatesv1.CertificateApproved
		denied = denied || c.Type == certificatesv1.CertificateDenied
		r.duplicateConditionTypes = r.duplicateConditionTypes || types.Has(c.Type)
		r.emptyConditionType = r.emptyConditionType || c.Type == ""
		types.Insert(c.Type)
	}
	r.bothApprovedAndDenied = approved && denied
	r.arbitraryCertificate = bytes.Equal(csr.Status.Certificate, old.Status.Certificate) || validateCertificate(old.Status.Certificate) != nil
	usages := sets.New[certificatesv1.KeyUsage]()
	for _, u := range old.Spec.Usages {
		r.unknownUsages = r.unknownUsages || !validUsages.Has(u)
		r.duplicateUsages = r.duplicateUsages || usages.Has(u)
		usages.Insert(u)
	}
	return r
}

// ValidateCertificateSigningRequest validates a request on create: its
// PKCS#10 request must parse and be signed by its key.
func ValidateCertificateSigningRequest(csr *certificatesv1.CertificateSigningRequest) field.ErrorList {
	allErrs, declarative := validateCSR(csr, csrRules{})
	return append(allErrs, declarative...)
}

// ValidateCertificateSigningRequestUpdate validates an update of the
// main resource, which may change only the metadata.
func ValidateCertificateSigningRequestUpdate(csr, old *certificatesv1.CertificateSigningRequest) field.ErrorList {
	return validateCSRUpdate(csr, old, rulesFor(csr, old))
}

// ValidateCertificateSigningRequestStatusUpdate validates a write of
// /status, which may set the certificate (once) and conditions other
// than Approved and Denied.
func ValidateCertificateSigningRequestStatusUpdate(csr, old *certificatesv1.CertificateSigningRequest) field.ErrorList {
	r := rulesFor(csr, old)
	r.setCertificate = true
	return validateCSRUpdate(csr, old, r)
}

// ValidateCertificateSigningRequestApprovalUpdate validates a write of
// /approval, which may add the Approved or the Denied condition.
func ValidateCertificateSigningRequestApprovalUpdate(csr, old *certificatesv1.CertificateSigningRequest) field.ErrorList {
	r := rulesFor(csr, old)
	r.setApproval = true
	return validateCSRUpdate(csr, old, r)
}

// validateCSR returns the errors of the hand-written rules, then those of
// kube-apiserver's declarative ones, which it reports after all others.
func validateCSR(csr *certificatesv1.CertificateSigningRequest, r csrRules) (allErrs, declarative field.ErrorList) {
	// A request may have any name at all.
	allErrs = core.ValidateObjectMeta(&csr.ObjectMeta, false, func(string, bool) []string { return nil }, metadataPath)
	if err := checkRequest(csr.Spec.Request); err != nil {
		allErrs = append(allErrs, field.Invalid(specPath.Child("request"), csr.Spec.Request, err.Error()))
	}
	usagesPath := specPath.Child("usages")
	if len(csr.Spec.Usages) == 0 {
		allErrs = append(allErrs, field.Required(usagesPath, ""))
	}
	if !r.unknownUsages {
		for i, u := range csr.Spec.Usages {
			if !validUsages.Has(u) {
				allErrs = append(allErrs, field.NotSupported(usagesPath.Index(i), u, sets.List(validUsages)))
			}
		}
	}
	if !r.duplicateUsages {
		seen := sets.New[certificatesv1.KeyUsage]()
		for i, u := range csr.Spec.Usages {
			if seen.Has(u) {
				allErrs = append(allErrs, field.Duplicate(usagesPath.Index(i), u))
			}
			seen.Insert(u)
		}
	}
	signerPath := specPath.Child("signerName")
	if !r.legacySignerName && csr.Spec.SignerName == legacyUnknownSignerName {
		allErrs = append(allErrs, field.Invalid(signerPath, csr.Spec.SignerName, "the legacy signerName is not allowed via this API version"))
	} else {
		allErrs = append(allErrs, ValidateSignerName(signerPath, csr.Spec.SignerName)...)
	}
	if s := csr.Spec.ExpirationSeconds; s != nil && *s < 600 {
		allErrs = append(allErrs, field.Invalid(specPath.Child("expirationSeconds"), *s, "may not specify a duration less than 600 seconds (10 minutes)"))
	}
	allErrs = append(allErrs, validateConditions(csr.Status.Conditions, r)...)
	if !r.arbitraryCertificate {
		if err := validateCertificate(csr.Status.Certificate); err != nil {
			allErrs = append(allErrs, field.Invalid(field.NewPath("status", "certificate"), "<certificate data>", err.Error()))
		}
	}
	// Declarative (+k8s:zeroOrOneOfMember): not both Approved and Denied.
	if !r.bothApprovedAndDenied && hasCondition(csr, certificatesv1.CertificateApproved) && hasCondition(csr, certificatesv1.CertificateDenied) {
		declarative = append(declarative, field.Invalid(conditionsPath,
			`{conditions[{"type": "Approved"}], conditions[{"type": "Denied"}]}`,
			"must specify at most one of: `conditions[{\"type\": \"Approved\"}]`, `conditions[{\"type\": \"Denied\"}]`"))
	}
	return allErrs, declarative
}

// validateConditions requires a type and a status on each condition,
// True for Approved, Denied and Failed, and one condition per type.
func validateConditions(conditions []certificatesv1.CertificateSigningRequestCondition, r csrRules) field.ErrorList {
	var allErrs field.ErrorList
	seen := sets.New[certificatesv1.RequestConditionType]()
	for i, c := range conditions {
		idxPath := conditionsPath.Index(i)
		if !r.emptyConditionType && c.Type == "" {
			allErrs = append(allErrs, field.Required(idxPath.Child("type"), ""))
		}
		allowed := []string{string(corev1.ConditionFalse), string(corev1.ConditionTrue), string(corev1.ConditionUnknown)}
		switch c.Type {
		case certificatesv1.CertificateApproved, certificatesv1.CertificateDenied, certificatesv1.CertificateFailed:
			allowed = []string{string(corev1.ConditionTrue)}
		}
		switch {
		case c.Status == "":
			allErrs = append(allErrs, field.Required(idxPath.Child("status"), ""))
		case !slices.Contains(allowed, string(c.Status)):
			allErrs = append(allErrs, field.NotSupported(idxPath.Child("status"), c.Status, allowed))
		}
		if !r.duplicateConditionTypes {
			if seen.Has(c.Type) {
				allErrs = append(allErrs, field.Duplicate(idxPath.Child("type"), c.Type))
			}
			seen.Insert(c.Type)
		}
	}
	return allErrs
}

func validateCSRUpdate(csr, old *certificatesv1.CertificateSigningRequest, r csrRules) field.ErrorList {
	allErrs, declarative := validateCSR(csr, r)
	for _, t := range []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied, certificatesv1.CertificateFailed} {
		if len(findConditions(csr, t)) < len(findConditions(old, t)) {
			allErrs = append(allErrs, field.Forbidden(conditionsPath, fmt.Sprintf("updates may not remove a condition of type %q", t)))
		}
	}
	if !r.setApproval {
		for _, t := range []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied} {
			newConds, oldConds := findConditions(csr, t), findConditions(old, t)
			switch {
			case len(newConds) < len(oldConds):
			case len(newConds) > len(oldConds):
				allErrs = append(allErrs, field.Forbidden(conditionsPath, fmt.Sprintf("updates may not add a condition of type %q", t)))
			case !apiequality.Semantic.DeepEqual(oldConds, newConds):
				allErrs = append(allErrs, field.Forbidden(conditionsPath, fmt.Sprintf("updates may not modify a condition of type %q", t)))
			}
		}
	}
	if !bytes.Equal(csr.Status.Certificate, old.Status.Certificate) {
		certPath := field.NewPath("status", "certificate")
		if !r.setCertificate {
			allErrs = append(allErrs, field.Forbidden(certPath, "updates may not set certificate content"))
		} else if len(old.Status.Certificate) > 0 {
			allErrs = append(allErrs, field.Forbidden(certPath, "updates may not modify existing certificate content"))
		}
	}
	allErrs = append(allErrs, core.ValidateObjectMetaUpdate(&csr.ObjectMeta, &old.ObjectMeta, metadataPath)...)
	return append(allErrs, declarative...)
}

func hasCondition(csr *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) bool {
	return len(findConditions(csr, t)) > 0
}

func findConditions(csr *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) []certificatesv1.CertificateSigningRequestCondition {
	var found []certificatesv1.CertificateSigningRequestCondition
	for _, c := range csr.Status.Conditions {
		if c.Type == t {
			found = append(found, c)
		}
	}
	return found
}

// checkRequest parses a PEM-encoded PKCS#10 request and checks that its
// key signed it.
func checkRequest(data []byte) error {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return errors.New("PEM block type must be CERTIFICATE REQUEST")
	}
	req, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return err
	}
	return req.CheckSignature()
}

// validateCertificate accepts an empty certificate, or one or more
// CERTIFICATE blocks without headers that parse as X.509.
func validateCertificate(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	blocks := 0
	for {
		block, rest := pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("only CERTIFICATE PEM blocks are allowed, found %q", block.Type)
		}
		if len(block.Headers) != 0 {
			return errors.New("no PEM block headers are permitted")
		}
		blocks++
		certs, err := x509.ParseCertificates(block.Bytes)
		if err != nil {
			return err
		}
		if len(certs) == 0 {
			return errors.New("found CERTIFICATE PEM block containing 0 certificates")
		}
		data = rest
	}
	if blocks == 0 {
		return errors.New("must contain at least one CERTIFICATE PEM block")
	}
	return nil
}

// ValidateSignerName validates a signer name: a domain of at least two
// DNS labels, a slash, and a path of DNS subdomains separated by dots.
func ValidateSignerName(fldPath *field.Path, name string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	segments := strings.Split(name, "/")
	if len(segments) != 2 {
		return field.ErrorList{field.Invalid(fldPath, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")}
	}
	domain, path := segments[0], segments[1]
	var allErrs field.ErrorList
	if len(domain) > validation.DNS1123SubdomainMaxLength {
		allErrs = append(allErrs, field.TooLong(fldPath, domain, validation.DNS1123SubdomainMaxLength))
	}
	labels := strings.Split(domain, ".")
	for _, l := range labels {
		if msgs := validation.IsDNS1123Label(l); len(msgs) > 0 {
			for _, msg := range msgs {
				allErrs = append(allErrs, field.Invalid(fldPath, domain, fmt.Sprintf("validating label %q: %s", l, msg)))
			}
			break
		}
	}
	if len(labels) < 2 {
		allErrs = append(allErrs, field.Invalid(fldPath, domain, "should be a domain with at least two segments separated by dots"))
	}
	for _, l := range strings.Split(path, ".") {
		if msgs := validation.IsDNS1123Subdomain(l); len(msgs) > 0 {
			for _, msg := range msgs {
				allErrs = append(allErrs, field.Invalid(fldPath, path, fmt.Sprintf("validating label %q: %s", l, msg)))
			}
			break
		}
	}
	return allErrs
}
