package printers

import (
	"slices"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// The printers of admissionregistration.k8s.io/v1 and
// certificates.k8s.io/v1.

var webhookConfigurationColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Webhooks", "integer", "Webhooks indicates the number of webhooks registered in this configuration"),
	ageColumn,
}

func printMutatingWebhookConfiguration(c *admissionregistrationv1.MutatingWebhookConfiguration, now time.Time) []any {
	return []any{c.Name, int64(len(c.Webhooks)), since(c.CreationTimestamp, now)}
}

func printValidatingWebhookConfiguration(c *admissionregistrationv1.ValidatingWebhookConfiguration, now time.Time) []any {
	return []any{c.Name, int64(len(c.Webhooks)), since(c.CreationTimestamp, now)}
}

var (
	paramKindColumn  = column("ParamKind", "string", "ParamKind specifies the kind of resources used to parameterize this policy")
	policyNameColumn = column("PolicyName", "string", "PolicyName indicates the policy definition which the policy binding binded to")
	paramRefColumn   = column("ParamRef", "string", "ParamRef indicates the param resource which sets the configuration param")
)

var validatingAdmissionPolicyColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Validations", "integer", "Validations indicates the number of validation rules defined in this configuration"),
	paramKindColumn,
	ageColumn,
}

var mutatingAdmissionPolicyColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Mutations", "integer", "Mutation indicates the number of mutations rules defined in this configuration"),
	paramKindColumn,
	ageColumn,
}

var admissionPolicyBindingColumns = []metav1.TableColumnDefinition{nameColumn, policyNameColumn, paramRefColumn, ageColumn}

func printValidatingAdmissionPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy, now time.Time) []any {
	return []any{p.Name, int64(len(p.Spec.Validations)), paramKind(p.Spec.ParamKind), since(p.CreationTimestamp, now)}
}

func printMutatingAdmissionPolicy(p *admissionregistrationv1.MutatingAdmissionPolicy, now time.Time) []any {
	return []any{p.Name, int64(len(p.Spec.Mutations)), paramKind(p.Spec.ParamKind), since(p.CreationTimestamp, now)}
}

func printValidatingAdmissionPolicyBinding(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding, now time.Time) []any {
	return []any{b.Name, b.Spec.PolicyName, paramRef(b.Spec.ParamRef), since(b.CreationTimestamp, now)}
}

func printMutatingAdmissionPolicyBinding(b *admissionregistrationv1.MutatingAdmissionPolicyBinding, now time.Time) []any {
	return []any{b.Name, b.Spec.PolicyName, paramRef(b.Spec.ParamRef), since(b.CreationTimestamp, now)}
}

// paramKind is "<apiVersion>/<kind>", or <unset>.
func paramKind(k *admissionregistrationv1.ParamKind) string {
	if k == nil {
		return "<unset>"
	}
	return k.APIVersion + "/" + k.Kind
}

// paramRef is "<namespace>/<name>" ("*/<name>" without a namespace: the
// printer cannot tell whether the param is cluster-scoped), the
// selector in its Go form, or <unset>.
func paramRef(r *admissionregistrationv1.ParamRef) string {
	switch {
	case r == nil:
		return "<unset>"
	case r.Name != "" && r.Namespace != "":
		return r.Namespace + "/" + r.Name
	case r.Name != "":
		return "*/" + r.Name
	case r.Selector != nil:
		return r.Selector.String()
	}
	return "<unset>"
}

var (
	csrSpecDoc   = certificatesv1beta1.CertificateSigningRequestSpec{}.SwaggerDoc()
	csrStatusDoc = certificatesv1beta1.CertificateSigningRequestStatus{}.SwaggerDoc()
)

var certificateSigningRequestColumns = []metav1.TableColumnDefinition{
	nameColumn,
	ageColumn,
	column("SignerName", "string", csrSpecDoc["signerName"]),
	column("Requestor", "string", csrSpecDoc["request"]),
	column("RequestedDuration", "string", csrSpecDoc["expirationSeconds"]),
	column("Condition", "string", csrStatusDoc["conditions"]),
}

func printCertificateSigningRequest(csr *certificatesv1.CertificateSigningRequest, now time.Time) []any {
	requested := "<none>"
	if s := csr.Spec.ExpirationSeconds; s != nil {
		requested = duration.HumanDuration(time.Duration(*s) * time.Second)
	}
	return []any{
		csr.Name,
		since(csr.CreationTimestamp, now),
		orNone(csr.Spec.SignerName),
		csr.Spec.Username,
		requested,
		csrCondition(csr),
	}
}

// csrCondition is Denied, Approved or Pending (in that order of
// precedence), then Failed and Issued when they apply.
func csrCondition(csr *certificatesv1.CertificateSigningRequest) string {
	var approved, denied, failed bool
	for _, c := range csr.Status.Conditions {
		switch c.Type {
		case certificatesv1.CertificateApproved:
			approved = true
		case certificatesv1.CertificateDenied:
			denied = true
		case certificatesv1.CertificateFailed:
			failed = true
		}
	}
	var status string
	switch {
	case denied:
		status = "Denied"
	case approved:
		status = "Approved"
	default:
		status = "Pending"
	}
	if failed {
		status += ",Failed"
	}
	if len(csr.Status.Certificate) > 0 {
		status += ",Issued"
	}
	return status
}

var clusterTrustBundleColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("SignerName", "string", certificatesv1.ClusterTrustBundleSpec{}.SwaggerDoc()["signerName"]),
}

// printClusterTrustBundle has no Age column, as kube-apiserver's.
func printClusterTrustBundle(b *certificatesv1.ClusterTrustBundle, _ time.Time) []any {
	return []any{b.Name, b.Spec.SignerName}
}

var pcrSpecDoc = certificatesv1.PodCertificateRequestSpec{}.SwaggerDoc()

var podCertificateRequestColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("PodName", "string", pcrSpecDoc["podName"]),
	column("ServiceAccountName", "string", pcrSpecDoc["serviceAccountName"]),
	column("NodeName", "string", pcrSpecDoc["nodeName"]),
	column("SignerName", "string", pcrSpecDoc["signerName"]),
	column("State", "string", "Is the request Pending, Issued, Denied, or Failed?"),
	column("UnverifiedUserAnnotations", "string", pcrSpecDoc["unverifiedUserAnnotations"]),
}

// printPodCertificateRequest shows the request's state (the last terminal
// condition, else Pending) and its user annotations as sorted key=value
// pairs; it has no Age column, as kube-apiserver's.
func printPodCertificateRequest(r *certificatesv1.PodCertificateRequest, _ time.Time) []any {
	state := "Pending"
	for _, c := range r.Status.Conditions {
		switch c.Type {
		case certificatesv1.PodCertificateRequestConditionTypeIssued, certificatesv1.PodCertificateRequestConditionTypeDenied, certificatesv1.PodCertificateRequestConditionTypeFailed:
			state = c.Type
		}
	}
	pairs := make([]string, 0, len(r.Spec.UnverifiedUserAnnotations))
	for k, v := range r.Spec.UnverifiedUserAnnotations {
		pairs = append(pairs, k+"="+v)
	}
	slices.Sort(pairs)
	return []any{r.Name, r.Spec.PodName, r.Spec.ServiceAccountName, string(r.Spec.NodeName), r.Spec.SignerName, state, orNone(strings.Join(pairs, ","))}
}
