package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/required"
)

// getAllRecording keeps what kubectl printed for `kubectl get all` against
// kube-apiserver 1.37.1.
const getAllRecording = "testdata/getall-kubectl-oracle.json"

// getAllNamespace is the namespace of the scenario, as the recording names
// it.
const getAllNamespace = "h-get-all"

// getAllObjects are the objects the scenario creates: one of each kind of
// the category "all" and some of other kinds. Each document is named by
// its resource, as kube-apiserver's discovery names it.
var getAllObjects = map[string]string{
	"v1/pods": `apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  containers: [{name: nginx, image: nginx:1.27}]`,
	"v1/replicationcontrollers": `apiVersion: v1
kind: ReplicationController
metadata: {name: legacy}
spec:
  replicas: 2
  template:
    metadata: {labels: {app: legacy}}
    spec:
      containers: [{name: nginx, image: nginx:1.27}]`,
	"v1/services": `apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]`,
	"apps/v1/daemonsets": `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: busybox:1.37}]`,
	"apps/v1/deployments": `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: nginx, image: nginx:1.27}]`,
	"apps/v1/replicasets": `apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: cache}
spec:
  replicas: 1
  selector: {matchLabels: {app: cache}}
  template:
    metadata: {labels: {app: cache}}
    spec:
      containers: [{name: redis, image: redis:8}]`,
	"apps/v1/statefulsets": `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: web
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: postgres, image: postgres:17}]`,
	"autoscaling/v2/horizontalpodautoscalers": `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}`,
	"batch/v1/cronjobs": `apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 3 * * *"
  timeZone: Europe/Paris
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: backup, image: busybox:1.37}]`,
	"batch/v1/jobs": `apiVersion: batch/v1
kind: Job
metadata: {name: migrate}
spec:
  completions: 2
  template:
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: busybox:1.37}]`,

	// Kinds outside the category.
	"v1/configmaps": `apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {mode: fast}`,
	"v1/secrets": `apiVersion: v1
kind: Secret
metadata: {name: token}
stringData: {token: s3cr3t}`,
	"v1/serviceaccounts": `apiVersion: v1
kind: ServiceAccount
metadata: {name: builder}`,
	"v1/persistentvolumeclaims": `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}`,
	"apps/v1/controllerrevisions": `apiVersion: apps/v1
kind: ControllerRevision
metadata: {name: db-1}
data: {spec: {template: {metadata: {labels: {app: db}}}}}
revision: 1`,
	"policy/v1/poddisruptionbudgets": `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: web}}`,
	"networking.k8s.io/v1/ingresses": `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
spec:
  defaultBackend: {service: {name: web, port: {number: 80}}}`,
	"networking.k8s.io/v1/networkpolicies": `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny}
spec:
  podSelector: {}`,
	"coordination.k8s.io/v1/leases": `apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: leader}`,
}

// getAllResources returns the resources of the category "all" in
// kube-apiserver 1.37.1's discovery, as "<group version>/<resource>".
func getAllResources(t *testing.T) []string {
	t.Helper()
	files := []string{filepath.Join(required.Reference(t), "discovery/api_v1.json")}
	more, err := filepath.Glob(filepath.Join(required.Reference(t), "discovery/apis/*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, file := range append(files, more...) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var list metav1.APIResourceList
		if err := json.Unmarshal(data, &list); err != nil {
			t.Fatal(err)
		}
		for _, r := range list.APIResources {
			for _, c := range r.Categories {
				if c == "all" {
					out = append(out, list.GroupVersion+"/"+r.Name)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestKubectlGetAll creates an object of each resource of the category
// "all" (read from kube-apiserver's discovery) and objects of other
// resources, and compares what `kubectl get all` prints against kapi with
// what it printed against kube-apiserver 1.37.1
// (testdata/getall-kubectl-oracle.json): the same objects, in the same
// order, with the same columns.
//
// With KAPI_GETALL_ORACLE set to the kubeconfig of an oracle, the test
// runs the scenario there and writes the recording instead.
func TestKubectlGetAll(t *testing.T) {
	for _, r := range getAllResources(t) {
		if _, ok := getAllObjects[r]; !ok && !strings.HasPrefix(r, "autoscaling/v1/") {
			t.Errorf("the scenario creates no object of %s, which is in the category all", r)
		}
	}
	if oracle := os.Getenv("KAPI_GETALL_ORACLE"); oracle != "" {
		recordGetAll(t, oracle)
		return
	}
	recorded := readKubectlRecording(t, getAllRecording)
	p := startKapiBinary(t, t.TempDir())
	// The width of a table's columns depends on the ages and addresses.
	compareKubectlSteps(t, recorded, runGetAllScenario(t, p.kubeconfig, getAllNamespace), squeezeSpaces)
}

func recordGetAll(t *testing.T, kubeconfig string) {
	ns := fmt.Sprintf("%s-%d", getAllNamespace, time.Now().Unix())
	steps := runGetAllScenario(t, kubeconfig, ns)
	for i := range steps {
		for j, arg := range steps[i].Args {
			steps[i].Args[j] = strings.ReplaceAll(arg, ns, getAllNamespace)
		}
		steps[i].Output = strings.ReplaceAll(steps[i].Output, ns, getAllNamespace)
	}
	// The oracle runs no controllers: empty the namespace and finalize it.
	kubectl := filepath.Join(binaries(t), "kubectl")
	for _, args := range [][]string{
		{"delete", "-n", ns, "--cascade=background", "--wait=false", "all,cm,secret,sa,pvc,controllerrevision,pdb,ingress,netpol,lease", "--all"},
		{"delete", "namespace", ns, "--wait=false"},
	} {
		if out, err := exec.Command(kubectl, append([]string{"--kubeconfig", kubeconfig}, args...)...).CombinedOutput(); err != nil {
			t.Errorf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	finalize := exec.Command(kubectl, "--kubeconfig", kubeconfig, "replace", "--raw", "/api/v1/namespaces/"+ns+"/finalize", "-f", "-")
	finalize.Stdin = strings.NewReader(fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q},"spec":{"finalizers":[]}}`, ns))
	if out, err := finalize.CombinedOutput(); err != nil {
		t.Errorf("finalizing %s: %v\n%s", ns, err, out)
	}
	writeKubectlRecording(t, getAllRecording, steps)
}

// clusterIPPattern is an address of the service range.
var clusterIPPattern = regexp.MustCompile(`\b10\.\d+\.\d+\.\d+\b`)

// runGetAllScenario creates the objects in a new namespace ns of the server
// of kubeconfig and returns the commands of kubectl get all and their
// answers, with the cluster IPs allocated at random replaced.
func runGetAllScenario(t *testing.T, kubeconfig, ns string) []kubectlStep {
	kubectl := filepath.Join(binaries(t), "kubectl")
	if out, err := exec.Command(kubectl, "--kubeconfig", kubeconfig, "create", "namespace", ns).CombinedOutput(); err != nil {
		t.Fatalf("creating namespace %s: %v\n%s", ns, err, out)
	}
	// The pods need their namespace's default service account, which kube's
	// controller manager creates and neither kapi nor the bare oracle runs.
	if out, err := exec.Command(kubectl, "--kubeconfig", kubeconfig, "create", "serviceaccount", "default", "-n", ns).CombinedOutput(); err != nil && !strings.Contains(string(out), "already exists") {
		t.Fatalf("creating the default service account of %s: %v\n%s", ns, err, out)
	}
	r := &rolloutRun{t: t, kubectl: kubectl, kubeconfig: kubeconfig, ns: ns}
	names := make([]string, 0, len(getAllObjects))
	for name := range getAllObjects {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		r.run(getAllObjects[name], "create", "-f", "-")
	}
	r.run("", "get", "all", "-o", "name")
	r.run("", "get", "all")
	r.run("", "get", "all", "-o", "wide")
	r.run("", "get", "all", "--show-kind", "-l", "app=web")
	r.run("", "get", "all,configmaps", "-o", "name")
	r.run("", "get", "all", "-A", "-o", "name", "--field-selector", "metadata.namespace="+ns)
	for i := range r.steps {
		r.steps[i].Output = clusterIPPattern.ReplaceAllString(r.steps[i].Output, "<cluster-ip>")
	}
	return r.steps
}
