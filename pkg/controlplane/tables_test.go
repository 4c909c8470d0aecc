package controlplane

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Every served resource renders tables with kube-apiserver's columns:
// its storage's table convertor is the printer of its kind
// (testdata/table-columns.json, recorded from the oracle).
func TestTableColumnsMatchKubeAPIServer(t *testing.T) {
	data, err := os.ReadFile("testdata/table-columns.json")
	if err != nil {
		t.Fatal(err)
	}
	var recorded struct {
		ColumnDefinitions map[string][]metav1.TableColumnDefinition
	}
	if err := json.Unmarshal(data, &recorded); err != nil {
		t.Fatal(err)
	}
	cfg, _ := testConfig(t, nil)
	storage := declared(t, cfg)
	listed := 0
	for gv, paths := range storage {
		for path, st := range paths {
			lister, ok := st.(rest.Lister)
			if !ok {
				continue
			}
			listed++
			url := "apis/" + gv.String() + "/" + path
			if gv.Group == "" {
				url = "api/" + gv.Version + "/" + path
			}
			want, ok := recorded.ColumnDefinitions[url]
			if !ok {
				t.Errorf("%s: no recorded columns in testdata/table-columns.json", url)
				continue
			}
			ctx := request.WithNamespace(context.Background(), "")
			table, err := lister.ConvertToTable(ctx, lister.NewList(), nil)
			if err != nil {
				t.Errorf("%s: %v", url, err)
				continue
			}
			if diff := cmp.Diff(want, table.ColumnDefinitions); diff != "" {
				t.Errorf("%s: columns differ from kube-apiserver's (-want +got):\n%s", url, diff)
			}
		}
	}
	if listed == 0 {
		t.Fatal("no listable resource is declared")
	}
}
