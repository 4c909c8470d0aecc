package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// admissionOptions configures the admission suite.
type admissionOptions struct {
	// pods is how many pods each run creates (with the api suite's --c
	// workers).
	pods int
	// webhooks is how many validating webhooks, served by the bench on
	// loopback, match every pod create.
	webhooks int
	// policies is how many ValidatingAdmissionPolicies, each bound to
	// every namespace, match every pod create.
	policies int
}

// runAdmission measures pod creates through the server's admission: the
// built-in plugins the server runs (compare a server started with and
// without --disable-admission-plugins), then --webhooks validating
// webhooks served by the bench, or --policies ValidatingAdmissionPolicies,
// which every create must pass.
func runAdmission(ctx context.Context, o apiOptions, ao admissionOptions, p *printer) error {
	env, err := connect(o, p)
	if err != nil {
		return err
	}
	defer env.close()
	p.comment("admission: %d pods per run, %d workers, %d validating webhooks, %d validating admission policies", ao.pods, o.c, ao.webhooks, ao.policies)
	// calls counts the reviews the bench's webhooks answer, to show that
	// the server called each webhook for each pod.
	var calls atomic.Int64
	if ao.webhooks > 0 {
		cleanup, err := env.installWebhooks(ctx, ao.webhooks, &calls, p)
		if err != nil {
			return err
		}
		defer cleanup()
	}
	if ao.policies > 0 {
		cleanup, err := env.installPolicies(ctx, ao.policies)
		if err != nil {
			return err
		}
		defer cleanup()
	}
	return env.runRuns(ctx, "admission", p, func(ctx context.Context, ns string, r *result, p *printer) error {
		// No controller creates the default service account on a bare
		// API server; the ServiceAccount plugin refuses pods without it.
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
		if _, err := env.admin.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating the default service account: %w", err)
		}
		pods := env.cs.CoreV1().Pods(ns)
		callsBefore := calls.Load()
		ph := runConcurrent(ctx, ao.pods, o.c, func(ctx context.Context, i int) error {
			_, err := pods.Create(ctx, benchPod(i), metav1.CreateOptions{})
			return err
		})
		recordPhase(r, p, "create", "create_pods_per_s", ph)
		if ao.webhooks > 0 {
			r.addInt("webhook_calls", calls.Load()-callsBefore)
		}
		if o.cleanup {
			if err := pods.DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}, metav1.ListOptions{}); err != nil {
				p.comment("deleting the pods of %s: %v", ns, err)
			}
		}
		return ctx.Err()
	})
}

// benchPod is the i-th pod of a run: one container with requests and
// limits, the kind of pod LimitRanger, PodSecurity and ResourceQuota all
// look at.
func benchPod(i int) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pod-%06d", i), Labels: map[string]string{"app": "kapi-bench"}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name:  "c",
				Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi")},
					Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
				},
			}},
		},
	}
}

// addAdmissionFlags registers the admission suite's flags.
func addAdmissionFlags(fs *pflag.FlagSet, o *admissionOptions) {
	fs.IntVar(&o.pods, "pods", 2000, "admission: pods each run creates, with --c workers")
	fs.IntVar(&o.webhooks, "webhooks", 0, "admission: validating webhooks, served by the bench on loopback, that every pod create calls")
	fs.IntVar(&o.policies, "policies", 0, "admission: ValidatingAdmissionPolicies, bound to every namespace, that every pod create passes")
}

// installWebhooks serves n validating webhooks that allow everything on a
// loopback HTTPS server of the bench's own, and registers each for pod
// creates. The returned function removes them and stops the server.
func (env *apiEnv) installWebhooks(ctx context.Context, n int, calls *atomic.Int64, p *printer) (func(), error) {
	cert, caPEM, err := selfSignedServing()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	allow := func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		allowReview(w, r)
	}
	srv := &http.Server{Handler: http.HandlerFunc(allow), TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}}
	go srv.ServeTLS(ln, "", "")
	url := fmt.Sprintf("https://%s/validate", ln.Addr())
	p.comment("webhooks served at %s", url)

	client := env.admin.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	var names []string
	cleanup := func() {
		for _, name := range names {
			_ = client.Delete(context.Background(), name, metav1.DeleteOptions{})
		}
		_ = srv.Close()
	}
	for i := range n {
		cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("kapi-bench-%d", i)},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name:                    fmt.Sprintf("bench-%d.kapi.dev", i),
				ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: caPEM},
				Rules:                   []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create}, Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}},
				SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
				AdmissionReviewVersions: []string{"v1"},
				FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			}},
		}
		if _, err := client.Create(ctx, cfg, metav1.CreateOptions{}); err != nil {
			cleanup()
			return nil, fmt.Errorf("registering webhook %d: %w", i, err)
		}
		names = append(names, cfg.Name)
	}
	// Servers apply configurations from their informers: give the last
	// one a moment to arrive.
	time.Sleep(2 * time.Second)
	return cleanup, nil
}

// allowReview answers every AdmissionReview with allowed.
func allowReview(w http.ResponseWriter, r *http.Request) {
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "bad review", http.StatusBadRequest)
		return
	}
	review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
	review.Request = nil
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&review)
}

// installPolicies creates n ValidatingAdmissionPolicies that check every
// pod create with one expression that holds, each bound to all
// namespaces.
func (env *apiEnv) installPolicies(ctx context.Context, n int) (func(), error) {
	policies := env.admin.AdmissionregistrationV1().ValidatingAdmissionPolicies()
	bindings := env.admin.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings()
	var names []string
	cleanup := func() {
		for _, name := range names {
			_ = bindings.Delete(context.Background(), name, metav1.DeleteOptions{})
			_ = policies.Delete(context.Background(), name, metav1.DeleteOptions{})
		}
	}
	for i := range n {
		name := fmt.Sprintf("kapi-bench-%d", i)
		policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				FailurePolicy: ptr.To(admissionregistrationv1.Fail),
				MatchConstraints: &admissionregistrationv1.MatchResources{
					ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
						Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
					}}},
				},
				Validations: []admissionregistrationv1.Validation{{Expression: "object.spec.containers.all(c, c.name.size() < 64)"}},
			},
		}
		if _, err := policies.Create(ctx, policy, metav1.CreateOptions{}); err != nil {
			cleanup()
			return nil, fmt.Errorf("creating policy %d: %w", i, err)
		}
		names = append(names, name)
		binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
				PolicyName:        name,
				ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			},
		}
		if _, err := bindings.Create(ctx, binding, metav1.CreateOptions{}); err != nil {
			cleanup()
			return nil, fmt.Errorf("binding policy %d: %w", i, err)
		}
	}
	time.Sleep(2 * time.Second)
	return cleanup, nil
}

// selfSignedServing is a serving certificate for 127.0.0.1 that is its
// own CA, and its PEM for a caBundle.
func selfSignedServing() (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "kapi-bench-webhook"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}
