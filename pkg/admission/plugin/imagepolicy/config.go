package imagepolicy

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"sigs.k8s.io/yaml"
)

// Config is the plugin's configuration, the imagePolicy section of its
// file, normalized: durations scaled, defaults applied, disabled ones 0.
type Config struct {
	// KubeConfigFile says where the backend is (the current context's
	// cluster) and what credentials to call it with (its user).
	KubeConfigFile string
	// AllowTTL and DenyTTL are how long an answer is reused for the same
	// review; RetryBackoff is the first delay between attempts.
	AllowTTL, DenyTTL, RetryBackoff time.Duration
	// DefaultAllow admits pods when the backend cannot be asked.
	DefaultAllow bool
}

// The bounds and defaults of the durations, kube-apiserver's. A value of
// 0 in the file means the default; -1 disables (0 after normalization).
const (
	defaultRetryBackoff = 500 * time.Millisecond
	maxRetryBackoff     = 5 * time.Minute
	defaultAllowTTL     = 5 * time.Minute
	defaultDenyTTL      = 30 * time.Second
	minTTL              = time.Second
	maxTTL              = 30 * time.Minute
)

// fileConfig is the file's imagePolicy section. The durations are bare
// numbers, seconds for the TTLs and milliseconds for the backoff.
type fileConfig struct {
	KubeConfigFile string `json:"kubeConfigFile"`
	AllowTTL       int64  `json:"allowTTL"`
	DenyTTL        int64  `json:"denyTTL"`
	RetryBackoff   int64  `json:"retryBackoff"`
	DefaultAllow   bool   `json:"defaultAllow"`
}

// ParseConfig reads the plugin's configuration, JSON or YAML, in either
// form kube-apiserver reads: versioned (an apiVersion and a kind, whatever
// they are, beside imagePolicy) or legacy (imagePolicy alone). Fields it
// does not know are ignored, as kube-apiserver ignores them. A plugin
// enabled without configuration is refused.
func ParseConfig(data []byte) (Config, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return Config{}, errors.New("no config specified")
	}
	var file struct {
		ImagePolicy fileConfig `json:"imagePolicy"`
	}
	if err := yaml.Unmarshal(data, &file); err != nil {
		return Config{}, err
	}
	f := file.ImagePolicy
	cfg := Config{KubeConfigFile: f.KubeConfigFile, DefaultAllow: f.DefaultAllow}
	var err error
	if cfg.RetryBackoff, err = normalize(f.RetryBackoff, time.Millisecond, 1, maxRetryBackoff, defaultRetryBackoff); err != nil {
		return Config{}, err
	}
	if cfg.AllowTTL, err = normalize(f.AllowTTL, time.Second, minTTL, maxTTL, defaultAllowTTL); err != nil {
		return Config{}, err
	}
	if cfg.DenyTTL, err = normalize(f.DenyTTL, time.Second, minTTL, maxTTL, defaultDenyTTL); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// normalize scales a duration of the file. As in kube-apiserver the
// lower bound is exclusive: a TTL of 1 (second) is refused.
func normalize(v int64, unit, min, max, def time.Duration) (time.Duration, error) {
	switch v {
	case -1:
		return 0, nil
	case 0:
		return def, nil
	}
	d := time.Duration(v) * unit
	if d <= min || d > max {
		return d, fmt.Errorf("valid value is between %v and %v, got %v", min, max, d)
	}
	return d, nil
}
