package webhook

import (
	"bytes"
	"encoding/json"
	"fmt"

	"sigs.k8s.io/yaml"
)

// AdmissionConfig is the plugins' configuration in
// --admission-control-config-file: a WebhookAdmissionConfiguration
// (apiserver.config.k8s.io/v1 or v1alpha1), or the older form without
// apiVersion and kind.
type AdmissionConfig struct {
	// KubeConfigFile holds the credentials to call webhooks with.
	KubeConfigFile string `json:"kubeConfigFile"`
}

// ReadAdmissionConfig decodes a plugin's configuration; nil is the empty
// configuration.
func ReadAdmissionConfig(data []byte) (AdmissionConfig, error) {
	var cfg AdmissionConfig
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil
	}
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return cfg, err
	}
	var typed struct {
		APIVersion     string `json:"apiVersion"`
		Kind           string `json:"kind"`
		KubeConfigFile string `json:"kubeConfigFile"`
		// StaticManifestsDir is kube-apiserver's, behind a feature gate
		// kapi does not have.
		StaticManifestsDir string `json:"staticManifestsDir"`
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&typed); err != nil {
		// The form before WebhookAdmissionConfiguration nests it.
		var legacy struct {
			Webhook AdmissionConfig `json:"webhook"`
		}
		if lerr := json.Unmarshal(j, &legacy); lerr == nil && legacy.Webhook.KubeConfigFile != "" {
			return legacy.Webhook, nil
		}
		return cfg, err
	}
	if typed.Kind != "" && typed.Kind != "WebhookAdmissionConfiguration" {
		return cfg, fmt.Errorf("unexpected kind %q, want WebhookAdmissionConfiguration", typed.Kind)
	}
	if typed.StaticManifestsDir != "" {
		return cfg, fmt.Errorf("staticManifestsDir %q configured but the ManifestBasedAdmissionControlConfig feature gate is not enabled", typed.StaticManifestsDir)
	}
	cfg.KubeConfigFile = typed.KubeConfigFile
	return cfg, nil
}
