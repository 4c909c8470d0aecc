// Package eventratelimit is the EventRateLimit admission plugin: core
// (v1) Events are created and updated at most at the rates its
// configuration sets, per server, namespace, user, or event source and
// object; the write over a limit is refused with 429 Too Many Requests.
// Each limit is a token bucket per key; the buckets of the most recent
// keys are kept, a key forgotten starts with a full bucket. Dry runs take
// no token.
package eventratelimit

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/utils/clock"
	"k8s.io/utils/lru"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "EventRateLimit"

const defaultCacheSize = 4096

// Plugin is the admission plugin; it validates.
type Plugin struct {
	admission.Handler
	limits []*limiter
}

// New returns the plugin for cfg (LoadConfig checked it), its buckets
// filled on clk's time.
func New(cfg *Config, clk clock.PassiveClock) (*Plugin, error) {
	p := &Plugin{Handler: admission.NewHandler(admission.Create, admission.Update)}
	for _, l := range cfg.Limits {
		lim, err := newLimiter(l, clk)
		if err != nil {
			return nil, err
		}
		p.limits = append(p.limits, lim)
	}
	return p, nil
}

// Validate takes a token of every limit's bucket for the event, and
// refuses it if any is empty.
func (p *Plugin) Validate(_ context.Context, a *admission.Attributes) error {
	if a.Kind.Group != "" || a.Kind.Kind != "Event" || a.DryRun {
		return nil
	}
	var errs []error
	for _, l := range p.limits {
		if err := l.accept(a); err != nil {
			errs = append(errs, err)
		}
	}
	if err := utilerrors.NewAggregate(errs); err != nil {
		return apierrors.NewTooManyRequestsError(err.Error())
	}
	return nil
}

// limiter is one limit's buckets.
type limiter struct {
	typ LimitType
	key func(*admission.Attributes) string
	// bucket returns the key's bucket, made full if new.
	bucket func(key string) flowcontrol.PassiveRateLimiter
}

func newLimiter(l Limit, clk clock.PassiveClock) (*limiter, error) {
	newBucket := func() flowcontrol.PassiveRateLimiter {
		return flowcontrol.NewTokenBucketPassiveRateLimiterWithClock(float32(l.QPS), int(l.Burst), clk)
	}
	lim := &limiter{typ: l.Type}
	switch l.Type {
	case ServerLimitType:
		b := newBucket()
		lim.key = func(*admission.Attributes) string { return "" }
		lim.bucket = func(string) flowcontrol.PassiveRateLimiter { return b }
		return lim, nil
	case NamespaceLimitType:
		lim.key = func(a *admission.Attributes) string { return a.Namespace }
	case UserLimitType:
		lim.key = func(a *admission.Attributes) string {
			if a.User == nil {
				return ""
			}
			return a.User.GetName()
		}
	case SourceAndObjectLimitType:
		lim.key = sourceAndObjectKey
	default:
		return nil, fmt.Errorf("unknown event rate limit type: %v", l.Type)
	}
	size := int(l.CacheSize)
	if size == 0 {
		size = defaultCacheSize
	}
	cache := lru.New(size)
	lim.bucket = func(key string) flowcontrol.PassiveRateLimiter {
		if b, ok := cache.Get(key); ok {
			return b.(flowcontrol.PassiveRateLimiter)
		}
		b := newBucket()
		cache.Add(key, b)
		return b
	}
	return lim, nil
}

func (l *limiter) accept(a *admission.Attributes) error {
	key := l.key(a)
	if !l.bucket(key).TryAccept() {
		return fmt.Errorf("limit reached on type %v for key %v", l.typ, key)
	}
	return nil
}

// sourceAndObjectKey joins an event's source and involved object, as
// kube-apiserver does (without separators).
func sourceAndObjectKey(a *admission.Attributes) string {
	e, ok := a.Object.(*corev1.Event)
	if !ok {
		return ""
	}
	o := e.InvolvedObject
	return strings.Join([]string{e.Source.Component, e.Source.Host, o.Kind, o.Namespace, o.Name, string(o.UID), o.APIVersion}, "")
}
