package flowcontrol

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
)

// classificationRecording is testdata/classification-oracle.json: the
// FlowSchemas and priority levels kube-apiserver 1.37.1 had (its
// bootstrap configuration and the apf-* objects the recording added),
// and, for requests made as various users, the user the oracle saw
// (SelfSubjectReview) and the schema and level it chose (the UIDs of its
// X-Kubernetes-PF-* response headers, mapped to names).
type classificationRecording struct {
	Source         string                                      `json:"source"`
	FlowSchemas    []*flowcontrolv1.FlowSchema                 `json:"flowSchemas"`
	PriorityLevels []*flowcontrolv1.PriorityLevelConfiguration `json:"priorityLevels"`
	Cases          []classificationCase                        `json:"cases"`
}

type classificationCase struct {
	Name string `json:"name"`
	// As is the user impersonated, with AsGroups; empty As is an
	// anonymous request.
	As       string   `json:"as,omitempty"`
	AsGroups []string `json:"asGroups,omitempty"`
	Method   string   `json:"method"`
	Path     string   `json:"path"`
	// Recorded.
	User          *authenticationv1.UserInfo `json:"user,omitempty"`
	FlowSchema    string                     `json:"flowSchema,omitempty"`
	PriorityLevel string                     `json:"priorityLevel,omitempty"`
}

// recordingSchemas are the objects the recording adds to the oracle for
// the cases that exercise each kind of rule: apf-* names, and subjects
// no other client uses, so that they change nothing else on a shared
// oracle. apf-dangling names a level that does not exist.
func recordingObjects() ([]*flowcontrolv1.PriorityLevelConfiguration, []*flowcontrolv1.FlowSchema) {
	level := &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "apf-tiny"},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: ptr.To[int32](1),
				LimitResponse:            flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject},
			},
		},
	}
	schema := func(name string, precedence int32, level string, method flowcontrolv1.FlowDistinguisherMethodType, rules ...flowcontrolv1.PolicyRulesWithSubjects) *flowcontrolv1.FlowSchema {
		fs := &flowcontrolv1.FlowSchema{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: flowcontrolv1.FlowSchemaSpec{
				PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: level},
				MatchingPrecedence:         precedence,
				Rules:                      rules,
			},
		}
		if method != "" {
			fs.Spec.DistinguisherMethod = &flowcontrolv1.FlowDistinguisherMethod{Type: method}
		}
		return fs
	}
	userSubject := func(name string) flowcontrolv1.Subject {
		return flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: name}}
	}
	saSubject := func(ns, name string) flowcontrolv1.Subject {
		return flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindServiceAccount, ServiceAccount: &flowcontrolv1.ServiceAccountSubject{Namespace: ns, Name: name}}
	}
	everything := []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, ClusterScope: true, Namespaces: []string{"*"}}}
	return []*flowcontrolv1.PriorityLevelConfiguration{level}, []*flowcontrolv1.FlowSchema{
		schema("apf-users", 50, "apf-tiny", flowcontrolv1.FlowDistinguisherMethodByUserType, flowcontrolv1.PolicyRulesWithSubjects{
			Subjects: []flowcontrolv1.Subject{userSubject("apf-alice")},
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{{
				Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods", "pods/status"}, Namespaces: []string{"apf-ns"},
			}},
			NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/apis/*", "/version"}}},
		}),
		schema("apf-group", 60, "apf-tiny", flowcontrolv1.FlowDistinguisherMethodByNamespaceType, flowcontrolv1.PolicyRulesWithSubjects{
			Subjects: []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindGroup, Group: &flowcontrolv1.GroupSubject{Name: "apf-group"}}},
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{{
				Verbs: []string{"*"}, APIGroups: []string{"apps"}, Resources: []string{"*"}, ClusterScope: true, Namespaces: []string{"*"},
			}},
		}),
		schema("apf-sa", 70, "apf-tiny", "", flowcontrolv1.PolicyRulesWithSubjects{
			Subjects: []flowcontrolv1.Subject{saSubject("apf-ns", "robot")}, ResourceRules: everything,
		}),
		schema("apf-sa-all", 71, "apf-tiny", "", flowcontrolv1.PolicyRulesWithSubjects{
			Subjects: []flowcontrolv1.Subject{saSubject("apf-ns", "*")},
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{{
				Verbs: []string{"*"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, Namespaces: []string{"*"},
			}},
		}),
		schema("apf-dangling", 40, "apf-missing", "", flowcontrolv1.PolicyRulesWithSubjects{
			Subjects: []flowcontrolv1.Subject{userSubject("apf-dave")}, ResourceRules: everything,
		}),
	}
}

// recordingCases are the requests of the recording, without answers.
func recordingCases() []classificationCase {
	node := []string{"system:nodes"}
	return []classificationCase{
		{Name: "admin lists namespaces", As: "kubernetes-admin", AsGroups: []string{"system:masters"}, Method: "GET", Path: "/api/v1/namespaces"},
		{Name: "a member of system:masters creates a pod", As: "bob", AsGroups: []string{"system:masters"}, Method: "POST", Path: "/api/v1/namespaces/default/pods"},
		{Name: "anonymous readyz", Method: "GET", Path: "/readyz"},
		{Name: "anonymous healthz subpath", Method: "GET", Path: "/healthz/etcd"},
		{Name: "anonymous version", Method: "GET", Path: "/version"},
		{Name: "anonymous lists pods", Method: "GET", Path: "/api/v1/pods"},
		{Name: "user livez", As: "alice", Method: "GET", Path: "/livez"},
		{Name: "user posts to healthz", As: "alice", Method: "POST", Path: "/healthz"},
		{Name: "user lists pods", As: "alice", Method: "GET", Path: "/api/v1/namespaces/default/pods"},
		{Name: "user gets discovery", As: "alice", Method: "GET", Path: "/apis"},
		{Name: "node gets its node", As: "system:node:n1", AsGroups: node, Method: "GET", Path: "/api/v1/nodes/n1"},
		{Name: "node patches its node status", As: "system:node:n1", AsGroups: node, Method: "PATCH", Path: "/api/v1/nodes/n1/status"},
		{Name: "node renews its lease", As: "system:node:n1", AsGroups: node, Method: "PUT", Path: "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1"},
		{Name: "node lists leases of all namespaces", As: "system:node:n1", AsGroups: node, Method: "GET", Path: "/apis/coordination.k8s.io/v1/leases"},
		{Name: "node watches pods", As: "system:node:n1", AsGroups: node, Method: "GET", Path: "/api/v1/pods?watch=true&fieldSelector=spec.nodeName%3Dn1&timeoutSeconds=1"},
		{Name: "node gets a secret", As: "system:node:n1", AsGroups: node, Method: "GET", Path: "/api/v1/namespaces/default/secrets/s"},
		{Name: "controller manager gets its lease", As: "system:kube-controller-manager", Method: "GET", Path: "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager"},
		{Name: "controller manager watches leases", As: "system:kube-controller-manager", Method: "GET", Path: "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?watch=1&timeoutSeconds=1"},
		{Name: "controller manager lists pods", As: "system:kube-controller-manager", Method: "GET", Path: "/api/v1/pods"},
		{Name: "scheduler updates its lease", As: "system:kube-scheduler", Method: "PUT", Path: "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler"},
		{Name: "scheduler binds a pod", As: "system:kube-scheduler", Method: "POST", Path: "/api/v1/namespaces/default/pods/p/binding"},
		{Name: "kube-system service account creates a lease", As: "system:serviceaccount:kube-system:ctl", Method: "POST", Path: "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases"},
		{Name: "kube-system service account lists configmaps", As: "system:serviceaccount:kube-system:ctl", Method: "GET", Path: "/api/v1/namespaces/kube-system/configmaps"},
		{Name: "service account lists pods", As: "system:serviceaccount:default:app", Method: "GET", Path: "/api/v1/namespaces/default/pods"},
		{Name: "service account gets version", As: "system:serviceaccount:default:app", Method: "GET", Path: "/version"},
		{Name: "apf-users: get of a pod in its namespace", As: "apf-alice", Method: "GET", Path: "/api/v1/namespaces/apf-ns/pods/p"},
		{Name: "apf-users: a listed subresource", As: "apf-alice", Method: "GET", Path: "/api/v1/namespaces/apf-ns/pods/p/status"},
		{Name: "apf-users: another subresource", As: "apf-alice", Method: "GET", Path: "/api/v1/namespaces/apf-ns/pods/p/ephemeralcontainers"},
		{Name: "apf-users: another namespace", As: "apf-alice", Method: "GET", Path: "/api/v1/namespaces/default/pods"},
		{Name: "apf-users: not cluster scope", As: "apf-alice", Method: "GET", Path: "/api/v1/pods"},
		{Name: "apf-users: another verb", As: "apf-alice", Method: "POST", Path: "/api/v1/namespaces/apf-ns/pods"},
		{Name: "apf-users: a path under a wildcard URL", As: "apf-alice", Method: "GET", Path: "/apis/apps"},
		{Name: "apf-users: the wildcard URL's own prefix", As: "apf-alice", Method: "GET", Path: "/apis"},
		{Name: "apf-users: an exact URL", As: "apf-alice", Method: "GET", Path: "/version"},
		{Name: "apf-users: below an exact URL", As: "apf-alice", Method: "GET", Path: "/version/x"},
		{Name: "apf-users: another verb on a URL", As: "apf-alice", Method: "PUT", Path: "/version"},
		{Name: "apf-group: a namespaced apps resource", As: "apf-bob", AsGroups: []string{"apf-group"}, Method: "GET", Path: "/apis/apps/v1/namespaces/x/deployments"},
		{Name: "apf-group: a cluster-wide list", As: "apf-bob", AsGroups: []string{"apf-group"}, Method: "GET", Path: "/apis/apps/v1/deployments"},
		{Name: "apf-group: another group", As: "apf-bob", AsGroups: []string{"apf-group"}, Method: "GET", Path: "/api/v1/namespaces/x/pods"},
		{Name: "apf-sa: the service account", As: "system:serviceaccount:apf-ns:robot", Method: "GET", Path: "/api/v1/nodes"},
		{Name: "apf-sa-all: another service account of the namespace", As: "system:serviceaccount:apf-ns:other", Method: "GET", Path: "/api/v1/namespaces/default/configmaps"},
		{Name: "apf-sa-all: a resource it does not name", As: "system:serviceaccount:apf-ns:other", Method: "GET", Path: "/api/v1/namespaces/default/secrets"},
		{Name: "apf-sa-all: a namespace that starts alike", As: "system:serviceaccount:apf-nsx:robot", Method: "GET", Path: "/api/v1/namespaces/default/configmaps"},
		{Name: "apf-dangling: a schema without its level", As: "apf-dave", Method: "GET", Path: "/api/v1/namespaces/default/pods"},
	}
}

// recordClassification runs the cases against the kube-apiserver of
// kubeconfig and writes the recording to path.
func recordClassification(t *testing.T, kubeconfig, path string) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(cfg)
	levels, schemas := recordingObjects()
	for _, pl := range levels {
		if _, err := cs.FlowcontrolV1().PriorityLevelConfigurations().Create(ctx, pl, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		defer func() {
			_ = cs.FlowcontrolV1().PriorityLevelConfigurations().Delete(ctx, pl.Name, metav1.DeleteOptions{})
		}()
	}
	for _, fs := range schemas {
		if _, err := cs.FlowcontrolV1().FlowSchemas().Create(ctx, fs, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = cs.FlowcontrolV1().FlowSchemas().Delete(ctx, fs.Name, metav1.DeleteOptions{}) }()
	}
	// The configuration controller takes the change within a second.
	time.Sleep(3 * time.Second)

	rec := classificationRecording{Source: "kube-apiserver 1.37.1 (the shared oracle), recorded by TestClassificationMatchesKubeAPIServer with KAPI_APF_ORACLE"}
	fsList, err := cs.FlowcontrolV1().FlowSchemas().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plList, err := cs.FlowcontrolV1().PriorityLevelConfigurations().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for i := range fsList.Items {
		fs := &fsList.Items[i]
		names[string(fs.UID)] = fs.Name
		if strings.HasPrefix(fs.Name, "apf-") || fs.Annotations[flowcontrolv1.AutoUpdateAnnotationKey] == "true" {
			rec.FlowSchemas = append(rec.FlowSchemas, &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: fs.Name, UID: fs.UID}, Spec: fs.Spec})
		}
	}
	for i := range plList.Items {
		pl := &plList.Items[i]
		names[string(pl.UID)] = pl.Name
		if strings.HasPrefix(pl.Name, "apf-") || pl.Annotations[flowcontrolv1.AutoUpdateAnnotationKey] == "true" {
			rec.PriorityLevels = append(rec.PriorityLevels, &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: pl.Name, UID: pl.UID}, Spec: pl.Spec})
		}
	}
	for _, c := range recordingCases() {
		ccfg := rest.CopyConfig(cfg)
		if c.As == "" {
			ccfg = rest.AnonymousClientConfig(cfg)
		} else {
			ccfg.Impersonate = rest.ImpersonationConfig{UserName: c.As, Groups: c.AsGroups}
		}
		hc, err := rest.HTTPClientFor(ccfg)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(c.Method, strings.TrimSuffix(cfg.Host, "/")+c.Path, nil)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		c.FlowSchema = names[resp.Header.Get(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID)]
		c.PriorityLevel = names[resp.Header.Get(flowcontrolv1.ResponseHeaderMatchedPriorityLevelConfigurationUID)]
		if c.FlowSchema == "" || c.PriorityLevel == "" {
			t.Fatalf("%s: answer %d without the headers of a known schema and level: %v", c.Name, resp.StatusCode, resp.Header)
		}
		if c.As == "" {
			// Anonymous requests may not review themselves.
			c.User = &authenticationv1.UserInfo{Username: "system:anonymous", Groups: []string{"system:unauthenticated"}}
		} else {
			review, err := kubernetes.NewForConfigOrDie(ccfg).AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("%s: self-review: %v", c.Name, err)
			}
			c.User = &review.Status.UserInfo
		}
		rec.Cases = append(rec.Cases, c)
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "recorded %d cases in %s\n", len(rec.Cases), path)
}
