package controlplane

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// RuntimeConfig is --runtime-config: which group versions are served.
// Keys are "api/all" or "<group>/<version>" ("v1" or "api/v1" for the core
// group); values are booleans, an empty value meaning true. A key naming a
// group version wins over api/all, and everything is on by default, as in
// kube-apiserver for GA APIs.
type RuntimeConfig map[string]string

// ParseRuntimeConfig checks the flag's keys and values.
func ParseRuntimeConfig(raw map[string]string) (RuntimeConfig, error) {
	rc := RuntimeConfig{}
	for k, v := range raw {
		key := strings.TrimPrefix(k, "/")
		switch {
		case key == "api/all" || key == "api/ga":
			key = "api/all"
		case key == "api/beta" || key == "api/alpha":
			// kapi serves no beta or alpha APIs: nothing to switch.
		case key == "v1" || key == "api/v1" || key == "api/legacy":
			key = "v1"
		case strings.Count(key, "/") == 1:
		default:
			return nil, fmt.Errorf("invalid key %q: use api/all or <group>/<version>", k)
		}
		if v == "" {
			v = "true"
		}
		if _, err := strconv.ParseBool(v); err != nil {
			return nil, fmt.Errorf("invalid value %q for %q: must be true or false", v, k)
		}
		rc[key] = v
	}
	return rc, nil
}

// Enabled reports whether gv is served.
func (rc RuntimeConfig) Enabled(gv schema.GroupVersion) bool {
	if v, ok := rc[gv.String()]; ok {
		b, _ := strconv.ParseBool(v)
		return b
	}
	if v, ok := rc["api/all"]; ok {
		b, _ := strconv.ParseBool(v)
		return b
	}
	return true
}
