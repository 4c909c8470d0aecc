package webhook

import (
	"slices"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Source gives the webhooks to call, in the order kube-apiserver calls
// them: the configurations sorted by name, each configuration's webhooks
// in its order.
type Source interface {
	Webhooks() []*Hook
	// HasSynced says whether the configurations have been read once; until
	// then writes wait, then are refused.
	HasSynced() bool
}

// ConfigLister lists the current configurations of one kind: an
// informer's lister in the server, a fixed list in tests.
type ConfigLister[T metav1.Object] func() ([]T, error)

// NewSource makes the webhooks of the configurations list gives; hooks
// makes those of one configuration. Each call of Webhooks lists the
// configurations again, so a change the lister sees applies at once; a
// configuration whose resourceVersion did not change keeps its hooks,
// with their clients and compiled conditions.
func NewSource[T metav1.Object](list ConfigLister[T], hooks func(T) []*Hook, hasSynced func() bool) Source {
	return &listSource[T]{list: list, hooksOf: hooks, hasSynced: hasSynced}
}

type listSource[T metav1.Object] struct {
	list      ConfigLister[T]
	hooksOf   func(T) []*Hook
	hasSynced func() bool

	mu     sync.Mutex
	cached map[string]cachedConfig
	key    string
	hooks  []*Hook
}

type cachedConfig struct {
	version string
	hooks   []*Hook
}

func (s *listSource[T]) HasSynced() bool { return s.hasSynced == nil || s.hasSynced() }

func (s *listSource[T]) Webhooks() []*Hook {
	configs, err := s.list()
	if err != nil {
		return nil
	}
	configs = slices.Clone(configs)
	slices.SortStableFunc(configs, func(a, b T) int { return strings.Compare(a.GetName(), b.GetName()) })
	var key strings.Builder
	for _, c := range configs {
		key.WriteString(c.GetName() + "\x00" + string(c.GetUID()) + "\x00" + c.GetResourceVersion() + "\x00")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if key.String() == s.key && s.hooks != nil {
		return s.hooks
	}
	cached := make(map[string]cachedConfig, len(configs))
	hooks := []*Hook{}
	for _, c := range configs {
		version := string(c.GetUID()) + "/" + c.GetResourceVersion()
		cc, ok := s.cached[c.GetName()]
		if !ok || cc.version != version || version == "/" {
			cc = cachedConfig{version: version, hooks: s.hooksOf(c)}
		}
		cached[c.GetName()] = cc
		hooks = append(hooks, cc.hooks...)
	}
	s.cached, s.key, s.hooks = cached, key.String(), hooks
	return hooks
}
