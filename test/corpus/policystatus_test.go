package corpus

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The cases of testdata-policystatus answer on a kapi with
// kube-apiserver's default admission plugins and the type checking of
// ValidatingAdmissionPolicies as they did on a kube-apiserver 1.37.1
// with its defaults beside a kube-controller-manager 1.37.1, whose
// validatingadmissionpolicy-status controller writes the policies'
// status (kube-apiserver alone never does). Recording needs such a pair
// (ORACLE_CONTROLLERS=1, README.md): the check is that the server
// writes a policy's status.
func TestPolicyStatusCorpus(t *testing.T) {
	root{dir: "testdata-policystatus", check: policyStatusWritten}.run(t)
}

// policyStatusWritten returns an error unless the server type checks a
// policy (with no binding: it admits everything) within ten seconds.
func policyStatusWritten(s Server) error {
	ctx := context.Background()
	const path = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
	const name = "corpus-oracle-check-policystatus"
	_, err := s.do(ctx, Step{Method: "POST", Path: path, Body: map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"matchConstraints": map[string]any{"resourceRules": []any{map[string]any{
				"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE"}, "resources": []any{"configmaps"}}}},
			"validations": []any{map[string]any{"expression": "true"}},
		},
	}}, "default")
	if err != nil {
		return err
	}
	defer func() { _, _ = s.do(ctx, Step{Method: "DELETE", Path: path + "/" + name}, "default") }()
	for deadline := time.Now().Add(untilTimeout); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		r, err := s.do(ctx, Step{Method: "GET", Path: path + "/" + name}, "default")
		if err != nil {
			return err
		}
		if lookup(r.body, "status.observedGeneration") != nil {
			return nil
		}
	}
	return errors.New("no status of a validating admission policy is written: run kube-controller-manager beside kube-apiserver (ORACLE_CONTROLLERS=1)")
}
