// Package serviceaccount is the ServiceAccount admission plugin: every pod
// runs as a service account that exists, and gets its API credentials.
//
// On a pod's create, as kube-apiserver's plugin does, it
//   - names the "default" service account when the pod names none;
//   - refuses the pod when that service account does not exist (kube's
//     controller manager creates "default" in every namespace; a server
//     without it, like a bare kube-apiserver, refuses every such pod);
//   - unless the pod or else the service account turns
//     automountServiceAccountToken off, adds the projected volume
//     kube-api-access-<random> (a bound token, the cluster's CA and the
//     namespace) and mounts it in every init and regular container at
//     /var/run/secrets/kubernetes.io/serviceaccount, except in those
//     that already mount something there;
//   - copies the service account's imagePullSecrets when the pod has
//     none.
//
// Mirror pods (kubelet's static pods) are left as they are and refused if
// they name a service account, a secret or a token projection. A service
// account annotated kubernetes.io/enforce-mountable-secrets=true limits
// the secrets its pods (and the ephemeral containers added to them) may
// use to those it lists.
//
// The service account is read from an informer's cache and, when the
// cache does not have it, from the server: once, or ten times a little
// apart for "default", which the controller manager may be about to
// create.
package serviceaccount

import (
	"context"
	"fmt"
	mathrand "math/rand/v2"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "ServiceAccount"

const (
	// DefaultServiceAccountName is the service account of a pod that
	// names none.
	DefaultServiceAccountName = "default"
	// EnforceMountableSecretsAnnotation, "true" on a service account,
	// limits its pods to the secrets it lists.
	EnforceMountableSecretsAnnotation = "kubernetes.io/enforce-mountable-secrets"
	// VolumeNamePrefix starts the name of the token volume.
	VolumeNamePrefix = "kube-api-access-"
	// TokenMountPath is where containers find the token.
	TokenMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"
	// mirrorPodAnnotation marks a kubelet's mirror pod.
	mirrorPodAnnotation = "kubernetes.io/config.mirror"
	// tokenExpirationSeconds is the bound token's lifetime kube-apiserver
	// asks for: an hour and seven seconds, the odd value that lets it
	// tell these tokens from others (it extends them, and warns when
	// they are used past the hour).
	tokenExpirationSeconds = 3607
	// readyTimeout bounds how long a write waits for the first sync.
	readyTimeout = 10 * time.Second
)

// ServiceAccountGetter reads a service account from the server.
type ServiceAccountGetter interface {
	Get(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error)
}

// Config is what the plugin needs.
type Config struct {
	// Lister reads the informer's cache; HasSynced reports whether it has
	// synced once.
	Lister    corelisters.ServiceAccountLister
	HasSynced func() bool
	// Live reads a service account the cache does not have.
	Live ServiceAccountGetter
	// GenerateSuffix makes the random end of the token volume's name;
	// nil means kube's five random characters.
	GenerateSuffix func() string
	// RetryInterval is the wait between two live reads of "default"; zero
	// means kube's random 100 to 200ms.
	RetryInterval time.Duration
}

// Plugin is the plugin. It mutates (on create) and validates (on create,
// and on updates of pods/ephemeralcontainers).
type Plugin struct {
	admission.Handler
	lister         corelisters.ServiceAccountLister
	hasSynced      func() bool
	live           ServiceAccountGetter
	generateSuffix func() string
	retryInterval  time.Duration
}

// New returns the plugin.
func New(cfg Config) *Plugin {
	p := &Plugin{
		Handler:        admission.NewHandler(admission.Create, admission.Update),
		lister:         cfg.Lister,
		hasSynced:      cfg.HasSynced,
		live:           cfg.Live,
		generateSuffix: cfg.GenerateSuffix,
		retryInterval:  cfg.RetryInterval,
	}
	if p.generateSuffix == nil {
		p.generateSuffix = func() string { return utilrand.String(5) }
	}
	return p
}

// podOf is the pod of a write the plugin looks at: a pod itself or its
// ephemeralcontainers subresource.
func podOf(a *admission.Attributes) *corev1.Pod {
	if a.Resource.Group != "" || a.Resource.Resource != "pods" || a.Subresource != "" && a.Subresource != "ephemeralcontainers" {
		return nil
	}
	pod, _ := a.Object.(*corev1.Pod)
	return pod
}

// Admit gives a created pod its service account, token volume and image
// pull secrets, then validates it.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	pod := podOf(a)
	if pod == nil || a.Operation != admission.Create {
		return nil
	}
	if _, mirror := pod.Annotations[mirrorPodAnnotation]; mirror {
		return p.Validate(ctx, a)
	}
	if err := p.waitForSync(ctx, a); err != nil {
		return err
	}
	if pod.Spec.ServiceAccountName == "" {
		pod.Spec.ServiceAccountName = DefaultServiceAccountName
	}
	sa, err := p.serviceAccount(ctx, a.Namespace, pod.Spec.ServiceAccountName)
	if err != nil {
		return admission.NewForbidden(a, fmt.Errorf("error looking up service account %s/%s: %w", a.Namespace, pod.Spec.ServiceAccountName, err))
	}
	if automount(sa, pod) {
		p.mountToken(pod)
	}
	if len(pod.Spec.ImagePullSecrets) == 0 {
		pod.Spec.ImagePullSecrets = make([]corev1.LocalObjectReference, len(sa.ImagePullSecrets))
		for i, s := range sa.ImagePullSecrets {
			pod.Spec.ImagePullSecrets[i].Name = s.Name
		}
	}
	return p.Validate(ctx, a)
}

// Validate refuses a pod whose service account does not exist, a mirror
// pod that uses credentials, and secrets a service account that enforces
// mountable secrets does not list.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	pod := podOf(a)
	if pod == nil {
		return nil
	}
	if a.Operation == admission.Update && a.Subresource == "ephemeralcontainers" {
		return p.validateEphemeralContainers(ctx, a, pod)
	}
	if a.Operation != admission.Create {
		return nil
	}
	if _, mirror := pod.Annotations[mirrorPodAnnotation]; mirror {
		return validateMirrorPod(a, pod)
	}
	if pod.Spec.ServiceAccountName == "" {
		return admission.NewForbidden(a, fmt.Errorf("no service account specified for pod %s/%s", a.Namespace, pod.Name))
	}
	if err := p.waitForSync(ctx, a); err != nil {
		return err
	}
	sa, err := p.serviceAccount(ctx, a.Namespace, pod.Spec.ServiceAccountName)
	if err != nil {
		return admission.NewForbidden(a, fmt.Errorf("error looking up service account %s/%s: %v", a.Namespace, pod.Spec.ServiceAccountName, err))
	}
	if enforcesMountableSecrets(sa) {
		if err := limitSecretReferences(sa, pod); err != nil {
			return admission.NewForbidden(a, err)
		}
	}
	return nil
}

func validateMirrorPod(a *admission.Attributes, pod *corev1.Pod) error {
	if pod.Spec.ServiceAccountName != "" {
		return admission.NewForbidden(a, fmt.Errorf("a mirror pod may not reference service accounts"))
	}
	if len(secretNames(pod)) > 0 {
		return admission.NewForbidden(a, fmt.Errorf("a mirror pod may not reference secrets"))
	}
	for _, v := range pod.Spec.Volumes {
		if v.Projected == nil {
			continue
		}
		for _, s := range v.Projected.Sources {
			if s.ServiceAccountToken != nil {
				return admission.NewForbidden(a, fmt.Errorf("a mirror pod may not use ServiceAccountToken volume projections"))
			}
		}
	}
	return nil
}

func (p *Plugin) validateEphemeralContainers(ctx context.Context, a *admission.Attributes, pod *corev1.Pod) error {
	if pod.Spec.ServiceAccountName == "" {
		return admission.NewForbidden(a, fmt.Errorf("no service account specified for pod %s/%s", a.Namespace, pod.Name))
	}
	if err := p.waitForSync(ctx, a); err != nil {
		return err
	}
	sa, err := p.serviceAccount(ctx, a.Namespace, pod.Spec.ServiceAccountName)
	if err != nil {
		return admission.NewForbidden(a, fmt.Errorf("error looking up service account %s/%s: %w", a.Namespace, pod.Spec.ServiceAccountName, err))
	}
	if !enforcesMountableSecrets(sa) {
		return nil
	}
	mountable := listedSecrets(sa)
	for _, c := range pod.Spec.EphemeralContainers {
		// kube-apiserver returns this refusal as it is: an error that is
		// not a Status, which clients see as a 500.
		if err := checkEnv("ephemeral container", c.Name, c.Env, c.EnvFrom, mountable, sa.Name); err != nil {
			return err
		}
	}
	return nil
}

// automount says whether the pod gets the token: the pod's choice, else
// the service account's, else yes.
func automount(sa *corev1.ServiceAccount, pod *corev1.Pod) bool {
	if pod.Spec.AutomountServiceAccountToken != nil {
		return *pod.Spec.AutomountServiceAccountToken
	}
	if sa.AutomountServiceAccountToken != nil {
		return *sa.AutomountServiceAccountToken
	}
	return true
}

// mountToken adds the token volume, or reuses a kube-api-access- volume
// the pod has, and mounts it in every init and regular container that
// mounts nothing at TokenMountPath.
func (p *Plugin) mountToken(pod *corev1.Pod) {
	name, has := "", false
	for _, v := range pod.Spec.Volumes {
		if strings.HasPrefix(v.Name, VolumeNamePrefix) {
			name, has = v.Name, true
			break
		}
	}
	if name == "" {
		name = VolumeNamePrefix + p.generateSuffix()
	}
	mount := corev1.VolumeMount{Name: name, ReadOnly: true, MountPath: TokenMountPath}
	needed := false
	for _, containers := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range containers {
			if mountsTokenPath(containers[i]) {
				continue
			}
			containers[i].VolumeMounts = append(containers[i].VolumeMounts, mount)
			needed = true
		}
	}
	if needed && !has {
		pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Projected: TokenVolumeSource()}})
	}
}

func mountsTokenPath(c corev1.Container) bool {
	for _, m := range c.VolumeMounts {
		if m.MountPath == TokenMountPath {
			return true
		}
	}
	return false
}

// TokenVolumeSource is the projected volume of a pod's API credentials:
// a bound service account token, the cluster's CA bundle (the
// kube-root-ca.crt config map kube's controller manager publishes in
// every namespace) and the pod's namespace.
func TokenVolumeSource() *corev1.ProjectedVolumeSource {
	return &corev1.ProjectedVolumeSource{
		DefaultMode: ptr.To(corev1.ProjectedVolumeSourceDefaultMode),
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To[int64](tokenExpirationSeconds)}},
			{ConfigMap: &corev1.ConfigMapProjection{
				LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
				Items:                []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}},
			}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{
				Path:     "namespace",
				FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"},
			}}}},
		},
	}
}

func enforcesMountableSecrets(sa *corev1.ServiceAccount) bool {
	v, ok := sa.Annotations[EnforceMountableSecretsAnnotation]
	if !ok {
		return false
	}
	b, _ := strconv.ParseBool(v)
	return b
}

func listedSecrets(sa *corev1.ServiceAccount) map[string]bool {
	m := map[string]bool{}
	for _, s := range sa.Secrets {
		m[s.Name] = true
	}
	return m
}

// limitSecretReferences refuses the secrets of volumes, of init and
// regular containers' environments and of image pulls the service
// account does not list.
func limitSecretReferences(sa *corev1.ServiceAccount, pod *corev1.Pod) error {
	mountable := listedSecrets(sa)
	for _, v := range pod.Spec.Volumes {
		if v.Secret != nil && !mountable[v.Secret.SecretName] {
			return fmt.Errorf("volume with secret.secretName=%q is not allowed because service account %s does not reference that secret", v.Secret.SecretName, sa.Name)
		}
	}
	for _, c := range pod.Spec.InitContainers {
		if err := checkEnv("init container", c.Name, c.Env, c.EnvFrom, mountable, sa.Name); err != nil {
			return err
		}
	}
	for _, c := range pod.Spec.Containers {
		if err := checkEnv("container", c.Name, c.Env, c.EnvFrom, mountable, sa.Name); err != nil {
			return err
		}
	}
	pull := map[string]bool{}
	for _, s := range sa.ImagePullSecrets {
		pull[s.Name] = true
	}
	for i, ref := range pod.Spec.ImagePullSecrets {
		if !pull[ref.Name] {
			return fmt.Errorf("imagePullSecrets[%d].name=%q is not allowed because service account %s does not reference that imagePullSecret", i, ref.Name, sa.Name)
		}
	}
	return nil
}

func checkEnv(what, container string, env []corev1.EnvVar, envFrom []corev1.EnvFromSource, mountable map[string]bool, sa string) error {
	for _, e := range env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && !mountable[e.ValueFrom.SecretKeyRef.Name] {
			return fmt.Errorf("%s %s with envVar %s referencing secret.secretName=%q is not allowed because service account %s does not reference that secret", what, container, e.Name, e.ValueFrom.SecretKeyRef.Name, sa)
		}
	}
	for _, e := range envFrom {
		if e.SecretRef != nil && !mountable[e.SecretRef.Name] {
			return fmt.Errorf("%s %s with envFrom referencing secret.secretName=%q is not allowed because service account %s does not reference that secret", what, container, e.SecretRef.Name, sa)
		}
	}
	return nil
}

// serviceAccount reads the service account from the cache, else from the
// server, and is a NotFound (of kube's resource "serviceaccount") when
// neither has it.
func (p *Plugin) serviceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
	sa, err := p.lister.ServiceAccounts(namespace).Get(name)
	if err == nil {
		return sa, nil
	}
	if !apierrors.IsNotFound(err) {
		return nil, err
	}
	attempts := 1
	if name == DefaultServiceAccountName {
		attempts = 10
	}
	interval := p.retryInterval
	if interval == 0 {
		interval = time.Duration(100+mathrand.IntN(100)) * time.Millisecond
	}
	for i := range attempts {
		if i > 0 {
			t := time.NewTimer(interval)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			}
		}
		sa, err := p.live.Get(ctx, namespace, name)
		if err == nil {
			return sa, nil
		}
		if !apierrors.IsNotFound(err) {
			return nil, err
		}
	}
	return nil, apierrors.NewNotFound(corev1.Resource("serviceaccount"), name)
}

// waitForSync waits, at most readyTimeout, for the cache's first sync, as
// kube-apiserver's plugins wait for their informers.
func (p *Plugin) waitForSync(ctx context.Context, a *admission.Attributes) error {
	if p.hasSynced() {
		return nil
	}
	deadline := time.Now().Add(readyTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return admission.NewForbidden(a, fmt.Errorf("not yet ready to handle request"))
		case <-time.After(100 * time.Millisecond):
		}
		if p.hasSynced() {
			return nil
		}
	}
	return admission.NewForbidden(a, fmt.Errorf("not yet ready to handle request"))
}

// GetterFunc adapts a function to ServiceAccountGetter.
type GetterFunc func(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error)

func (f GetterFunc) Get(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
	return f(ctx, namespace, name)
}
