package corpus

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// quotaConfigFile is the --admission-control-config-file of the cases
// of testdata-quota-config: ResourceQuota's limitedResources.
var quotaConfigFile = filepath.Join("..", "..", "pkg", "admission", "plugin", "resourcequota", "testdata", "admission-config.yaml")

// The cases of testdata-quota-config answer on a kapi whose ResourceQuota
// plugin has limitedResources, with no other plugin but
// NamespaceLifecycle, as they did on a kube-apiserver 1.37.1 started
// with the same flags. Record from a private oracle:
//
//	ORACLE_FLAGS="--disable-admission-plugins=<every default but NamespaceLifecycle and ResourceQuota> \
//	  --admission-control-config-file=$PWD/pkg/admission/plugin/resourcequota/testdata/admission-config.yaml"
func TestQuotaConfigCorpus(t *testing.T) {
	admission := defaultsBut("NamespaceLifecycle", "ResourceQuota")
	admission.ConfigFile = quotaConfigFile
	root{dir: "testdata-quota-config", admission: admission, check: limitsDeployments}.run(t)
}

// limitsDeployments checks that the oracle refuses a deployment where no
// quota covers it.
func limitsDeployments(s Server) error {
	r, err := s.do(context.Background(), Step{Method: "POST", Path: "/apis/apps/v1/namespaces/default/deployments", Query: "dryRun=All", Body: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "probe"},
		"spec": map[string]any{
			"selector": map[string]any{"matchLabels": map[string]any{"a": "b"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"a": "b"}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "i"}}}},
		},
	}}, "default")
	if err != nil {
		return err
	}
	if r.code != 403 {
		return fmt.Errorf("it answers %d to a deployment no quota covers", r.code)
	}
	return nil
}
