package podsecurity

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/podsecurity/policy"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
)

func TestLoadConfiguration(t *testing.T) {
	for _, tc := range []struct {
		name    string
		data    string
		want    *Configuration
		wantErr string
	}{{
		name: "none is everything privileged at latest, nothing exempt",
		want: &Configuration{Defaults: Defaults{Enforce: "privileged", EnforceVersion: "latest", Audit: "privileged", AuditVersion: "latest", Warn: "privileged", WarnVersion: "latest"}},
	}, {
		name: "unset defaults are privileged and latest",
		data: `{"apiVersion":"pod-security.admission.config.k8s.io/v1beta1","kind":"PodSecurityConfiguration","defaults":{"enforce":"baseline","warn-version":"v1.25"},"exemptions":{"usernames":["ci"]}}`,
		want: &Configuration{APIVersion: "pod-security.admission.config.k8s.io/v1beta1", Kind: "PodSecurityConfiguration",
			Defaults:   Defaults{Enforce: "baseline", EnforceVersion: "latest", Audit: "privileged", AuditVersion: "latest", Warn: "privileged", WarnVersion: "v1.25"},
			Exemptions: Exemptions{Usernames: []string{"ci"}}},
	}, {
		name:    "levels and versions are checked",
		data:    "apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\ndefaults: {enforce: strict, audit-version: v2}\n",
		wantErr: `[defaults.enforce: Invalid value: "strict": must be one of privileged, baseline, restricted, defaults.audit-version: Invalid value: "v2": must be "latest" or "v1.x"]`,
	}, {
		name:    "exemptions are valid and unique",
		data:    "apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\nexemptions: {namespaces: [a, a, B], runtimeClasses: [x_y], usernames: [\"\", u, u]}\n",
		wantErr: `[exemptions.namespaces[1]: Duplicate value: "a", exemptions.namespaces[2]: Invalid value: "B": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), exemptions.runtimeClasses[0]: Invalid value: "x_y": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), exemptions.usernames[0]: Invalid value: "": username must not be empty, exemptions.usernames[2]: Duplicate value: "u"]`,
	}, {
		name:    "another kind is refused",
		data:    `{"apiVersion":"pod-security.admission.config.k8s.io/v1","kind":"Other"}`,
		wantErr: `no kind "Other" is registered for version "pod-security.admission.config.k8s.io/v1"`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var data []byte
			if tc.data != "" {
				data = []byte(tc.data)
			}
			got, err := LoadConfiguration(data)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Error(diff)
			}
		})
	}
}

// A namespace's labels override the defaults mode by mode; an enforce
// level alone also sets warn to it when that is stricter.
func TestPolicyFromLabels(t *testing.T) {
	lv := func(l policy.Level, v policy.Version) policy.LevelVersion {
		return policy.LevelVersion{Level: l, Version: v}
	}
	defaults := policy.Policy{Enforce: lv(policy.Privileged, policy.Latest), Audit: lv(policy.Baseline, policy.V1(20)), Warn: lv(policy.Baseline, policy.Latest)}
	for _, tc := range []struct {
		labels map[string]string
		want   policy.Policy
		errs   int
	}{
		{nil, defaults, 0},
		{map[string]string{policy.EnforceLevelLabel: "restricted", policy.EnforceVersionLabel: "v1.22"},
			policy.Policy{Enforce: lv(policy.Restricted, policy.V1(22)), Audit: defaults.Audit, Warn: lv(policy.Restricted, policy.V1(22))}, 0},
		{map[string]string{policy.EnforceLevelLabel: "restricted", policy.WarnVersionLabel: "v1.3"},
			policy.Policy{Enforce: lv(policy.Restricted, policy.Latest), Audit: defaults.Audit, Warn: lv(policy.Restricted, policy.V1(3))}, 0},
		{map[string]string{policy.EnforceLevelLabel: "privileged"}, defaults, 0},
		{map[string]string{policy.EnforceLevelLabel: "restricted", policy.WarnLevelLabel: "privileged"},
			policy.Policy{Enforce: lv(policy.Restricted, policy.Latest), Audit: defaults.Audit, Warn: lv(policy.Privileged, policy.Latest)}, 0},
		// Unreadable labels fail closed for enforce, open for the others.
		{map[string]string{policy.EnforceLevelLabel: "x", policy.AuditLevelLabel: "y", policy.WarnLevelLabel: "z", policy.EnforceVersionLabel: "v1"},
			policy.Policy{Enforce: lv(policy.Restricted, policy.Latest), Audit: lv(policy.Privileged, policy.V1(20)), Warn: lv(policy.Privileged, policy.Latest)}, 4},
	} {
		got, errs := policy.FromLabels(tc.labels, defaults)
		if got != tc.want || len(errs) != tc.errs {
			t.Errorf("%v: got %v (%d errors), want %v (%d errors)", tc.labels, got, len(errs), tc.want, tc.errs)
		}
	}
}

// fixedNamespaces is a NamespaceGetter over a fixed set.
type fixedNamespaces map[string]*corev1.Namespace

func (n fixedNamespaces) GetNamespace(_ context.Context, name string) (*corev1.Namespace, error) {
	if ns, ok := n[name]; ok {
		return ns, nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
}

type podList []*corev1.Pod

func (p podList) ListPods(context.Context, string) ([]*corev1.Pod, error) {
	return slices.Clone(p), nil
}

func labelled(name string, labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func plainPod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "pause"}}}}
}

// run validates a with a warning recorder and an audit context, and
// returns the error, the warnings and the audit annotations.
func run(p *Plugin, a *admission.Attributes) (error, []string, map[string]string) {
	rec := warning.NewRecorder(http.Header{})
	audit := auditcontext.New("id")
	audit.Init(auditcontext.LevelMetadata, false)
	ctx := auditcontext.With(warning.WithRecorder(context.Background(), rec), audit)
	err := p.Validate(ctx, a)
	return err, rec.Texts(), audit.Recorded().Annotations
}

func createPod(pod *corev1.Pod, username string) *admission.Attributes {
	return &admission.Attributes{Name: pod.Name, Namespace: pod.Namespace, Operation: admission.Create,
		Resource: corev1.SchemeGroupVersion.WithResource("pods"), Kind: corev1.SchemeGroupVersion.WithKind("Pod"),
		Object: pod, User: &user.DefaultInfo{Name: username}}
}

// Each outcome leaves kube-apiserver's audit annotations.
func TestAuditAnnotations(t *testing.T) {
	cfg, err := LoadConfiguration([]byte(`{"apiVersion":"pod-security.admission.config.k8s.io/v1","kind":"PodSecurityConfiguration","exemptions":{"usernames":["ci"],"runtimeClasses":["kata"],"namespaces":["free"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	ns := fixedNamespaces{
		"ns":         labelled("ns", map[string]string{policy.EnforceLevelLabel: "baseline", policy.AuditLevelLabel: "restricted", policy.AuditVersionLabel: "v1.24"}),
		"privileged": labelled("privileged", nil),
		"broken":     labelled("broken", map[string]string{policy.EnforceLevelLabel: "nope"}),
		"free":       labelled("free", map[string]string{policy.EnforceLevelLabel: "restricted"}),
	}
	p, err := New(Config{Configuration: cfg, Namespaces: ns})
	if err != nil {
		t.Fatal(err)
	}
	inNamespace := func(name string) *corev1.Pod { pod := plainPod("p"); pod.Namespace = name; return pod }
	kata := plainPod("p")
	kata.Spec.RuntimeClassName = ptr.To("kata")
	const restrictedV124 = `would violate PodSecurity "restricted:v1.24": allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`
	for _, tc := range []struct {
		name    string
		a       *admission.Attributes
		refused bool
		want    map[string]string
	}{
		{"evaluated", createPod(plainPod("p"), "u"), false, map[string]string{
			"pod-security.kubernetes.io/enforce-policy":   "baseline:latest",
			"pod-security.kubernetes.io/audit-violations": restrictedV124,
		}},
		{"privileged namespace", createPod(inNamespace("privileged"), "u"), false, map[string]string{
			"pod-security.kubernetes.io/enforce-policy": "privileged:latest",
		}},
		{"unreadable labels", createPod(inNamespace("broken"), "u"), true, map[string]string{
			"pod-security.kubernetes.io/enforce-policy": "restricted:latest",
			"pod-security.kubernetes.io/error":          `Failed to parse policy: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "nope": must be one of privileged, baseline, restricted`,
		}},
		{"exempt user", createPod(plainPod("p"), "ci"), false, map[string]string{"pod-security.kubernetes.io/exempt": "user"}},
		{"exempt namespace", createPod(inNamespace("free"), "u"), false, map[string]string{"pod-security.kubernetes.io/exempt": "namespace"}},
		{"exempt runtime class", createPod(kata, "u"), false, map[string]string{"pod-security.kubernetes.io/exempt": "runtimeClass"}},
		{"missing namespace", createPod(inNamespace("gone"), "u"), true, map[string]string{
			"pod-security.kubernetes.io/error": `Internal error occurred: failed to lookup namespace "gone": namespaces "gone" not found`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err, _, got := run(p, tc.a)
			if (err != nil) != tc.refused {
				t.Fatalf("err %v, refused %v", err, tc.refused)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Error(diff)
			}
		})
	}
}

// A namespace whose labels were already unreadable may be updated as
// long as they stay as wrong as they were.
func TestNamespaceUpdateKeepsOldErrors(t *testing.T) {
	p, err := New(Config{Namespaces: fixedNamespaces{}})
	if err != nil {
		t.Fatal(err)
	}
	update := func(oldLabels, newLabels map[string]string) error {
		err, _, _ := run(p, &admission.Attributes{Name: "ns", Operation: admission.Update,
			Resource: corev1.SchemeGroupVersion.WithResource("namespaces"), Kind: corev1.SchemeGroupVersion.WithKind("Namespace"),
			Object: labelled("ns", newLabels), OldObject: labelled("ns", oldLabels)})
		return err
	}
	bad := map[string]string{policy.EnforceLevelLabel: "bad"}
	worse := map[string]string{policy.EnforceLevelLabel: "worse"}
	if err := update(bad, map[string]string{policy.EnforceLevelLabel: "bad", "other": "x"}); err != nil {
		t.Errorf("unchanged wrong labels: %v", err)
	}
	if err := update(bad, worse); !apierrors.IsInvalid(err) {
		t.Errorf("changed wrong labels: %v, want Invalid", err)
	}
	if err := update(nil, bad); !apierrors.IsInvalid(err) {
		t.Errorf("new wrong labels: %v, want Invalid", err)
	}
}

// A stricter enforce level checks at most 3000 existing pods, one of
// each controller first, and skips pods of exempt runtime classes.
func TestExistingPodsCheck(t *testing.T) {
	cfg, err := LoadConfiguration([]byte(`{"apiVersion":"pod-security.admission.config.k8s.io/v1","kind":"PodSecurityConfiguration","exemptions":{"runtimeClasses":["kata"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	var pods podList
	// 3000 pods of one controller, then one privileged pod of its own:
	// only the controller's first pod and the privileged one fit in the
	// first 3000 once one pod per controller goes first.
	for i := range 3000 {
		pod := plainPod(fmt.Sprintf("rs-%04d", i))
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: types.UID("rs"), Controller: ptr.To(true)}}
		pods = append(pods, pod)
	}
	privileged := plainPod("solo")
	privileged.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
	kata := plainPod("kata")
	kata.Spec.RuntimeClassName = ptr.To("kata")
	kata.Spec.HostPID = true
	pods = append(pods, privileged, kata)
	p, err := New(Config{Configuration: cfg, Namespaces: fixedNamespaces{}, Pods: pods})
	if err != nil {
		t.Fatal(err)
	}
	_, warnings, _ := run(p, &admission.Attributes{Name: "ns", Operation: admission.Update,
		Resource: corev1.SchemeGroupVersion.WithResource("namespaces"), Kind: corev1.SchemeGroupVersion.WithKind("Namespace"),
		Object: labelled("ns", map[string]string{policy.EnforceLevelLabel: "baseline"}), OldObject: labelled("ns", nil)})
	want := []string{
		"new PodSecurity enforce level only checked against the first 3000 of 3001 existing pods",
		`existing pods in namespace "ns" violate the new PodSecurity enforce level "baseline:latest"`,
		"solo: privileged",
	}
	if diff := cmp.Diff(want, warnings); diff != "" {
		t.Error(diff)
	}
	// At restricted every pod checked violates it the same way but
	// the privileged one.
	_, warnings, _ = run(p, &admission.Attributes{Name: "ns", Operation: admission.Update,
		Resource: corev1.SchemeGroupVersion.WithResource("namespaces"), Kind: corev1.SchemeGroupVersion.WithKind("Namespace"),
		Object: labelled("ns", map[string]string{policy.EnforceLevelLabel: "restricted"}), OldObject: labelled("ns", map[string]string{policy.EnforceLevelLabel: "baseline"})})
	want = []string{
		"new PodSecurity enforce level only checked against the first 3000 of 3001 existing pods",
		`existing pods in namespace "ns" violate the new PodSecurity enforce level "restricted:latest"`,
		"rs-0000 (and 2998 other pods): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile",
		"solo: privileged, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile",
	}
	if diff := cmp.Diff(want, warnings); diff != "" {
		t.Error(diff)
	}
}

type failingPods struct{}

func (failingPods) ListPods(context.Context, string) ([]*corev1.Pod, error) {
	return nil, errors.New("no cache")
}

// A namespace's pods that cannot be listed are reported, not refused.
func TestExistingPodsUnlisted(t *testing.T) {
	p, err := New(Config{Namespaces: fixedNamespaces{}, Pods: failingPods{}})
	if err != nil {
		t.Fatal(err)
	}
	err, warnings, _ := run(p, &admission.Attributes{Name: "ns", Operation: admission.Update,
		Resource: corev1.SchemeGroupVersion.WithResource("namespaces"), Kind: corev1.SchemeGroupVersion.WithKind("Namespace"),
		Object: labelled("ns", map[string]string{policy.EnforceLevelLabel: "baseline"}), OldObject: labelled("ns", nil)})
	if err != nil || !slices.Equal(warnings, []string{"failed to list pods while checking new PodSecurity enforce level"}) {
		t.Errorf("err %v, warnings %q", err, warnings)
	}
}

// For a while after the plugin admitted a change of a namespace, its
// pods are checked against the namespace read from the server, not the
// cache, which may not have caught up.
func TestJustChangedNamespaceIsReadLive(t *testing.T) {
	stale := fixedNamespaces{"ns": labelled("ns", nil)}
	live := fixedNamespaces{"ns": labelled("ns", map[string]string{policy.EnforceLevelLabel: "baseline"})}
	p, err := New(Config{Namespaces: stale, Live: live, Pods: podList{}})
	if err != nil {
		t.Fatal(err)
	}
	privileged := plainPod("p")
	privileged.Spec.HostPID = true
	if err, _, _ := run(p, createPod(privileged, "u")); err != nil {
		t.Fatalf("before the change, the cache's namespace: %v", err)
	}
	_, _, _ = run(p, &admission.Attributes{Name: "ns", Operation: admission.Update,
		Resource: corev1.SchemeGroupVersion.WithResource("namespaces"), Kind: corev1.SchemeGroupVersion.WithKind("Namespace"),
		Object: live["ns"], OldObject: stale["ns"]})
	err, _, _ = run(p, createPod(privileged, "u"))
	if err == nil || !strings.Contains(err.Error(), `violates PodSecurity "baseline:latest": host namespaces (hostPID=true)`) {
		t.Errorf("after the change: %v", err)
	}
}
