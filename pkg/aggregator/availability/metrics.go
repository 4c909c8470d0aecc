package availability

import (
	"github.com/prometheus/client_golang/prometheus"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// Metrics are the availability metrics, shared by the local and the
// remote controller, with kube-apiserver's names and help.
type Metrics struct {
	unavailable      *prometheus.GaugeVec
	unavailableTotal *prometheus.CounterVec
}

// NewMetrics returns unregistered metrics.
func NewMetrics() *Metrics {
	return &Metrics{
		unavailable: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "aggregator_unavailable_apiservice",
			Help: "[ALPHA] Gauge of APIServices which are marked as unavailable broken down by APIService name.",
		}, []string{"name"}),
		unavailableTotal: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "aggregator_unavailable_apiservice_total",
			Help: "[ALPHA] Counter of APIServices which are marked as unavailable broken down by APIService name and reason.",
		}, []string{"name", "reason"}),
	}
}

// Collectors returns the metrics to register.
func (m *Metrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.unavailable, m.unavailableTotal}
}

// observe sets the gauge of an APIService to what its status says.
func (m *Metrics) observe(apiService *apiregistrationv1.APIService) {
	v := 1.0
	if isAvailable(apiService) {
		v = 0
	}
	m.unavailable.WithLabelValues(apiService.Name).Set(v)
}

// changed counts an APIService that stopped being available, by the
// reason of its new condition.
func (m *Metrics) changed(before, after *apiregistrationv1.APIService) {
	if !isAvailable(before) || isAvailable(after) {
		return
	}
	reason := "UnknownReason"
	if c := condition(after, apiregistrationv1.Available); c != nil {
		reason = c.Reason
	}
	m.unavailableTotal.WithLabelValues(after.Name, reason).Inc()
}

// forget drops the gauge of an APIService that is gone.
func (m *Metrics) forget(name string) {
	m.unavailable.DeleteLabelValues(name)
}
