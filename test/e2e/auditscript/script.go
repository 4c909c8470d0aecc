// Package auditscript is the fixed sequence of requests whose audit events
// kapi's end-to-end test compares with kube-apiserver's. The same script
// is run against the oracle to record its audit log (see record/) and
// against kapi by the test, so both logs describe the same requests.
package auditscript

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// UserAgent marks the script's requests, so that the events of other
// clients (the server's own loopback traffic) can be told apart.
const UserAgent = "audit-e2e"

// Namespace is where the script's objects live.
const Namespace = "audit-e2e"

// Policy is the audit policy both servers run with: every level, rules by
// user, group, verb, resource (with resourceNames and a subresource),
// namespace and non-resource URL, omitStages and omitManagedFields per
// rule and globally.
const Policy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitManagedFields: true
rules:
- level: None
  users: ["system:apiserver", "system:kube-controller-manager", "system:kube-scheduler"]
- level: None
  nonResourceURLs: ["/healthz*", "/livez*", "/readyz*"]
- level: Metadata
  nonResourceURLs: ["/version"]
  omitStages: ["RequestReceived"]
- level: RequestResponse
  resources:
  - group: ""
    resources: ["configmaps"]
    resourceNames: ["audit-rr"]
  omitManagedFields: false
- level: RequestResponse
  verbs: ["patch", "update"]
  resources:
  - group: ""
    resources: ["configmaps"]
- level: Request
  namespaces: ["audit-e2e"]
  resources:
  - group: ""
    resources: ["configmaps"]
  omitStages: ["RequestReceived"]
- level: Metadata
  users: ["alice"]
- level: Metadata
  userGroups: ["system:masters"]
  resources:
  - group: ""
    resources: ["secrets", "namespaces", "configmaps/status"]
- level: None
`

// Run runs the script: admin is a system:masters client, alice a user
// the server's authorizer denies reading secrets.
func Run(ctx context.Context, admin, alice *rest.Config) error {
	admin = rest.CopyConfig(admin)
	admin.UserAgent = UserAgent
	alice = rest.CopyConfig(alice)
	alice.UserAgent = UserAgent
	c, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return err
	}
	a, err := kubernetes.NewForConfig(alice)
	if err != nil {
		return err
	}
	step := func(name string, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}
	if _, err := c.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return step("create namespace", err)
	}
	cms := c.CoreV1().ConfigMaps(Namespace)
	rr := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "audit-rr", Labels: map[string]string{"app": "audit"}}, Data: map[string]string{"k": "v"}}
	if _, err := cms.Create(ctx, rr, metav1.CreateOptions{FieldManager: "audit-e2e"}); err != nil {
		return step("create audit-rr", err)
	}
	if _, err := cms.Get(ctx, "audit-rr", metav1.GetOptions{}); err != nil {
		return step("get audit-rr", err)
	}
	req := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "audit-req"}, Data: map[string]string{"a": "1"}}
	if _, err := cms.Create(ctx, req, metav1.CreateOptions{}); err != nil {
		return step("create audit-req", err)
	}
	list, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		return step("list", err)
	}
	timeout := int64(1)
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion, TimeoutSeconds: &timeout})
	if err != nil {
		return step("watch", err)
	}
	for range w.ResultChan() {
	}
	if _, err := cms.Patch(ctx, "audit-req", types.MergePatchType, []byte(`{"data":{"b":"2"}}`), metav1.PatchOptions{}); err != nil {
		return step("patch audit-req", err)
	}
	got, err := cms.Get(ctx, "audit-rr", metav1.GetOptions{})
	if err != nil {
		return step("get audit-rr", err)
	}
	got.Data["k"] = "w"
	if _, err := cms.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		return step("update audit-rr", err)
	}
	if _, err := cms.Get(ctx, "missing", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		return fmt.Errorf("get missing: want NotFound, got %v", err)
	}
	if _, err := a.CoreV1().Secrets(Namespace).Get(ctx, "s", metav1.GetOptions{}); !apierrors.IsForbidden(err) {
		return fmt.Errorf("get secret as alice: want Forbidden, got %v", err)
	}
	if _, err := c.Discovery().ServerVersion(); err != nil {
		return step("version", err)
	}
	if err := cms.Delete(ctx, "audit-req", metav1.DeleteOptions{}); err != nil {
		return step("delete audit-req", err)
	}
	if err := cms.Delete(ctx, "audit-rr", metav1.DeleteOptions{}); err != nil {
		return step("delete audit-rr", err)
	}
	if err := c.CoreV1().Namespaces().Delete(ctx, Namespace, metav1.DeleteOptions{}); err != nil {
		return step("delete namespace", err)
	}
	return nil
}
