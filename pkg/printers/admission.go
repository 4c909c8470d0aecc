package printers

import (
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
