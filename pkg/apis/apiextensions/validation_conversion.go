package apiextensions

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/url"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// acceptedReviewVersions are the ConversionReview versions kube-apiserver
// (and its previous minor version) can send to a webhook.
var acceptedReviewVersions = []string{"v1", "v1beta1"}

// validateConversion validates spec.conversion. Errors use the paths of
// kube-apiserver's internal form, where spec.conversion.webhook.clientConfig
// is spec.conversion.webhookClientConfig and
// spec.conversion.webhook.conversionReviewVersions is
// spec.conversion.conversionReviewVersions.
func validateConversion(conversion *apiextensionsv1.CustomResourceConversion, rules specRules, fldPath *field.Path) field.ErrorList {
	if conversion == nil {
		return nil
	}
	allErrs := validateEnum(fldPath.Child("strategy"), string(conversion.Strategy), []string{string(apiextensionsv1.NoneConverter), string(apiextensionsv1.WebhookConverter)})
	clientConfigPath := fldPath.Child("webhookClientConfig")
	reviewVersions := conversionReviewVersions(conversion)
	var cc *apiextensionsv1.WebhookClientConfig
	if conversion.Webhook != nil {
		cc = conversion.Webhook.ClientConfig
	}

	if conversion.Strategy != apiextensionsv1.WebhookConverter {
		if cc != nil {
			allErrs = append(allErrs, field.Forbidden(clientConfigPath, "should not be set when strategy is not set to Webhook"))
		}
		if len(reviewVersions) > 0 {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("conversionReviewVersions"), "should not be set when strategy is not set to Webhook"))
		}
		return allErrs
	}

	if cc == nil {
		allErrs = append(allErrs, field.Required(clientConfigPath, "required when strategy is set to Webhook"))
	} else {
		switch {
		case (cc.URL == nil) == (cc.Service == nil):
			allErrs = append(allErrs, field.Required(clientConfigPath, "exactly one of url or service is required"))
		case cc.URL != nil:
			allErrs = append(allErrs, validateWebhookURL(clientConfigPath.Child("url"), *cc.URL)...)
		default:
			port := int32(0) // what an unset port converts to, undefaulted
			if cc.Service.Port != nil {
				port = *cc.Service.Port
			}
			// kube-apiserver passes the service's name where its helper
			// expects the namespace and the other way around, so a missing
			// name is reported at service.namespace. We say what it says.
			allErrs = append(allErrs, validateWebhookService(clientConfigPath.Child("service"), cc.Service.Name, cc.Service.Namespace, cc.Service.Path, port)...)
		}
		if len(cc.CABundle) > 0 && !rules.allowInvalidCABundle {
			allErrs = append(allErrs, validateCABundle(clientConfigPath.Child("caBundle"), cc.CABundle)...)
		}
	}
	return append(allErrs, validateConversionReviewVersions(reviewVersions, rules.requireRecognizedConversionReviewVersion, fldPath.Child("conversionReviewVersions"))...)
}

func conversionReviewVersions(conversion *apiextensionsv1.CustomResourceConversion) []string {
	if conversion == nil || conversion.Webhook == nil {
		return nil
	}
	return conversion.Webhook.ConversionReviewVersions
}

func validateConversionReviewVersions(versions []string, requireAccepted bool, fldPath *field.Path) field.ErrorList {
	if len(versions) == 0 {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var allErrs field.ErrorList
	seen := map[string]bool{}
	for i, v := range versions {
		if seen[v] {
			allErrs = append(allErrs, field.Invalid(fldPath.Index(i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		for _, msg := range validation.IsDNS1035Label(v) {
			allErrs = append(allErrs, field.Invalid(fldPath.Index(i), v, msg))
		}
	}
	if requireAccepted && !hasAcceptedReviewVersion(versions) {
		allErrs = append(allErrs, field.Invalid(fldPath, versions, "must include at least one of "+strings.Join(acceptedReviewVersions, ", ")))
	}
	return allErrs
}

func hasAcceptedReviewVersion(versions []string) bool {
	for _, v := range versions {
		if contains(acceptedReviewVersions, v) {
			return true
		}
	}
	return false
}

// allowInvalidCABundle: a caBundle may stay unparseable until the CRD is
// established, and afterwards only if it already was (so that an update of
// an unrelated field does not fail on an old bundle).
func allowInvalidCABundle(old *apiextensionsv1.CustomResourceDefinition) bool {
	if !IsConditionTrue(old, apiextensionsv1.Established) {
		return true
	}
	c := old.Spec.Conversion
	if c == nil || c.Webhook == nil || c.Webhook.ClientConfig == nil || len(c.Webhook.ClientConfig.CABundle) == 0 {
		return false
	}
	return len(validateCABundle(field.NewPath("caBundle"), c.Webhook.ClientConfig.CABundle)) > 0
}

// validateWebhookURL: the webhook is called over TLS, at a plain https URL.
func validateWebhookURL(fldPath *field.Path, rawURL string) field.ErrorList {
	const form = "; desired format: https://host[/path]"
	u, err := url.Parse(rawURL)
	if err != nil {
		return field.ErrorList{field.Required(fldPath, "url must be a valid URL: "+err.Error()+form)}
	}
	var allErrs field.ErrorList
	if u.Scheme != "https" {
		allErrs = append(allErrs, field.Invalid(fldPath, u.Scheme, "'https' is the only allowed URL scheme"+form))
	}
	if u.Host == "" {
		allErrs = append(allErrs, field.Invalid(fldPath, u.Host, "host must be specified"+form))
	}
	if u.User != nil {
		allErrs = append(allErrs, field.Invalid(fldPath, u.User.String(), "user information is not permitted in the URL"))
	}
	if u.Fragment != "" {
		allErrs = append(allErrs, field.Invalid(fldPath, u.Fragment, "fragments are not permitted in the URL"))
	}
	if u.RawQuery != "" {
		allErrs = append(allErrs, field.Invalid(fldPath, u.RawQuery, "query parameters are not permitted in the URL"))
	}
	return allErrs
}

// validateWebhookService validates a service reference; see the caller
// for why its namespace and name parameters are what they are.
func validateWebhookService(fldPath *field.Path, namespace, name string, path *string, port int32) field.ErrorList {
	var allErrs field.ErrorList
	if name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	}
	if namespace == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("namespace"), ""))
	}
	if errs := validation.IsValidPortNum(int(port)); errs != nil {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("port"), port, "port is not valid: "+strings.Join(errs, ", ")))
	}
	if path == nil || *path == "" || *path == "/" {
		return allErrs
	}
	pathPath := fldPath.Child("path")
	if *path == "//" {
		return append(allErrs, field.Invalid(pathPath, *path, "segment[0] may not be empty"))
	}
	if !strings.HasPrefix(*path, "/") {
		allErrs = append(allErrs, field.Invalid(pathPath, *path, "must start with a '/'"))
	}
	// Each segment must be a DNS subdomain; one trailing slash is fine.
	segments := strings.TrimSuffix((*path)[1:], "/")
	for i, segment := range strings.Split(segments, "/") {
		if segment == "" {
			allErrs = append(allErrs, field.Invalid(pathPath, *path, fmt.Sprintf("segment[%d] may not be empty", i)))
			continue
		}
		for _, msg := range validation.IsDNS1123Subdomain(segment) {
			allErrs = append(allErrs, field.Invalid(pathPath, *path, fmt.Sprintf("segment[%d]: %v", i, msg)))
		}
	}
	return allErrs
}

// validateCABundle checks that the bundle holds at least one PEM
// certificate, as building the webhook's TLS client would, and words the
// failure the way that client does.
func validateCABundle(fldPath *field.Path, caBundle []byte) field.ErrorList {
	if x509.NewCertPool().AppendCertsFromPEM(caBundle) {
		return nil
	}
	return field.ErrorList{field.Invalid(fldPath, caBundle, "unable to load root certificates: "+caBundleError(caBundle))}
}

// caBundleError explains why no certificate could be loaded from a bundle.
func caBundleError(rest []byte) string {
	for len(rest) > 0 {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return "unable to parse bytes as PEM block"
		}
		if block.Type != "CERTIFICATE" || len(block.Headers) != 0 {
			continue
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return fmt.Sprintf("failed to parse certificate: %v", err)
		}
	}
	return "no valid certificate authority data seen"
}
