// Command rbac-decisions records the RBAC decision matrix that
// pkg/authorization/rbac's tests replay: it writes the extra policy of
// pkg/authorization/rbac/testdata/h-rbac-policy.json to a real
// kube-apiserver (the oracle), asks it a SubjectAccessReview for every
// case (every user below, every request below) and writes the cases with
// the answers.
//
//	go run ./hack/rbac-decisions -kubeconfig ~/.cache/kapi-oracle/run/admin.kubeconfig \
//	    > pkg/authorization/rbac/testdata/decisions.json
//
// The server's policy must be kube-apiserver's bootstrap policy
// (testdata/kube-apiserver-policy.json) plus the extra one, and nothing
// else that binds the users below; the namespace h-rbac must exist. Pass
// -cleanup to delete the extra policy afterwards.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// Case is one question and kube-apiserver's answer.
type Case struct {
	User   string                                 `json:"user"`
	Groups []string                               `json:"groups,omitempty"`
	Res    *authorizationv1.ResourceAttributes    `json:"resource,omitempty"`
	NonRes *authorizationv1.NonResourceAttributes `json:"nonResource,omitempty"`

	Allowed bool   `json:"allowed"`
	Denied  bool   `json:"denied,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

type identity struct {
	name   string
	groups []string
}

func sa(ns, name string) identity {
	return identity{"system:serviceaccount:" + ns + ":" + name, []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}}
}

var authenticated = []string{"system:authenticated"}

// users: the bootstrap policy's subjects and the extra policy's.
var users = []identity{
	{"h-rbac-nobody", authenticated},
	{"system:anonymous", []string{"system:unauthenticated"}},
	{"h-rbac-viewer", authenticated},
	{"h-rbac-editor", []string{"h-rbac-editors", "system:authenticated"}},
	sa("h-rbac", "ns-admin"),
	sa("h-rbac", "cluster-viewer"),
	sa("default", "reader"),
	sa("kube-public", "other"),
	sa("h-rbac", "default"),
	{"h-rbac-wild", authenticated},
	{"h-rbac-nr", authenticated},
	{"h-rbac-nr-member", []string{"h-rbac-nr-group", "system:authenticated"}},
	{"h-rbac-node", authenticated},
	{"h-rbac-root", authenticated},
	{"h-rbac-master", []string{"system:masters", "system:authenticated"}},
	{"h-rbac-ghost", authenticated},
	{"h-rbac-imp", authenticated},
	{"system:kube-scheduler", authenticated},
	{"system:kube-controller-manager", authenticated},
	{"system:kube-proxy", authenticated},
	{"h-rbac-monitor", []string{"system:monitoring", "system:authenticated"}},
	sa("kube-system", "replicaset-controller"),
	sa("kube-system", "namespace-controller"),
	sa("kube-system", "generic-garbage-collector"),
	sa("kube-system", "bootstrap-signer"),
}

func res(verb, group, resource, sub, ns, name string) *authorizationv1.ResourceAttributes {
	return &authorizationv1.ResourceAttributes{Verb: verb, Group: group, Resource: resource, Subresource: sub, Namespace: ns, Name: name}
}

// requests: what the roles above grant and deny, their wildcards and
// subresources, the impersonate verbs, and non-resource URLs.
var requests = []*authorizationv1.ResourceAttributes{
	res("get", "", "pods", "", "h-rbac", "p"),
	res("list", "", "pods", "", "h-rbac", ""),
	res("watch", "", "pods", "", "", ""),
	res("create", "", "pods", "", "h-rbac", ""),
	res("delete", "", "pods", "", "h-rbac", "p"),
	res("get", "", "pods", "log", "h-rbac", "p"),
	res("create", "", "pods", "exec", "h-rbac", "p"),
	res("create", "", "pods", "eviction", "h-rbac", "p"),
	res("get", "", "pods", "status", "h-rbac", "p"),
	res("patch", "", "pods", "status", "h-rbac", "p"),
	res("get", "", "secrets", "", "h-rbac", "s"),
	res("list", "", "secrets", "", "h-rbac", ""),
	res("list", "", "secrets", "", "kube-system", ""),
	res("get", "", "configmaps", "", "h-rbac", "cm-1"),
	res("update", "", "configmaps", "", "h-rbac", "cm-1"),
	res("update", "", "configmaps", "", "h-rbac", "cm-2"),
	res("get", "", "configmaps", "", "default", "x"),
	res("list", "apps", "deployments", "", "h-rbac", ""),
	res("create", "apps", "deployments", "", "h-rbac", ""),
	res("patch", "apps", "deployments", "scale", "h-rbac", "d"),
	res("get", "apps", "deployments", "status", "h-rbac", "d"),
	res("list", "apps", "replicasets", "", "", ""),
	res("list", "", "nodes", "", "", ""),
	res("get", "", "nodes", "", "", "n1"),
	res("patch", "", "nodes", "status", "", "n1"),
	res("create", "", "events", "", "h-rbac", ""),
	res("create", "events.k8s.io", "events", "", "h-rbac", ""),
	res("get", "", "namespaces", "", "", "h-rbac"),
	res("list", "", "namespaces", "", "", ""),
	res("delete", "", "namespaces", "", "", "h-rbac"),
	res("create", "rbac.authorization.k8s.io", "rolebindings", "", "h-rbac", ""),
	res("bind", "rbac.authorization.k8s.io", "clusterroles", "", "h-rbac", "view"),
	res("escalate", "rbac.authorization.k8s.io", "roles", "", "h-rbac", ""),
	res("create", "coordination.k8s.io", "leases", "", "kube-node-lease", ""),
	res("update", "coordination.k8s.io", "leases", "", "kube-system", "kube-scheduler"),
	res("create", "authorization.k8s.io", "selfsubjectaccessreviews", "", "", ""),
	res("create", "authorization.k8s.io", "selfsubjectrulesreviews", "", "", ""),
	res("create", "authentication.k8s.io", "selfsubjectreviews", "", "", ""),
	res("create", "authentication.k8s.io", "tokenreviews", "", "", ""),
	res("create", "authorization.k8s.io", "subjectaccessreviews", "", "", ""),
	res("get", "", "endpoints", "", "default", "kubernetes"),
	res("list", "discovery.k8s.io", "endpointslices", "", "h-rbac", ""),
	res("create", "", "serviceaccounts", "token", "h-rbac", "default"),
	res("get", "apiextensions.k8s.io", "customresourcedefinitions", "", "", "x"),
	res("list", "", "persistentvolumes", "", "", ""),
	res("get", "h-rbac.example.com", "widgets", "", "h-rbac", "w"),
	res("delete", "", "secrets", "", "kube-system", "bootstrap-token-abcdef"),
	res("update", "", "configmaps", "", "kube-public", "cluster-info"),
	res("impersonate", "", "users", "", "", "h-rbac-viewer"),
	res("impersonate", "", "users", "", "", "someone-else"),
	res("impersonate", "", "groups", "", "", "system:masters"),
	res("impersonate", "", "serviceaccounts", "", "h-rbac", "ns-admin"),
	res("impersonate", "authentication.k8s.io", "uids", "", "", "uid-1"),
	res("impersonate", "authentication.k8s.io", "userextras", "scopes", "", "view"),
	res("impersonate", "authentication.k8s.io", "userextras", "scopes", "", "admin"),
}

var paths = []authorizationv1.NonResourceAttributes{
	{Verb: "get", Path: "/healthz"},
	{Verb: "get", Path: "/livez/ping"},
	{Verb: "get", Path: "/readyz"},
	{Verb: "get", Path: "/version"},
	{Verb: "get", Path: "/api"},
	{Verb: "get", Path: "/apis/apps/v1"},
	{Verb: "get", Path: "/openapi/v2"},
	{Verb: "get", Path: "/metrics"},
	{Verb: "get", Path: "/.well-known/openid-configuration"},
	{Verb: "get", Path: "/openid/v1/jwks"},
	{Verb: "get", Path: "/h-rbac/a/b"},
	{Verb: "get", Path: "/h-rbac"},
	{Verb: "get", Path: "/exact"},
	{Verb: "get", Path: "/exactly"},
	{Verb: "post", Path: "/exact"},
	{Verb: "head", Path: "/anything"},
	{Verb: "get", Path: "/logs/kube-apiserver.log"},
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "admin kubeconfig of the server to ask")
	policy := flag.String("policy", "pkg/authorization/rbac/testdata/h-rbac-policy.json", "extra policy to write first")
	cleanup := flag.Bool("cleanup", false, "delete the extra policy afterwards")
	flag.Parse()
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		log.Fatal(err)
	}
	client := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()

	objs, err := readPolicy(*policy)
	if err != nil {
		log.Fatal(err)
	}
	for _, o := range objs {
		if err := apply(ctx, client, o); err != nil {
			log.Fatal(err)
		}
	}
	if *cleanup {
		defer func() {
			for _, o := range objs {
				if err := remove(ctx, client, o); err != nil {
					log.Print(err)
				}
			}
		}()
	}

	var cases []Case
	for _, u := range users {
		for _, r := range requests {
			cases = append(cases, Case{User: u.name, Groups: u.groups, Res: r})
		}
		for _, p := range paths {
			cases = append(cases, Case{User: u.name, Groups: u.groups, NonRes: &p})
		}
	}
	for i := range cases {
		c := &cases[i]
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: c.User, Groups: c.Groups, ResourceAttributes: c.Res, NonResourceAttributes: c.NonRes,
		}}
		out, err := client.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		if err != nil {
			log.Fatal(err)
		}
		if out.Status.EvaluationError != "" {
			log.Fatalf("case %d: evaluation error: %s", i, out.Status.EvaluationError)
		}
		c.Allowed, c.Denied, c.Reason = out.Status.Allowed, out.Status.Denied, out.Status.Reason
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(map[string]any{
		"recordedFrom": "kube-apiserver v1.37.1 (the oracle, --authorization-mode=Node,RBAC), by hack/rbac-decisions",
		"cases":        cases,
	}); err != nil {
		log.Fatal(err)
	}
}

// object is one RBAC object of the extra policy.
type object struct {
	Kind string `json:"kind"`
	raw  json.RawMessage
}

func readPolicy(path string) ([]object, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var list struct{ Items []json.RawMessage }
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, err
	}
	var out []object
	for _, raw := range list.Items {
		var o object
		if err := json.Unmarshal(raw, &o); err != nil {
			return nil, err
		}
		o.raw = raw
		out = append(out, o)
	}
	return out, nil
}

// apply creates o, or replaces it (keeping the stored resourceVersion).
func apply(ctx context.Context, c kubernetes.Interface, o object) error {
	r := c.RbacV1()
	switch o.Kind {
	case "Role":
		var x rbacv1.Role
		return upsert(ctx, o.raw, &x, func() error { _, err := r.Roles(x.Namespace).Create(ctx, &x, metav1.CreateOptions{}); return err },
			func() error {
				cur, err := r.Roles(x.Namespace).Get(ctx, x.Name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				x.ResourceVersion = cur.ResourceVersion
				_, err = r.Roles(x.Namespace).Update(ctx, &x, metav1.UpdateOptions{})
				return err
			})
	case "ClusterRole":
		var x rbacv1.ClusterRole
		return upsert(ctx, o.raw, &x, func() error { _, err := r.ClusterRoles().Create(ctx, &x, metav1.CreateOptions{}); return err },
			func() error {
				cur, err := r.ClusterRoles().Get(ctx, x.Name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				x.ResourceVersion = cur.ResourceVersion
				_, err = r.ClusterRoles().Update(ctx, &x, metav1.UpdateOptions{})
				return err
			})
	case "RoleBinding":
		var x rbacv1.RoleBinding
		// A binding's roleRef cannot change: replace by delete and create.
		return upsert(ctx, o.raw, &x, func() error {
			_, err := r.RoleBindings(x.Namespace).Create(ctx, &x, metav1.CreateOptions{})
			return err
		},
			func() error {
				if err := r.RoleBindings(x.Namespace).Delete(ctx, x.Name, metav1.DeleteOptions{}); err != nil {
					return err
				}
				_, err := r.RoleBindings(x.Namespace).Create(ctx, &x, metav1.CreateOptions{})
				return err
			})
	case "ClusterRoleBinding":
		var x rbacv1.ClusterRoleBinding
		return upsert(ctx, o.raw, &x, func() error { _, err := r.ClusterRoleBindings().Create(ctx, &x, metav1.CreateOptions{}); return err },
			func() error {
				if err := r.ClusterRoleBindings().Delete(ctx, x.Name, metav1.DeleteOptions{}); err != nil {
					return err
				}
				_, err := r.ClusterRoleBindings().Create(ctx, &x, metav1.CreateOptions{})
				return err
			})
	}
	return fmt.Errorf("unexpected kind %q", o.Kind)
}

func upsert(_ context.Context, raw json.RawMessage, into any, create, replace func() error) error {
	if err := json.Unmarshal(raw, into); err != nil {
		return err
	}
	err := create()
	if apierrors.IsAlreadyExists(err) {
		return replace()
	}
	return err
}

func remove(ctx context.Context, c kubernetes.Interface, o object) error {
	var m struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(o.raw, &m); err != nil {
		return err
	}
	r, opts, name, ns := c.RbacV1(), metav1.DeleteOptions{}, m.Metadata.Name, m.Metadata.Namespace
	switch o.Kind {
	case "Role":
		return r.Roles(ns).Delete(ctx, name, opts)
	case "ClusterRole":
		return r.ClusterRoles().Delete(ctx, name, opts)
	case "RoleBinding":
		return r.RoleBindings(ns).Delete(ctx, name, opts)
	case "ClusterRoleBinding":
		return r.ClusterRoleBindings().Delete(ctx, name, opts)
	}
	return nil
}
