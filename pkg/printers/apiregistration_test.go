package printers

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// TestAPIServiceTable renders two APIServices as kube-apiserver 1.37.1
// rendered them (testdata/apiservices-table.json, answered at 09:32:23 by
// the oracle, with the list it answered just after in
// testdata/apiservices-list.json): a local one, Available, and a remote
// one whose Service is missing, "False (ServiceNotFound)".
func TestAPIServiceTable(t *testing.T) {
	want, err := os.ReadFile("testdata/apiservices-table.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/apiservices-list.json")
	if err != nil {
		t.Fatal(err)
	}
	var list apiregistrationv1.APIServiceList
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	c := New(WithClock(fixedClock(t, "2026-11-26T09:32:23Z")))
	table, err := c.ConvertToTable(context.Background(), &list, &metav1.TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	compareJSON(t, want, encodeAsServed(t, table, metav1.IncludeMetadata))
}
