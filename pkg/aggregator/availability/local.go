package availability

import (
	"context"
	"log/slog"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// LocalHook is the post-start hook that runs the local controller,
// kube-apiserver's name for it.
const LocalHook = "apiservice-status-local-available-controller"

// Local keeps local APIServices Available, reason Local.
type Local struct {
	c *controller
}

// NewLocal returns the local controller of the APIServices of informer
// (lister reads its cache), writing their status with writer.
func NewLocal(informer cache.SharedIndexInformer, lister Lister, writer StatusWriter, metrics *Metrics, log *slog.Logger) (*Local, error) {
	l := &Local{}
	l.c = newController("LocalAvailabilityController", lister, writer, metrics, log, l.sync)
	if err := l.c.watchAPIServices(informer, nil); err != nil {
		return nil, err
	}
	return l, nil
}

// Run checks the APIServices with workers until ctx ends (kube-apiserver
// runs 5).
func (l *Local) Run(ctx context.Context, workers int) { l.c.run(ctx, workers) }

func (l *Local) sync(ctx context.Context, name string) error {
	original, err := l.c.lister.Get(name)
	if apierrors.IsNotFound(err) {
		l.c.metrics.forget(name)
		return nil
	}
	if err != nil {
		return err
	}
	if original.Spec.Service != nil {
		return nil
	}
	updated := original.DeepCopy()
	setCondition(updated, LocalCondition())
	return l.c.writeStatus(ctx, original, updated)
}

// LocalCondition is the condition of a local APIService, as of now.
func LocalCondition() apiregistrationv1.APIServiceCondition {
	return apiregistrationv1.APIServiceCondition{
		Type:               apiregistrationv1.Available,
		Status:             apiregistrationv1.ConditionTrue,
		LastTransitionTime: metav1.Now(),
		Reason:             ReasonLocal,
		Message:            MessageLocal,
	}
}
