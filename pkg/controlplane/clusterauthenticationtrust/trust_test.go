package clusterauthenticationtrust

import (
	"context"
	"encoding/pem"
	"os"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/yaml"
)

// recorded is the ConfigMap kube-apiserver 1.37.1 published when started
// with --client-ca-file, --requestheader-client-ca-file and
// --requestheader-{allowed-names,username-headers,group-headers,
// extra-headers-prefix} (the shared oracle's flags).
func recorded(t *testing.T) *corev1.ConfigMap {
	t.Helper()
	b, err := os.ReadFile("testdata/kube-apiserver-configmap.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := yaml.Unmarshal(b, &cm); err != nil {
		t.Fatal(err)
	}
	return &cm
}

func oracleInfo(cm *corev1.ConfigMap) Info {
	return Info{
		ClientCA:                 []byte(cm.Data["client-ca-file"]),
		RequestHeaderCA:          []byte(cm.Data["requestheader-client-ca-file"]),
		RequestHeaderUsername:    []string{"X-Remote-User"},
		RequestHeaderGroup:       []string{"X-Remote-Group"},
		RequestHeaderExtraPrefix: []string{"X-Remote-Extra-"},
		RequestHeaderAllowed:     []string{"front-proxy-client"},
	}
}

func TestPublishedAsKubeAPIServer(t *testing.T) {
	want := recorded(t)
	client := fake.NewClientset()
	if err := Sync(context.Background(), clientsOf(client), oracleInfo(want)); err != nil {
		t.Fatal(err)
	}
	got, err := client.CoreV1().ConfigMaps(Namespace).Get(context.Background(), Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Data, want.Data) {
		t.Errorf("data =\n%v\nwant\n%v", got.Data, want.Data)
	}
	// A second server with the same settings changes nothing.
	if err := Sync(context.Background(), clientsOf(client), oracleInfo(want)); err != nil {
		t.Fatal(err)
	}
	again, _ := client.CoreV1().ConfigMaps(Namespace).Get(context.Background(), Name, metav1.GetOptions{})
	if !reflect.DeepEqual(again.Data, want.Data) {
		t.Errorf("second sync changed the data: %v", again.Data)
	}
}

// Recorded from a kube-apiserver 1.37.1 started with
// --requestheader-uid-headers=X-Remote-Uid: the key appears only then.
func TestUIDHeadersOnlyWhenSet(t *testing.T) {
	info := oracleInfo(recorded(t))
	data, err := Merge(nil, info, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := data["requestheader-uid-headers"]; ok {
		t.Error("requestheader-uid-headers written without uid headers")
	}
	info.RequestHeaderUID = []string{"X-Remote-Uid"}
	data, _ = Merge(nil, info, time.Now())
	if got := data["requestheader-uid-headers"]; got != `["X-Remote-Uid"]` {
		t.Errorf("requestheader-uid-headers = %q", got)
	}
}

func TestMergeKeepsWhatOtherServersPublished(t *testing.T) {
	cm := recorded(t)
	mine := Info{
		ClientCA:              []byte(cm.Data["requestheader-client-ca-file"]), // another CA
		RequestHeaderCA:       []byte(cm.Data["requestheader-client-ca-file"]),
		RequestHeaderUsername: []string{"X-Proxy-User", "X-Remote-User"},
	}
	data, err := Merge(cm.Data, mine, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if n := countCerts(data["client-ca-file"]); n != 2 {
		t.Errorf("client-ca-file has %d certificates, want both servers' 2", n)
	}
	if n := countCerts(data["requestheader-client-ca-file"]); n != 1 {
		t.Errorf("requestheader-client-ca-file has %d certificates, want 1 (no duplicates)", n)
	}
	if got := data["requestheader-username-headers"]; got != `["X-Remote-User","X-Proxy-User"]` {
		t.Errorf("username headers = %s", got)
	}
	// Certificates expired for more than five minutes are dropped.
	if data, _ := Merge(nil, mine, time.Now().Add(20*365*24*time.Hour)); data["client-ca-file"] != "" {
		t.Error("an expired CA was published")
	}
}

func countCerts(s string) int {
	n, b := 0, []byte(s)
	for {
		var block *pem.Block
		if block, b = pem.Decode(b); block == nil {
			return n
		}
		n++
	}
}

func clientsOf(fake *fake.Clientset) Clients {
	return Clients{ConfigMaps: fake.CoreV1().ConfigMaps(Namespace), Namespaces: fake.CoreV1().Namespaces()}
}
