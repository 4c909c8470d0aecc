package certificates

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

// maxTrustBundleSize bounds a ClusterTrustBundle's PEM bundle.
const maxTrustBundleSize = 1 << 20

// ValidateClusterTrustBundle validates a ClusterTrustBundle on create: a
// bundle of a signer is named after it ("example.com:signer:..."), and its
// PEM bundle holds at least one CA certificate, each once.
func ValidateClusterTrustBundle(b *certificatesv1.ClusterTrustBundle) field.ErrorList {
	return validateClusterTrustBundle(b, true)
}

// ValidateClusterTrustBundleUpdate validates an update: the signer is
// fixed, and a bundle left as it was is not parsed again.
func ValidateClusterTrustBundleUpdate(b, old *certificatesv1.ClusterTrustBundle) field.ErrorList {
	allErrs := validateClusterTrustBundle(b, b.Spec.TrustBundle != old.Spec.TrustBundle)
	allErrs = append(allErrs, core.ValidateObjectMetaUpdate(&b.ObjectMeta, &old.ObjectMeta, metadataPath)...)
	return append(allErrs, apivalidation.ValidateImmutableField(b.Spec.SignerName, old.Spec.SignerName, specPath.Child("signerName"))...)
}

func validateClusterTrustBundle(b *certificatesv1.ClusterTrustBundle, parseBundle bool) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&b.ObjectMeta, false, clusterTrustBundleName(b.Spec.SignerName), metadataPath)
	if b.Spec.SignerName != "" {
		allErrs = append(allErrs, ValidateSignerName(specPath.Child("signerName"), b.Spec.SignerName)...)
	}
	if parseBundle {
		allErrs = append(allErrs, validateTrustBundle(specPath.Child("trustBundle"), b.Spec.TrustBundle)...)
	}
	return allErrs
}

// clusterTrustBundleName is the name rule of a bundle of signer: the
// signer name with its slash as a colon, a colon, then a DNS subdomain;
// a bundle of no signer has no colon in its name.
func clusterTrustBundleName(signer string) apivalidation.ValidateNameFunc {
	return func(name string, prefix bool) []string {
		if signer == "" {
			if strings.Contains(name, ":") {
				return []string{`ClusterTrustBundle without signer name must not have ":" in its name`}
			}
			return apivalidation.NameIsDNSSubdomain(name, prefix)
		}
		required := strings.ReplaceAll(signer, "/", ":") + ":"
		if !strings.HasPrefix(name, required) {
			return []string{fmt.Sprintf("ClusterTrustBundle for signerName %s must be named with prefix %s", signer, required)}
		}
		return apivalidation.NameIsDNSSubdomain(strings.TrimPrefix(name, required), prefix)
	}
}

// validateTrustBundle accepts CERTIFICATE blocks without headers, each a
// CA certificate with valid basic constraints, at least one, none twice.
// Text between blocks is ignored.
func validateTrustBundle(path *field.Path, bundle string) field.ErrorList {
	if len(bundle) > maxTrustBundleSize {
		return field.ErrorList{field.TooLong(path, "", maxTrustBundleSize)}
	}
	const omitted = "<value omitted>"
	var allErrs field.ErrorList
	seen := map[string][]int{}
	var order []string
	rest := []byte(bundle)
	for i := 0; ; i++ {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			allErrs = append(allErrs, field.Invalid(path, omitted, fmt.Sprintf("entry %d has bad block type: %v", i, block.Type)))
			continue
		}
		if len(block.Headers) != 0 {
			allErrs = append(allErrs, field.Invalid(path, omitted, fmt.Sprintf("entry %d has PEM block headers", i)))
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			allErrs = append(allErrs, field.Invalid(path, omitted, fmt.Sprintf("entry %d does not parse as X.509", i)))
			continue
		}
		if !cert.IsCA {
			allErrs = append(allErrs, field.Invalid(path, omitted, fmt.Sprintf("entry %d does not have the CA bit set", i)))
			continue
		}
		if !cert.BasicConstraintsValid {
			allErrs = append(allErrs, field.Invalid(path, omitted, fmt.Sprintf("entry %d has invalid basic constraints", i)))
			continue
		}
		key := string(block.Bytes)
		if _, ok := seen[key]; !ok {
			order = append(order, key)
		}
		seen[key] = append(seen[key], i)
	}
	// A malformed block makes the duplicate and emptiness checks moot.
	if len(allErrs) != 0 {
		return allErrs
	}
	if len(seen) == 0 {
		allErrs = append(allErrs, field.Invalid(path, omitted, "at least one trust anchor must be provided"))
	}
	for _, key := range order {
		if indices := seen[key]; len(indices) > 1 {
			allErrs = append(allErrs, field.Invalid(path, omitted, fmt.Sprintf("duplicate trust anchor (indices %v)", indices)))
		}
	}
	return allErrs
}
