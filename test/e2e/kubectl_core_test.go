package e2e

import (
	"strings"
	"testing"
)

const replicationControllerYAML = `apiVersion: v1
kind: ReplicationController
metadata: {name: web}
spec:
  replicas: 3
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: nginx:1.27}]}
`

const volumeAndClaimYAML = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}, storageClassName: manual}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: data-pv}
spec:
  capacity: {storage: 2Gi}
  accessModes: [ReadWriteOnce]
  hostPath: {path: /tmp/data}
  storageClassName: manual
  claimRef: {namespace: default, name: data}
`

// header is the first line of kubectl's table output, split in columns;
// warnings, which kubectl prints on stderr, are skipped.
func header(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "Warning: ") {
			return strings.Join(strings.Fields(line), " ")
		}
	}
	return ""
}

// rowOf is the line of kubectl's table output whose first column is name,
// split in columns.
func rowOf(out, name string) []string {
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == name {
			return f
		}
	}
	return nil
}

// TestKubectlCore drives the rest of core/v1 with the real kubectl against
// the kapi binary: quotas, replication controllers and their scale,
// component statuses, volumes and claims. The expected output is what the
// same commands print against kube-apiserver 1.37.1.
func TestKubectlCore(t *testing.T) {
	p := startKapiBinary(t, t.TempDir())

	t.Run("create quota with hard limits and scopes", func(t *testing.T) {
		out := p.mustKubectl(t, "", "create", "quota", "compute", "--hard=pods=5,requests.cpu=1", "--scopes=NotTerminating,NotBestEffort")
		if strings.TrimSpace(out) != "resourcequota/compute created" {
			t.Fatalf("create quota: %s", out)
		}
		got := p.mustKubectl(t, "", "get", "quota", "compute", "-o", "jsonpath={.spec.hard.pods}/{.spec.hard.requests\\.cpu}/{.spec.scopes}")
		if got != `5/1/["NotTerminating","NotBestEffort"]` {
			t.Errorf("quota spec: %s", got)
		}
		if h := header(p.mustKubectl(t, "", "get", "quota")); h != "NAME REQUEST LIMIT AGE" {
			t.Errorf("quota columns: %s", h)
		}
		out, err := p.kubectl(t, "", "create", "quota", "bad", "--hard=cpu=1", "--scopes=BestEffort")
		if err == nil || !strings.Contains(out, `spec.scopes: Invalid value: ["BestEffort"]: unsupported scope applied to resource`) {
			t.Errorf("a scope that cannot limit cpu was not refused as kube-apiserver refuses it: %v\n%s", err, out)
		}
	})

	t.Run("scale rc", func(t *testing.T) {
		p.mustKubectl(t, replicationControllerYAML, "create", "-f", "-")
		out := p.mustKubectl(t, "", "scale", "rc", "web", "--replicas=4")
		if strings.TrimSpace(out) != "replicationcontroller/web scaled" {
			t.Fatalf("scale: %s", out)
		}
		if got := p.mustKubectl(t, "", "get", "rc", "web", "-o", "jsonpath={.spec.replicas}/{.metadata.generation}"); got != "4/2" {
			t.Errorf("replicas/generation after scale = %s, want 4/2", got)
		}
		out, err := p.kubectl(t, "", "scale", "rc", "web", "--current-replicas=3", "--replicas=1")
		if err == nil || !strings.Contains(out, "Expected replicas to be 3, was 4") {
			t.Errorf("a stale --current-replicas was not refused: %v\n%s", err, out)
		}
		wide := p.mustKubectl(t, "", "get", "rc", "-o", "wide")
		if h := header(wide); h != "NAME DESIRED CURRENT READY AGE CONTAINERS IMAGES SELECTOR" {
			t.Errorf("rc columns: %s", h)
		}
		if row := rowOf(wide, "web"); len(row) != 8 || row[1] != "4" || row[6] != "nginx:1.27" || row[7] != "app=web" {
			t.Errorf("rc row: %v", row)
		}
	})

	t.Run("get cs reports etcd healthy, with the deprecation warning", func(t *testing.T) {
		out := p.mustKubectl(t, "", "get", "cs")
		if h := header(out); h != "NAME STATUS MESSAGE ERROR" {
			t.Errorf("cs columns: %s", h)
		}
		if row := rowOf(out, "etcd-0"); strings.Join(row, " ") != "etcd-0 Healthy ok" {
			t.Errorf("etcd-0 row: %v\n%s", row, out)
		}
		for _, component := range []string{"scheduler", "controller-manager"} {
			if rowOf(out, component) == nil {
				t.Errorf("no %s row:\n%s", component, out)
			}
		}
		if !strings.Contains(out, "Warning: v1 ComponentStatus is deprecated in v1.19+") {
			t.Errorf("no deprecation warning:\n%s", out)
		}
	})

	t.Run("get pv,pvc -o wide", func(t *testing.T) {
		p.mustKubectl(t, volumeAndClaimYAML, "create", "-f", "-")
		out := p.mustKubectl(t, "", "get", "pv,pvc", "-o", "wide")
		sections := strings.SplitN(out, "\n\n", 2)
		if len(sections) != 2 {
			t.Fatalf("want a table of volumes and one of claims:\n%s", out)
		}
		if h := header(sections[0]); h != "NAME CAPACITY ACCESS MODES RECLAIM POLICY STATUS CLAIM STORAGECLASS VOLUMEATTRIBUTESCLASS REASON AGE VOLUMEMODE" {
			t.Errorf("pv columns: %s", h)
		}
		if row := rowOf(sections[0], "persistentvolume/data-pv"); strings.Join(row[:7], " ") != "persistentvolume/data-pv 2Gi RWO Retain Pending default/data manual" || row[len(row)-1] != "Filesystem" {
			t.Errorf("pv row: %v", row)
		}
		if h := header(sections[1]); h != "NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS VOLUMEATTRIBUTESCLASS AGE VOLUMEMODE" {
			t.Errorf("pvc columns: %s", h)
		}
		if row := rowOf(sections[1], "persistentvolumeclaim/data"); strings.Join(row[:4], " ") != "persistentvolumeclaim/data Pending manual <unset>" || row[len(row)-1] != "Filesystem" {
			t.Errorf("pvc row: %v", row)
		}
	})
}
