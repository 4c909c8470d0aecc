package value_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/storage/value"
	"github.com/kapi-dev/kapi/pkg/storage/value/encrypt/aes"
	"github.com/kapi-dev/kapi/pkg/storage/value/encrypt/identity"
)

// operations lists the series of apiserver_storage_transformation_operations_total
// as "resource type prefix status=count".
func operations(t *testing.T, m *value.Metrics) []string {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(m)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, mf := range families {
		if mf.GetName() != "apiserver_storage_transformation_operations_total" {
			continue
		}
		for _, s := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range s.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			out = append(out, fmt.Sprintf("%s %s %s %s=%g", labels["resource"], labels["transformation_type"], labels["transformer_prefix"], labels["status"], s.GetCounter().GetValue()))
		}
	}
	sort.Strings(out)
	return out
}

// Every transformation is counted as kube-apiserver counts it: by the
// resource of the request, its direction, the prefix at each level of
// routing (the provider's, then the key's), and its outcome.
func TestTransformationsAreCounted(t *testing.T) {
	m := value.NewMetrics("apiserver-test")
	cbc := must(aes.NewCBC(key(1, 32)))
	keys := value.NewRouter(errors.New("no key"), value.Prefixed{Prefix: []byte("k1:"), Transformer: cbc}).Observed(m)
	tr := value.NewRouter(errors.New("no matching prefix found"),
		value.Prefixed{Prefix: []byte("k8s:enc:aescbc:v1:"), Transformer: keys},
		value.Prefixed{Prefix: []byte{}, Transformer: identity.Transformer}).Observed(m)
	ctx := request.WithRequestInfo(context.Background(), &request.RequestInfo{APIGroup: "", Resource: "secrets"})

	enc, err := tr.ToStorage(ctx, []byte("k8s\x00secret"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tr.FromStorage(ctx, enc, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tr.FromStorage(ctx, []byte("k8s\x00plain"), nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tr.FromStorage(ctx, []byte("k8s:enc:aescbc:v1:k9:xxxxxxxxxxxxxxxx"), nil); err == nil {
		t.Fatal("an unknown key was read")
	}

	want := []string{
		"secrets from_storage identity OK=1",
		"secrets from_storage k1: OK=1",
		"secrets from_storage k8s:enc:aescbc:v1: OK=1",
		"secrets from_storage k8s:enc:aescbc:v1: unknown-non-grpc=1",
		"secrets from_storage unknown unknown-non-grpc=1",
		"secrets to_storage k1: OK=1",
		"secrets to_storage k8s:enc:aescbc:v1: OK=1",
	}
	if got := operations(t, m); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("operations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// As kube-apiserver, the key-ID series keep the 100 most recently used
// label sets: a plugin that rotated 150 times leaves 100 keys on /metrics.
func TestKeyIDSeriesKeepTheMostRecentHundred(t *testing.T) {
	m := value.NewMetrics("apiserver-test")
	for i := range 150 {
		m.KeyIDWritten("fake", fmt.Sprintf("key-%d", i))
		m.KeyIDWritten("fake", "key-0") // keeps key-0 recent
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(m)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, mf := range families {
		counts[mf.GetName()] = len(mf.GetMetric())
	}
	for _, name := range []string{"apiserver_envelope_encryption_key_id_hash_total", "apiserver_envelope_encryption_key_id_hash_last_timestamp_seconds"} {
		if counts[name] != 100 {
			t.Errorf("%s has %d series, want 100", name, counts[name])
		}
	}
}
