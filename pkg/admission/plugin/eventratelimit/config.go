package eventratelimit

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// LimitType says what one bucket of a limit is shared by.
type LimitType string

const (
	// ServerLimitType: one bucket for every event of the server.
	ServerLimitType LimitType = "Server"
	// NamespaceLimitType: one bucket per namespace.
	NamespaceLimitType LimitType = "Namespace"
	// UserLimitType: one bucket per user.
	UserLimitType LimitType = "User"
	// SourceAndObjectLimitType: one bucket per event source and involved
	// object.
	SourceAndObjectLimitType LimitType = "SourceAndObject"
)

// Config is the plugin's configuration, kube-apiserver's
// eventratelimit.admission.k8s.io/v1alpha1 Configuration.
type Config struct {
	APIVersion string  `json:"apiVersion"`
	Kind       string  `json:"kind"`
	Limits     []Limit `json:"limits"`
}

// Limit is one limit: a token bucket of Burst tokens refilled at QPS
// tokens a second, per key of Type, the CacheSize most recent keys kept
// (a key forgotten starts again with a full bucket).
type Limit struct {
	Type      LimitType `json:"type"`
	QPS       int32     `json:"qps"`
	Burst     int32     `json:"burst"`
	CacheSize int32     `json:"cacheSize,omitempty"`
}

const (
	configAPIVersion = "eventratelimit.admission.k8s.io/v1alpha1"
	configKind       = "Configuration"
)

// LoadConfig reads a configuration, YAML or JSON, and checks it as
// kube-apiserver does: at least one limit, known types, positive qps and
// burst, no negative cache size.
func LoadConfig(data []byte) (*Config, error) {
	cfg := &Config{}
	if data != nil {
		if err := yaml.Unmarshal(data, cfg); err != nil {
			return nil, err
		}
		if cfg.APIVersion != configAPIVersion || cfg.Kind != configKind {
			return nil, fmt.Errorf("no kind %q is registered for version %q: want %s %s", cfg.Kind, cfg.APIVersion, configAPIVersion, configKind)
		}
	}
	return cfg, validate(cfg).ToAggregate()
}

var limitTypes = []string{string(ServerLimitType), string(NamespaceLimitType), string(UserLimitType), string(SourceAndObjectLimitType)}

func validate(cfg *Config) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("limits")
	if len(cfg.Limits) == 0 {
		errs = append(errs, field.Invalid(path, cfg.Limits, "must not be empty"))
	}
	for i, l := range cfg.Limits {
		p := path.Index(i)
		if !slices.Contains(limitTypes, string(l.Type)) {
			errs = append(errs, field.NotSupported(p.Child("type"), l.Type, limitTypes))
		}
		if l.Burst <= 0 {
			errs = append(errs, field.Invalid(p.Child("burst"), l.Burst, "must be positive"))
		}
		if l.QPS <= 0 {
			errs = append(errs, field.Invalid(p.Child("qps"), l.QPS, "must be positive"))
		}
		if l.Type != ServerLimitType && l.CacheSize < 0 {
			errs = append(errs, field.Invalid(p.Child("cacheSize"), l.CacheSize, "must not be negative"))
		}
	}
	return errs
}
