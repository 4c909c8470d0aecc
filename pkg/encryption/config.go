// Package encryption reads --encryption-provider-config (an
// apiserver.config.k8s.io/v1 EncryptionConfiguration), validates it with
// kube-apiserver's messages, and builds the value.Transformer of every
// resource it names. With --encryption-provider-config-automatic-reload a
// Controller polls the file and swaps in a new valid configuration; the
// storage holds a Transformers, which always answers with the current one.
//
// How a resource finds its providers, as in kube-apiserver: an exact
// group-resource ("secrets", "crontabs.stable.example.com") first, then
// the group's wildcard ("*.apps", "*." for the core group), then "*.*".
// A resource no rule names is stored plain (identity), but an encrypted
// value read for it is an error, not garbage.
package encryption

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// GroupVersion and Kind of the configuration file.
const (
	GroupVersion = "apiserver.config.k8s.io/v1"
	Kind         = "EncryptionConfiguration"
)

// EncryptionConfiguration is apiserver.config.k8s.io/v1's, with the same
// JSON.
type EncryptionConfiguration struct {
	metav1.TypeMeta `json:",inline"`
	// Resources is a list of resources and their providers, in order.
	Resources []ResourceConfiguration `json:"resources"`
}

// ResourceConfiguration names resources and the providers that store them;
// the first provider writes, every provider reads.
type ResourceConfiguration struct {
	Resources []string                `json:"resources"`
	Providers []ProviderConfiguration `json:"providers"`
}

// ProviderConfiguration holds exactly one provider.
type ProviderConfiguration struct {
	AESGCM    *AESConfiguration       `json:"aesgcm,omitempty"`
	AESCBC    *AESConfiguration       `json:"aescbc,omitempty"`
	Secretbox *SecretboxConfiguration `json:"secretbox,omitempty"`
	Identity  *IdentityConfiguration  `json:"identity,omitempty"`
	KMS       *KMSConfiguration       `json:"kms,omitempty"`
}

// AESConfiguration is the keys of aesgcm or aescbc; the first encrypts.
type AESConfiguration struct {
	Keys []Key `json:"keys"`
}

// SecretboxConfiguration is the keys of secretbox; the first encrypts.
type SecretboxConfiguration struct {
	Keys []Key `json:"keys"`
}

// Key is a named key; Secret is its base64 encoding.
type Key struct {
	Name   string `json:"name"`
	Secret string `json:"secret"`
}

// IdentityConfiguration stores values as they are.
type IdentityConfiguration struct{}

// KMSConfiguration is an envelope-encryption plugin reached over gRPC.
type KMSConfiguration struct {
	// APIVersion is "v1" (refused: kube-apiserver 1.37 has KMS v1 off) or
	// "v2". Empty means v1, as kube-apiserver defaults it.
	APIVersion string `json:"apiVersion"`
	Name       string `json:"name"`
	// CacheSize is for v1 only.
	CacheSize *int32 `json:"cachesize,omitempty"`
	// Endpoint is unix:///path/to/socket.
	Endpoint string `json:"endpoint"`
	// Timeout of each call to the plugin; 3s by default.
	Timeout *metav1.Duration `json:"timeout,omitempty"`
}

// DefaultKMSTimeout is kube-apiserver's default KMS call timeout.
const DefaultKMSTimeout = 3 * time.Second

func setDefaults(c *EncryptionConfiguration) {
	for i := range c.Resources {
		for j := range c.Resources[i].Providers {
			k := c.Resources[i].Providers[j].KMS
			if k == nil {
				continue
			}
			if k.Timeout == nil {
				k.Timeout = &metav1.Duration{Duration: DefaultKMSTimeout}
			}
			if k.APIVersion == "" {
				k.APIVersion = "v1"
			}
			if k.CacheSize == nil && k.APIVersion == "v1" {
				n := int32(1000)
				k.CacheSize = &n
			}
		}
	}
}

// readFile reads the file at path and returns its content and hash.
func readFile(path string) ([]byte, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("error reading encryption provider configuration file %q: %w", path, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, "", fmt.Errorf("encryption provider configuration file %q is empty", path)
	}
	sum := sha256.Sum256(data)
	return data, "k8s:enc:unstable:1:" + hex.EncodeToString(sum[:]), nil
}

// Parse decodes and validates a configuration file's content (YAML or
// JSON). reload says whether the configuration may be reloaded, which
// makes KMS names unique across versions, as kube-apiserver checks.
func Parse(path string, data []byte, reload bool) (*EncryptionConfiguration, error) {
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("error decoding encryption provider configuration file %q: %w", path, err)
	}
	var tm metav1.TypeMeta
	if err := json.Unmarshal(js, &tm); err != nil {
		return nil, fmt.Errorf("error decoding encryption provider configuration file %q: %w", path, err)
	}
	if tm.APIVersion != GroupVersion || tm.Kind != Kind {
		return nil, fmt.Errorf("error decoding encryption provider configuration file %q: %w", path, typeError(tm))
	}
	var c EncryptionConfiguration
	strict, err := sigsjson.UnmarshalStrict(js, &c, sigsjson.DisallowUnknownFields)
	if err != nil {
		return nil, fmt.Errorf("error decoding encryption provider configuration file %q: %w", path, err)
	}
	if len(strict) > 0 {
		return nil, fmt.Errorf("error decoding encryption provider configuration file %q: %w", path, runtime.NewStrictDecodingError(strict))
	}
	setDefaults(&c)
	if errs := Validate(&c, reload); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return &c, nil
}

// typeError is the decoder's answer to a file of another kind.
func typeError(tm metav1.TypeMeta) error {
	return fmt.Errorf("no kind %q is registered for version %q in scheme \"pkg/runtime/scheme.go:111\"", tm.Kind, tm.APIVersion)
}
