package storagebackend

import (
	"bytes"
	"os"
	"strings"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
)

// A resource kube-apiserver stores in another version than it serves is
// read from and written to etcd in kube-apiserver's form: the value of a
// ClusterTrustBundle that kube-apiserver 1.37.1 wrote (testdata, read with
// etcdctl from the oracle's etcd) decodes as the served v1 object, and
// kapi writes it back as v1beta1.
func TestStorageCodecReadsAndWritesKubeAPIServersStorageVersion(t *testing.T) {
	stored, err := os.ReadFile("testdata/clustertrustbundle-v1beta1.pb")
	if err != nil {
		t.Fatal(err)
	}
	codec, err := storageCodec(certificatesv1beta1.SchemeGroupVersion, "", &certificatesv1.ClusterTrustBundle{})
	if err != nil {
		t.Fatal(err)
	}
	obj, err := runtime.Decode(codec, stored)
	if err != nil {
		t.Fatal(err)
	}
	ctb, ok := obj.(*certificatesv1.ClusterTrustBundle)
	if !ok {
		t.Fatalf("decoded a %T, want a v1 ClusterTrustBundle", obj)
	}
	if ctb.Name != "probe-ctb" || !strings.HasPrefix(ctb.Spec.TrustBundle, "-----BEGIN CERTIFICATE-----") {
		t.Fatalf("decoded %s with bundle %.40q", ctb.Name, ctb.Spec.TrustBundle)
	}

	var out bytes.Buffer
	if err := codec.Encode(ctb, &out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out.Bytes(), []byte("certificates.k8s.io/v1beta1")) {
		t.Errorf("kapi stores the bundle as %q, want certificates.k8s.io/v1beta1", out.Bytes()[:40])
	}
	again, err := runtime.Decode(codec, out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if again.(*certificatesv1.ClusterTrustBundle).Spec != ctb.Spec {
		t.Errorf("the bundle does not survive a write and a read")
	}
}
