package corpus

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/pkg/testserver"
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
	abs, err := filepath.Abs(quotaConfigFile)
	if err != nil {
		t.Fatal(err)
	}
	admission := corpusAdmission()
	admission.Disable = slicesWithout(admission.Disable, "ResourceQuota")
	admission.ConfigFile = abs
	runCorpus(t, "testdata-quota-config", testserver.Options{Admission: admission}, checkLimitedDeployments)
}

func slicesWithout(names []string, drop string) []string {
	var out []string
	for _, n := range names {
		if n != drop {
			out = append(out, n)
		}
	}
	return out
}

// checkLimitedDeployments fails the test unless the oracle refuses a
// deployment where no quota covers it: recording from a server without
// the configuration would record the wrong answers.
func checkLimitedDeployments(t *testing.T, s Server) {
	t.Helper()
	body := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"probe"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`
	resp, err := s.Client.Post(s.URL+"/apis/apps/v1/namespaces/default/deployments?dryRun=All", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("the oracle answers %d to a deployment no quota covers: record from a kube-apiserver started with --admission-control-config-file=%s", resp.StatusCode, quotaConfigFile)
	}
}
