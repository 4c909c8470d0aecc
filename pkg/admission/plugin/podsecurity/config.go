package podsecurity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/validation"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/pkg/admission/plugin/podsecurity/policy"
)

// Configuration is pod-security.admission.config.k8s.io's
// PodSecurityConfiguration, the plugin's section of
// --admission-control-config-file: the policy of namespaces that set no
// labels, and who and what is exempt.
type Configuration struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Defaults   Defaults   `json:"defaults"`
	Exemptions Exemptions `json:"exemptions"`
}

// Defaults are the level and version of each mode of a namespace without
// labels; unset ones are privileged and latest.
type Defaults struct {
	Enforce        string `json:"enforce,omitempty"`
	EnforceVersion string `json:"enforce-version,omitempty"`
	Audit          string `json:"audit,omitempty"`
	AuditVersion   string `json:"audit-version,omitempty"`
	Warn           string `json:"warn,omitempty"`
	WarnVersion    string `json:"warn-version,omitempty"`
}

// Exemptions are requests the plugin does not evaluate: by the
// requester's name, the pod's runtime class or the namespace.
type Exemptions struct {
	Usernames      []string `json:"usernames,omitempty"`
	Namespaces     []string `json:"namespaces,omitempty"`
	RuntimeClasses []string `json:"runtimeClasses,omitempty"`
}

const configGroup = "pod-security.admission.config.k8s.io"

// configVersions are the versions of PodSecurityConfiguration
// kube-apiserver 1.37 reads; they have one shape.
var configVersions = []string{configGroup + "/v1", configGroup + "/v1beta1", configGroup + "/v1alpha1"}

// LoadConfiguration reads the plugin's configuration (JSON or YAML);
// nil data is the defaults: everything privileged, nothing exempt.
// Unset defaults are filled in, and the result is validated as
// kube-apiserver does.
func LoadConfiguration(data []byte) (*Configuration, error) {
	c := &Configuration{}
	if len(bytes.TrimSpace(data)) > 0 {
		js, err := yaml.YAMLToJSON(data)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(js, c); err != nil {
			return nil, err
		}
		if c.Kind == "" {
			return nil, fmt.Errorf("Object 'Kind' is missing in '%s'", strings.TrimSpace(string(data)))
		}
		if c.Kind != "PodSecurityConfiguration" || !slices.Contains(configVersions, c.APIVersion) {
			return nil, fmt.Errorf("no kind %q is registered for version %q", c.Kind, c.APIVersion)
		}
	}
	d := &c.Defaults
	for _, f := range []*string{&d.Enforce, &d.Audit, &d.Warn} {
		if *f == "" {
			*f = string(policy.Privileged)
		}
	}
	for _, f := range []*string{&d.EnforceVersion, &d.AuditVersion, &d.WarnVersion} {
		if *f == "" {
			*f = "latest"
		}
	}
	if errs := c.validate(); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return c, nil
}

// validate is kube-apiserver's validation of the configuration.
func (c *Configuration) validate() field.ErrorList {
	var errs field.ErrorList
	defaults := field.NewPath("defaults")
	level := func(name, v string) {
		if _, err := policy.ParseLevel(v); err != nil {
			errs = append(errs, field.Invalid(defaults.Child(name), v, err.Error()))
		}
	}
	version := func(name, v string) {
		if _, err := policy.ParseVersion(v); err != nil {
			errs = append(errs, field.Invalid(defaults.Child(name), v, err.Error()))
		}
	}
	level("enforce", c.Defaults.Enforce)
	version("enforce-version", c.Defaults.EnforceVersion)
	level("warn", c.Defaults.Warn)
	version("warn-version", c.Defaults.WarnVersion)
	level("audit", c.Defaults.Audit)
	version("audit-version", c.Defaults.AuditVersion)
	exemptions := field.NewPath("exemptions")
	unique := func(name string, values []string, check func(string) []string) {
		seen := map[string]bool{}
		for i, v := range values {
			p := exemptions.Child(name).Index(i)
			if msgs := check(v); len(msgs) > 0 {
				errs = append(errs, field.Invalid(p, v, strings.Join(msgs, ", ")))
				continue
			}
			if seen[v] {
				errs = append(errs, field.Duplicate(p, v))
				continue
			}
			seen[v] = true
		}
	}
	unique("namespaces", c.Exemptions.Namespaces, func(v string) []string { return validation.ValidateNamespaceName(v, false) })
	unique("runtimeClasses", c.Exemptions.RuntimeClasses, func(v string) []string { return validation.NameIsDNSSubdomain(v, false) })
	unique("usernames", c.Exemptions.Usernames, func(v string) []string {
		if v == "" {
			return []string{"username must not be empty"}
		}
		return nil
	})
	return errs
}

// defaultPolicy is the policy of the configured defaults.
func (c *Configuration) defaultPolicy() (policy.Policy, error) {
	var p policy.Policy
	var errs []error
	parse := func(name, level, version string, lv *policy.LevelVersion) {
		var err error
		if lv.Level, err = policy.ParseLevel(level); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", name, err))
		}
		if lv.Version, err = policy.ParseVersion(version); err != nil {
			errs = append(errs, fmt.Errorf("%s-version: %v", name, err))
		}
	}
	parse("enforce", c.Defaults.Enforce, c.Defaults.EnforceVersion, &p.Enforce)
	parse("audit", c.Defaults.Audit, c.Defaults.AuditVersion, &p.Audit)
	parse("warn", c.Defaults.Warn, c.Defaults.WarnVersion, &p.Warn)
	return p, utilerrors.NewAggregate(errs)
}
