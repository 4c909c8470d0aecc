// Package webhookclient validates how an object says to call a webhook,
// as kube-apiserver's k8s.io/apiserver/pkg/util/webhook does for the
// CRD conversion webhooks and the admission webhooks alike: a URL, or a
// reference to a Service.
package webhookclient

import (
	"fmt"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateURL: the webhook is called over TLS, at a plain https URL.
func ValidateURL(fldPath *field.Path, rawURL string) field.ErrorList {
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

// ValidateService validates a reference to a Service: its name and
// namespace are required, its port valid, and its path made of DNS
// subdomains. Both of kube-apiserver's callers pass the service's name
// as namespace and its namespace as name, so that a missing name is
// reported at service.namespace; callers here do the same, to say what
// kube-apiserver says.
func ValidateService(fldPath *field.Path, namespace, name string, path *string, port int32) field.ErrorList {
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
