package resourcequota

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Configuration is the plugin's configuration in
// --admission-control-config-file: apiserver.config.k8s.io/v1
// ResourceQuotaConfiguration (or resourcequota.admission.k8s.io/v1beta1
// and v1alpha1 Configuration, the same shape).
type Configuration struct {
	// LimitedResources may only be consumed in a namespace with a quota
	// that covers them.
	LimitedResources []LimitedResource `json:"limitedResources"`
}

// LimitedResource is a resource whose use is refused unless a quota
// covers it.
type LimitedResource struct {
	// APIGroup and Resource name the resource.
	APIGroup string `json:"apiGroup,omitempty"`
	Resource string `json:"resource"`
	// MatchContains: a quota resource name the object uses that contains
	// one of these strings must be limited by a quota that applies.
	MatchContains []string `json:"matchContains,omitempty"`
	// MatchScopes: an object in one of these scopes must be in a quota's
	// scope of the same name.
	MatchScopes []corev1.ScopedResourceSelectorRequirement `json:"matchScopes,omitempty"`
}

// configKinds are the versions and kinds of the configuration.
var configKinds = map[string]string{
	"apiserver.config.k8s.io/v1":              "ResourceQuotaConfiguration",
	"resourcequota.admission.k8s.io/v1beta1":  "Configuration",
	"resourcequota.admission.k8s.io/v1alpha1": "Configuration",
}

// LoadConfiguration reads the plugin's configuration (YAML or JSON),
// strictly as kube-apiserver does, and validates it. No data is the
// empty configuration.
func LoadConfiguration(data []byte) (*Configuration, error) {
	if data == nil {
		return &Configuration{}, nil
	}
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, err
	}
	var typeMeta struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(j, &typeMeta); err != nil {
		return nil, err
	}
	switch {
	case typeMeta.Kind == "":
		return nil, fmt.Errorf("Object 'Kind' is missing in '%s'", bytes.TrimSpace(j))
	case configKinds[typeMeta.APIVersion] != typeMeta.Kind:
		return nil, fmt.Errorf("no kind %q is registered for version %q", typeMeta.Kind, typeMeta.APIVersion)
	}
	var strict struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Configuration
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&strict); err != nil {
		return nil, fmt.Errorf("strict decoding error: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	cfg := strict.Configuration
	var errs []string
	for i, l := range cfg.LimitedResources {
		if l.Resource == "" {
			errs = append(errs, fmt.Sprintf("limitedResources[%d].resource: Required value", i))
		}
	}
	switch len(errs) {
	case 0:
		return &cfg, nil
	case 1:
		return nil, fmt.Errorf("%s", errs[0])
	}
	return nil, fmt.Errorf("[%s]", strings.Join(errs, ", "))
}
