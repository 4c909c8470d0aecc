package admission

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

// PluginConfigs hold the configuration of each plugin that
// --admission-control-config-file configures, by plugin name.
type PluginConfigs map[string][]byte

// For is the configuration of a plugin: nil if the file says nothing of
// it, or if there is no file.
func (c PluginConfigs) For(plugin string) []byte { return c[plugin] }

// admissionConfiguration is apiserver.config.k8s.io's AdmissionConfiguration
// (v1, and v1alpha1 which has the same shape).
type admissionConfiguration struct {
	APIVersion string                `json:"apiVersion"`
	Kind       string                `json:"kind"`
	Plugins    []pluginConfiguration `json:"plugins"`
}

type pluginConfiguration struct {
	Name string `json:"name"`
	// Path is a file holding the configuration, relative to the
	// AdmissionConfiguration's own file.
	Path string `json:"path,omitempty"`
	// Configuration is the configuration itself.
	Configuration json.RawMessage `json:"configuration,omitempty"`
}

const configKind = "AdmissionConfiguration"

// configVersions are the versions of AdmissionConfiguration kube-apiserver
// reads.
var configVersions = map[string]bool{
	"apiserver.config.k8s.io/v1":       true,
	"apiserver.config.k8s.io/v1alpha1": true,
	"apiserver.k8s.io/v1alpha1":        true,
}

// legacyConfigPlugins are the plugins that read a file of their own
// configuration given directly as --admission-control-config-file, as
// before AdmissionConfiguration existed; the file is recognised by the
// key each of them starts with.
var legacyConfigPlugins = map[string]string{
	"imagePolicy":                 "ImagePolicyWebhook",
	"podNodeSelectorPluginConfig": "PodNodeSelector",
}

// ReadConfigFile reads --admission-control-config-file, as
// kube-apiserver reads it: an AdmissionConfiguration, strictly decoded,
// whose plugins' configurations are inline or in files beside it; or,
// for the two plugins that predate it, that plugin's own configuration.
// An empty path configures nothing.
func ReadConfigFile(path string) (PluginConfigs, error) {
	if path == "" {
		return PluginConfigs{}, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("unable to read admission control configuration from %q [%v]", path, err)
	}
	jsonData, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("failed to read plugin config: %v", err)
	}
	var typeMeta struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(jsonData, &typeMeta); err != nil {
		return nil, fmt.Errorf("failed to read plugin config: %v", err)
	}
	if typeMeta.Kind != configKind || !configVersions[typeMeta.APIVersion] {
		return readLegacyConfig(path, jsonData, typeMeta.APIVersion, typeMeta.Kind)
	}
	var cfg admissionConfiguration
	dec := json.NewDecoder(bytes.NewReader(jsonData))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return nil, fmt.Errorf("failed to read plugin config: %v", err)
	}
	configs := PluginConfigs{}
	base := filepath.Dir(path)
	for _, p := range cfg.Plugins {
		if _, ok := configs[p.Name]; ok {
			continue // the first entry of a plugin wins, as in kube-apiserver
		}
		switch {
		case len(p.Configuration) > 0 && string(p.Configuration) != "null":
			configs[p.Name] = []byte(p.Configuration)
		case p.Path != "":
			file := p.Path
			if !filepath.IsAbs(file) {
				file = filepath.Join(base, file)
			}
			b, err := os.ReadFile(file)
			if err != nil {
				return nil, fmt.Errorf("failed to read plugin config: couldn't open admission plugin configuration %s: %v", file, err)
			}
			configs[p.Name] = b
		}
	}
	return configs, nil
}

// readLegacyConfig takes a file that is not an AdmissionConfiguration as
// the configuration of the legacy plugin it is for, and refuses any other.
func readLegacyConfig(path string, jsonData []byte, apiVersion, kind string) (PluginConfigs, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(jsonData, &keys); err == nil {
		configs := PluginConfigs{}
		for key, plugin := range legacyConfigPlugins {
			if _, ok := keys[key]; ok {
				b, err := os.ReadFile(path)
				if err != nil {
					return nil, err
				}
				configs[plugin] = b
			}
		}
		if len(configs) > 0 {
			return configs, nil
		}
	}
	if kind == "" {
		return nil, fmt.Errorf("failed to read plugin config: Object 'Kind' is missing in '%s'", bytes.TrimSpace(jsonData))
	}
	return nil, fmt.Errorf("failed to read plugin config: no kind %q is registered for version %q", kind, apiVersion)
}
