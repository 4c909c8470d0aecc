// Package limitranger is the LimitRanger admission plugin: the
// LimitRanges of a namespace default the resources of the containers of
// its pods, and bound what its pods and persistent volume claims ask for.
//
// As kube-apiserver's plugin, on a pod's create it
//   - gives every container and init container the default requests and
//     limits of the Container limits it lacks, and notes what it set in
//     the pod's kubernetes.io/limit-ranger annotation (mutating phase);
//   - then refuses the pod when a container, or the pod as a whole, is
//     under a min, over a max, or over a maxLimitRequestRatio (validating
//     phase, so that it sees every default, a webhook's included).
//
// A claim's storage request is held to the PersistentVolumeClaim limits'
// min and max, on create and on update (a resize). Pod updates are not
// checked: containers' resources may not change but through pods/resize,
// a subresource the plugin leaves alone.
//
// LimitRanges are read from an informer's cache; when it has none for
// the namespace, they are listed from the server, and that answer is
// kept for 30 seconds, so that a LimitRange created a moment ago applies
// at once.
package limitranger

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	utilcache "k8s.io/apimachinery/pkg/util/cache"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	corelisters "k8s.io/client-go/listers/core/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "LimitRanger"

// Annotation notes the defaults the plugin gave a pod.
const Annotation = "kubernetes.io/limit-ranger"

const (
	liveTTL     = 30 * time.Second
	liveEntries = 4096
)

// Lister lists a namespace's LimitRanges from the server.
type Lister interface {
	List(ctx context.Context, namespace string) ([]corev1.LimitRange, error)
}

// ListerFunc adapts a function to Lister.
type ListerFunc func(ctx context.Context, namespace string) ([]corev1.LimitRange, error)

func (f ListerFunc) List(ctx context.Context, namespace string) ([]corev1.LimitRange, error) {
	return f(ctx, namespace)
}

// Config is what the plugin needs.
type Config struct {
	// Lister reads LimitRanges from an informer's cache; Live lists them
	// from the server when the cache has none.
	Lister corelisters.LimitRangeLister
	Live   Lister
	// PodLevelResources is the feature gate of the same name: a pod's
	// own resources, when it states them, are the pod's requests and
	// limits a Pod limit checks.
	PodLevelResources bool
}

// Plugin is the plugin, mutating and validating creates and updates.
type Plugin struct {
	admission.Handler
	lister            corelisters.LimitRangeLister
	live              Lister
	podLevelResources bool

	liveMu    sync.Mutex
	liveCache *utilcache.LRUExpireCache
}

// New returns the plugin.
func New(cfg Config) *Plugin {
	return &Plugin{
		Handler:           admission.NewHandler(admission.Create, admission.Update),
		lister:            cfg.Lister,
		live:              cfg.Live,
		podLevelResources: cfg.PodLevelResources,
		liveCache:         utilcache.NewLRUExpireCache(liveEntries),
	}
}

// Admit defaults the resources of a created pod's containers.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	return p.run(ctx, a, func(lr *corev1.LimitRange, obj any) error {
		if pod, ok := obj.(*corev1.Pod); ok {
			setDefaults(lr, pod)
		}
		return nil
	})
}

// Validate holds a pod or claim to the namespace's LimitRanges.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	return p.run(ctx, a, func(lr *corev1.LimitRange, obj any) error {
		switch obj := obj.(type) {
		case *corev1.Pod:
			return p.validatePod(lr, obj)
		case *corev1.PersistentVolumeClaim:
			return validateClaim(lr, obj)
		}
		return nil
	})
}

func (p *Plugin) run(ctx context.Context, a *admission.Attributes, fn func(*corev1.LimitRange, any) error) error {
	if a.Subresource != "" || a.Kind.Group != "" {
		return nil
	}
	switch {
	case a.Kind.Kind == "Pod" && a.Operation == admission.Create:
	case a.Kind.Kind == "PersistentVolumeClaim":
	default:
		return nil
	}
	// An object being deleted is left alone.
	if a.OldObject != nil {
		old, err := meta.Accessor(a.OldObject)
		if err != nil {
			return admission.NewForbidden(a, err)
		}
		if old.GetDeletionTimestamp() != nil {
			return nil
		}
	}
	ranges, err := p.limitRanges(ctx, a)
	if err != nil {
		return err
	}
	for _, lr := range ranges {
		if err := fn(lr, a.Object); err != nil {
			return admission.NewForbidden(a, err)
		}
	}
	return nil
}

type liveEntry struct {
	expiry time.Time
	items  []*corev1.LimitRange
}

// limitRanges are the namespace's LimitRanges: the cache's, or, when it
// has none, the server's as listed in the last liveTTL.
func (p *Plugin) limitRanges(ctx context.Context, a *admission.Attributes) ([]*corev1.LimitRange, error) {
	items, err := p.lister.LimitRanges(a.Namespace).List(labels.Everything())
	if err != nil {
		return nil, admission.NewForbidden(a, fmt.Errorf("unable to %s %v at this time because there was an error enforcing limit ranges", a.Operation, a.Resource))
	}
	if len(items) > 0 {
		return items, nil
	}
	p.liveMu.Lock()
	defer p.liveMu.Unlock()
	if e, ok := p.liveCache.Get(a.Namespace); ok && e.(liveEntry).expiry.After(time.Now()) {
		return e.(liveEntry).items, nil
	}
	list, err := p.live.List(ctx, a.Namespace)
	if err != nil {
		return nil, admission.NewForbidden(a, err)
	}
	entry := liveEntry{expiry: time.Now().Add(liveTTL)}
	for i := range list {
		entry.items = append(entry.items, &list[i])
	}
	p.liveCache.Add(a.Namespace, entry, liveTTL)
	return entry.items, nil
}

// setDefaults gives the pod's containers the Container limits' default
// requests and limits they lack, and notes them in the annotation.
func setDefaults(lr *corev1.LimitRange, pod *corev1.Pod) {
	requests, limits := corev1.ResourceList{}, corev1.ResourceList{}
	for _, l := range lr.Spec.Limits {
		if l.Type != corev1.LimitTypeContainer {
			continue
		}
		for k, v := range l.DefaultRequest {
			requests[k] = v.DeepCopy()
		}
		for k, v := range l.Default {
			limits[k] = v.DeepCopy()
		}
	}
	var notes []string
	for i := range pod.Spec.Containers {
		notes = mergeContainer(&pod.Spec.Containers[i], requests, limits, "container", notes)
	}
	for i := range pod.Spec.InitContainers {
		notes = mergeContainer(&pod.Spec.InitContainers[i], requests, limits, "init container", notes)
	}
	if len(notes) > 0 {
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[Annotation] = "LimitRanger plugin set: " + strings.Join(notes, "; ")
	}
}

func mergeContainer(c *corev1.Container, requests, limits corev1.ResourceList, what string, notes []string) []string {
	if c.Resources.Limits == nil {
		c.Resources.Limits = corev1.ResourceList{}
	}
	if c.Resources.Requests == nil {
		c.Resources.Requests = corev1.ResourceList{}
	}
	var setRequests, setLimits []string
	for k, v := range limits {
		if _, ok := c.Resources.Limits[k]; !ok {
			c.Resources.Limits[k] = v.DeepCopy()
			setLimits = append(setLimits, string(k))
		}
	}
	for k, v := range requests {
		if _, ok := c.Resources.Requests[k]; !ok {
			c.Resources.Requests[k] = v.DeepCopy()
			setRequests = append(setRequests, string(k))
		}
	}
	if len(setRequests) > 0 {
		sort.Strings(setRequests)
		notes = append(notes, fmt.Sprintf("%s request for %s %s", strings.Join(setRequests, ", "), what, c.Name))
	}
	if len(setLimits) > 0 {
		sort.Strings(setLimits)
		notes = append(notes, fmt.Sprintf("%s limit for %s %s", strings.Join(setLimits, ", "), what, c.Name))
	}
	return notes
}

// validatePod checks each container against the Container limits and the
// pod's total against the Pod limits.
func (p *Plugin) validatePod(lr *corev1.LimitRange, pod *corev1.Pod) error {
	var errs []error
	check := func(typ corev1.LimitType, l corev1.LimitRangeItem, requests, limits corev1.ResourceList) {
		for k, v := range l.Min {
			if err := minConstraint(string(typ), string(k), v, requests, limits); err != nil {
				errs = append(errs, err)
			}
		}
		for k, v := range l.Max {
			if err := maxConstraint(string(typ), string(k), v, requests, limits); err != nil {
				errs = append(errs, err)
			}
		}
		for k, v := range l.MaxLimitRequestRatio {
			if err := ratioConstraint(string(typ), string(k), v, requests, limits); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, l := range lr.Spec.Limits {
		switch l.Type {
		case corev1.LimitTypeContainer:
			for _, c := range pod.Spec.Containers {
				check(l.Type, l, c.Resources.Requests, c.Resources.Limits)
			}
			for _, c := range pod.Spec.InitContainers {
				check(l.Type, l, c.Resources.Requests, c.Resources.Limits)
			}
		case corev1.LimitTypePod:
			requests := p.podResources(pod, func(r corev1.ResourceRequirements) corev1.ResourceList { return r.Requests })
			limits := p.podResources(pod, func(r corev1.ResourceRequirements) corev1.ResourceList { return r.Limits })
			check(l.Type, l, requests, limits)
		}
	}
	return utilerrors.NewAggregate(errs)
}

// validateClaim checks a claim's requests against the
// PersistentVolumeClaim limits (its limits are not the user's input).
func validateClaim(lr *corev1.LimitRange, pvc *corev1.PersistentVolumeClaim) error {
	var errs []error
	for _, l := range lr.Spec.Limits {
		if l.Type != corev1.LimitTypePersistentVolumeClaim {
			continue
		}
		for k, v := range l.Min {
			if err := minConstraint(string(l.Type), string(k), v, pvc.Spec.Resources.Requests, corev1.ResourceList{}); err != nil {
				errs = append(errs, err)
			}
		}
		for k, v := range l.Max {
			if err := maxRequestConstraint(string(l.Type), string(k), v, pvc.Spec.Resources.Requests); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return utilerrors.NewAggregate(errs)
}

// podResources is what the pod as a whole asks for (of) as kube counts
// it: its containers, plus the largest need of its init containers in
// turn (restartable ones, sidecars, run alongside: they add up); the
// pod's own resources, when the gate is on and it states them, win for
// the resources they name. The overhead is not counted.
func (p *Plugin) podResources(pod *corev1.Pod, of func(corev1.ResourceRequirements) corev1.ResourceList) corev1.ResourceList {
	total := corev1.ResourceList{}
	for _, c := range pod.Spec.Containers {
		add(total, of(c.Resources))
	}
	sidecars, inits := corev1.ResourceList{}, corev1.ResourceList{}
	for _, c := range pod.Spec.InitContainers {
		need := of(c.Resources)
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			add(total, need)
			add(sidecars, need)
			need = sidecars
		} else {
			sum := corev1.ResourceList{}
			add(sum, need)
			add(sum, sidecars)
			need = sum
		}
		maxInto(inits, need)
	}
	maxInto(total, inits)
	if p.podLevelResources && pod.Spec.Resources != nil {
		for k, v := range of(*pod.Spec.Resources) {
			if k == corev1.ResourceCPU || k == corev1.ResourceMemory || strings.HasPrefix(string(k), corev1.ResourceHugePagesPrefix) {
				total[k] = v.DeepCopy()
			}
		}
	}
	return total
}

func add(total, l corev1.ResourceList) {
	for k, v := range l {
		if cur, ok := total[k]; ok {
			cur.Add(v)
			total[k] = cur
		} else {
			total[k] = v.DeepCopy()
		}
	}
}

func maxInto(total, l corev1.ResourceList) {
	for k, v := range l {
		if cur, ok := total[k]; !ok || v.Cmp(cur) > 0 {
			total[k] = v.DeepCopy()
		}
	}
}

// values are request, limit and enforced at a common precision: milli
// units when none overflows them.
func values(req, lim, enforced resource.Quantity) (int64, int64, int64) {
	r, l, e := req.Value(), lim.Value(), enforced.Value()
	if r <= resource.MaxMilliValue && l <= resource.MaxMilliValue && e <= resource.MaxMilliValue {
		r, l, e = req.MilliValue(), lim.MilliValue(), enforced.MilliValue()
	}
	return r, l, e
}

func minConstraint(typ, name string, enforced resource.Quantity, requests, limits corev1.ResourceList) error {
	req, hasReq := requests[corev1.ResourceName(name)]
	lim, hasLim := limits[corev1.ResourceName(name)]
	r, l, e := values(req, lim, enforced)
	switch {
	case !hasReq:
		return fmt.Errorf("minimum %s usage per %s is %s.  No request is specified", name, typ, enforced.String())
	case r < e:
		return fmt.Errorf("minimum %s usage per %s is %s, but request is %s", name, typ, enforced.String(), req.String())
	case hasLim && l < e:
		return fmt.Errorf("minimum %s usage per %s is %s, but limit is %s", name, typ, enforced.String(), lim.String())
	}
	return nil
}

func maxRequestConstraint(typ, name string, enforced resource.Quantity, requests corev1.ResourceList) error {
	req, hasReq := requests[corev1.ResourceName(name)]
	r, _, e := values(req, resource.Quantity{}, enforced)
	switch {
	case !hasReq:
		return fmt.Errorf("maximum %s usage per %s is %s.  No request is specified", name, typ, enforced.String())
	case r > e:
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, typ, enforced.String(), req.String())
	}
	return nil
}

func maxConstraint(typ, name string, enforced resource.Quantity, requests, limits corev1.ResourceList) error {
	req, hasReq := requests[corev1.ResourceName(name)]
	lim, hasLim := limits[corev1.ResourceName(name)]
	r, l, e := values(req, lim, enforced)
	switch {
	case !hasLim:
		return fmt.Errorf("maximum %s usage per %s is %s.  No limit is specified", name, typ, enforced.String())
	case l > e:
		return fmt.Errorf("maximum %s usage per %s is %s, but limit is %s", name, typ, enforced.String(), lim.String())
	case hasReq && r > e:
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, typ, enforced.String(), req.String())
	}
	return nil
}

func ratioConstraint(typ, name string, enforced resource.Quantity, requests, limits corev1.ResourceList) error {
	req, hasReq := requests[corev1.ResourceName(name)]
	lim, hasLim := limits[corev1.ResourceName(name)]
	r, l, _ := values(req, lim, enforced)
	if !hasReq || r == 0 {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no request is specified or request is 0", name, typ, enforced.String())
	}
	if !hasLim || l == 0 {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0", name, typ, enforced.String())
	}
	ratio := float64(l) / float64(r)
	shown := ratio
	limit := float64(enforced.Value())
	if enforced.Value() <= resource.MaxMilliValue {
		ratio *= 1000
		limit = float64(enforced.MilliValue())
	}
	if ratio > limit {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but provided ratio is %f", name, typ, enforced.String(), shown)
	}
	return nil
}
