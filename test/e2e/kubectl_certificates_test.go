package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"strings"
	"testing"
)

// csrYAML is a CertificateSigningRequest for a fresh key, named name.
func csrYAML(t *testing.T, name string) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: name}}, key)
	if err != nil {
		t.Fatal(err)
	}
	req := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}))
	return "apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata:\n  name: " + name +
		"\nspec:\n  request: " + req + "\n  signerName: kubernetes.io/kube-apiserver-client\n  usages: [client auth]\n"
}

// kubectl's certificate and storage class commands against the kapi
// binary, as kube-apiserver answers them.
func TestKubectlCertificatesAndStorageClasses(t *testing.T) {
	p := startKapiBinary(t, t.TempDir())

	t.Run("certificate approve and deny write the conditions get csr shows", func(t *testing.T) {
		p.mustKubectl(t, csrYAML(t, "alice"), "create", "-f", "-")
		p.mustKubectl(t, csrYAML(t, "bob"), "create", "-f", "-")
		if out := p.mustKubectl(t, "", "certificate", "approve", "alice"); !strings.Contains(out, "certificatesigningrequest.certificates.k8s.io/alice approved") {
			t.Errorf("certificate approve printed %q", out)
		}
		if out := p.mustKubectl(t, "", "certificate", "deny", "bob"); !strings.Contains(out, "certificatesigningrequest.certificates.k8s.io/bob denied") {
			t.Errorf("certificate deny printed %q", out)
		}
		out := p.mustKubectl(t, "", "get", "csr")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 3 || strings.Join(strings.Fields(lines[0]), " ") != "NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION" {
			t.Fatalf("get csr:\n%s", out)
		}
		for _, want := range []struct{ name, condition string }{{"alice", "Approved"}, {"bob", "Denied"}} {
			found := false
			for _, l := range lines[1:] {
				f := strings.Fields(l)
				if f[0] == want.name {
					found = true
					if f[len(f)-1] != want.condition || f[2] != "kubernetes.io/kube-apiserver-client" {
						t.Errorf("get csr row %q, want condition %s", l, want.condition)
					}
				}
			}
			if !found {
				t.Errorf("get csr has no row for %s:\n%s", want.name, out)
			}
		}
		// A denied request cannot also be approved: kube-apiserver's
		// declarative rule answers a client that tries.
		out, err := p.kubectl(t, "", "patch", "csr", "bob", "--subresource=approval", "--type=json", "-p",
			`[{"op":"add","path":"/status/conditions/-","value":{"type":"Approved","status":"True"}}]`)
		if err == nil || !strings.Contains(out, "must specify at most one of") {
			t.Errorf("approving a denied request: err %v, output %q", err, out)
		}
		// The conditions cannot be removed either.
		out, err = p.kubectl(t, "", "patch", "csr", "alice", "--subresource=approval", "--type=merge", "-p", `{"status":{"conditions":[]}}`)
		if err == nil || !strings.Contains(out, `updates may not remove a condition of type "Approved"`) {
			t.Errorf("removing the approval: err %v, output %q", err, out)
		}
	})

	t.Run("get sc shows defaults and the default class", func(t *testing.T) {
		p.mustKubectl(t, "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: fast\n  annotations: {storageclass.kubernetes.io/is-default-class: \"true\"}\nprovisioner: example.com/fast\n", "create", "-f", "-")
		out := p.mustKubectl(t, "", "get", "sc")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 2 {
			t.Fatalf("get sc:\n%s", out)
		}
		if got := strings.Join(strings.Fields(lines[0]), " "); got != "NAME PROVISIONER RECLAIMPOLICY VOLUMEBINDINGMODE ALLOWVOLUMEEXPANSION AGE" {
			t.Errorf("get sc header %q", got)
		}
		if got := strings.Fields(lines[1]); len(got) < 6 || strings.Join(got[:6], " ") != "fast (default) example.com/fast Delete Immediate false" {
			t.Errorf("get sc row %q", lines[1])
		}
		// The provisioner is fixed once the class exists.
		out, err := p.kubectl(t, "", "patch", "sc", "fast", "--type=merge", "-p", `{"provisioner":"example.com/slow"}`)
		if err == nil || !strings.Contains(out, "provisioner: Invalid value: null: field is immutable") {
			t.Errorf("changing the provisioner: err %v, output %q", err, out)
		}
	})
}
