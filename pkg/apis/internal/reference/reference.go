// Package reference reads the facts recorded from a real kube-apiserver
// (objects it defaulted, errors it returned) for the tests of pkg/apis.
package reference

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Dir is the directory of the recorded facts, found from this file's
// location so that tests work from any package directory.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	// file is <repo>/pkg/apis/internal/reference/reference.go, and the
	// facts live next to the repository, in ../shared/reference.
	repo := filepath.Join(filepath.Dir(file), "..", "..", "..", "..")
	return filepath.Join(repo, "..", "shared", "reference", "kube-apiserver-v1.37.1")
}

// ReadFile returns the content of a file below Dir.
func ReadFile(name string) ([]byte, error) {
	return os.ReadFile(filepath.Join(Dir(), name))
}

// Defaulting returns the object sent to kube-apiserver and the object it
// returned for the defaulting case name (e.g. "pod", "service-nodeport").
func Defaulting(name string) (input, output []byte, err error) {
	if input, err = ReadFile(filepath.Join("defaulting", name+".input.json")); err != nil {
		return nil, nil, err
	}
	if output, err = ReadFile(filepath.Join("defaulting", name+".output.json")); err != nil {
		return nil, nil, err
	}
	return input, output, nil
}

// ErrorStatus returns the Status body of a recorded error response. The
// files hold the request line, the response headers and the body.
func ErrorStatus(name string) (*metav1.Status, error) {
	data, err := ReadFile(filepath.Join("errors", name+".txt"))
	if err != nil {
		return nil, err
	}
	start := bytes.IndexByte(data, '{')
	if start < 0 {
		return nil, fmt.Errorf("%s: no JSON body", name)
	}
	status := &metav1.Status{}
	if err := json.Unmarshal(data[start:], status); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return status, nil
}

// RemoveFields deletes the fields at the given dotted paths (e.g.
// "metadata.uid", "spec.containers.0.resources") from a decoded JSON
// object. Missing fields are ignored, so one list can serve several files.
func RemoveFields(obj map[string]any, paths ...string) {
	for _, path := range paths {
		removeField(obj, strings.Split(path, "."))
	}
}

func removeField(node any, path []string) {
	switch n := node.(type) {
	case map[string]any:
		if len(path) == 1 {
			delete(n, path[0])
			return
		}
		removeField(n[path[0]], path[1:])
	case []any:
		var i int
		if _, err := fmt.Sscan(path[0], &i); err != nil || i < 0 || i >= len(n) {
			return
		}
		if len(path) == 1 {
			return // list elements are removed through their fields only
		}
		removeField(n[i], path[1:])
	}
}

// ToJSONMap round-trips v through JSON, giving the generic form that
// kube-apiserver's output was decoded into, for comparison.
func ToJSONMap(v any) (map[string]any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	err = json.Unmarshal(data, &m)
	return m, err
}
