package apiextensions

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/internal/webhookclient"
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
			allErrs = append(allErrs, webhookclient.ValidateURL(clientConfigPath.Child("url"), *cc.URL)...)
		default:
			port := int32(0) // what an unset port converts to, undefaulted
			if cc.Service.Port != nil {
				port = *cc.Service.Port
			}
			// kube-apiserver passes the service's name where its helper
			// expects the namespace and the other way around, so a missing
			// name is reported at service.namespace. We say what it says.
			allErrs = append(allErrs, webhookclient.ValidateService(clientConfigPath.Child("service"), cc.Service.Name, cc.Service.Namespace, cc.Service.Path, port)...)
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
