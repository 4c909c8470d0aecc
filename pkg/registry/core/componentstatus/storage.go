// Package componentstatus serves core/v1 componentstatuses: the health of
// the control plane's components, probed when asked, as kube-apiserver
// reports it. Nothing is stored: a list probes every component at once,
// a get probes one.
//
// The components are kube-apiserver's: the scheduler and the controller
// manager, probed on their default secure ports on this host
// (https://127.0.0.1:10259/healthz and :10257), and one etcd-N per etcd
// server, probed through the health check the storage layer hands in.
// The resource has been deprecated since 1.19; every request gets
// kube-apiserver's warning saying so.
package componentstatus

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Check probes one component: whether it is healthy, the message to show
// and the error that kept the probe from answering.
type Check func(ctx context.Context) (healthy bool, message string, err error)

// Component is a component whose health is reported.
type Component struct {
	Name  string
	Check Check
}

// probeTimeout bounds one probe, as kube-apiserver's 20 seconds.
const probeTimeout = 20 * time.Second

// Components are kube-apiserver's: the scheduler, the controller manager
// and one etcd-N for each etcd health check, in the order of the servers.
func Components(etcd []func(context.Context) error) []Component {
	components := []Component{
		{Name: "scheduler", Check: HTTPCheck("https://127.0.0.1:10259/healthz")},
		{Name: "controller-manager", Check: HTTPCheck("https://127.0.0.1:10257/healthz")},
	}
	for i, check := range etcd {
		components = append(components, Component{Name: fmt.Sprintf("etcd-%d", i), Check: EtcdCheck(check)})
	}
	return components
}

// EtcdCheck is healthy with "ok" when check passes; its error otherwise.
func EtcdCheck(check func(context.Context) error) Check {
	return func(ctx context.Context) (bool, string, error) {
		if err := check(ctx); err != nil {
			return false, "", err
		}
		return true, "ok", nil
	}
}

// HTTPCheck probes a health endpoint as kube-apiserver's HTTP prober: the
// server's certificate is not verified, a status from 200 to 399 is
// healthy with the body as its message, and a failure to connect is
// unhealthy with the error as its message.
func HTTPCheck(url string) Check {
	client := &http.Client{
		Timeout:   probeTimeout,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true},
	}
	return func(ctx context.Context) (bool, string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false, "", err
		}
		resp, err := client.Do(req)
		if err != nil {
			return false, err.Error(), nil
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, 10*1024))
		if err != nil {
			return false, "", err
		}
		if resp.StatusCode < http.StatusOK || resp.StatusCode >= http.StatusBadRequest {
			return false, fmt.Sprintf("HTTP probe failed with statuscode: %d", resp.StatusCode), nil
		}
		return true, string(body), nil
	}
}

// REST serves componentstatuses.
type REST struct {
	components     []Component
	tableConvertor rest.TableConvertor
}

var (
	_ rest.Getter              = &REST{}
	_ rest.Lister              = &REST{}
	_ rest.Scoper              = &REST{}
	_ rest.ShortNamesProvider  = &REST{}
	_ rest.StorageKindProvider = &REST{}
	_ rest.Deprecated          = &REST{}
)

// NewStorage returns the storage of componentstatuses for the components.
func NewStorage(opts generic.RESTOptions, components []Component) (*REST, error) {
	return &REST{components: components, tableConvertor: opts.TableConvertor}, nil
}

// Map returns the storage by path: "componentstatuses".
func (r *REST) Map() map[string]rest.Storage {
	return map[string]rest.Storage{"componentstatuses": r}
}

func (r *REST) New() runtime.Object        { return &corev1.ComponentStatus{} }
func (r *REST) NewList() runtime.Object    { return &corev1.ComponentStatusList{} }
func (r *REST) Destroy()                   {}
func (r *REST) NamespaceScoped() bool      { return false }
func (r *REST) ShortNames() []string       { return []string{"cs"} }
func (r *REST) GetSingularName() string    { return "componentstatus" }
func (r *REST) DeprecationWarning() string { return "v1 ComponentStatus is deprecated in v1.19+" }

// StorageKind is empty: component statuses are not stored.
func (r *REST) StorageKind() schema.GroupVersionKind { return schema.GroupVersionKind{} }

func (r *REST) ConvertToTable(ctx context.Context, obj runtime.Object, opts runtime.Object) (*metav1.Table, error) {
	return r.tableConvertor.ConvertToTable(ctx, obj, opts)
}

// notFound is kube-apiserver's answer for a component it does not know:
// the resource named in its singular form.
func notFound(name string) error {
	return apierrors.NewNotFound(schema.GroupResource{Resource: "componentstatus"}, name)
}

// Get probes the named component.
func (r *REST) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	for _, c := range r.components {
		if c.Name == name {
			status := probe(ctx, c)
			return &status, nil
		}
	}
	return nil, notFound(name)
}

// List probes the components the selectors pick, all at once, and lists
// them in the order their probes answered, as kube-apiserver does.
func (r *REST) List(ctx context.Context, opts *metav1.ListOptions) (runtime.Object, error) {
	labelSel, fieldSel, err := selectors(opts)
	if err != nil {
		return nil, err
	}
	results := make(chan corev1.ComponentStatus, len(r.components))
	var wg sync.WaitGroup
	for _, c := range r.components {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- probe(ctx, c)
		}()
	}
	wg.Wait()
	close(results)
	list := &corev1.ComponentStatusList{Items: []corev1.ComponentStatus{}}
	for status := range results {
		f := fields.Set{"metadata.name": status.Name, "metadata.namespace": ""}
		if labelSel.Matches(labels.Set(status.Labels)) && fieldSel.Matches(f) {
			list.Items = append(list.Items, status)
		}
	}
	return list, nil
}

// selectors parses the list's selectors; fields other than the metadata
// ones are refused with kube-apiserver's message.
func selectors(opts *metav1.ListOptions) (labels.Selector, fields.Selector, error) {
	labelSel, fieldSel := labels.Everything(), fields.Everything()
	if opts == nil {
		return labelSel, fieldSel, nil
	}
	var err error
	if opts.LabelSelector != "" {
		if labelSel, err = labels.Parse(opts.LabelSelector); err != nil {
			return nil, nil, apierrors.NewBadRequest(err.Error())
		}
	}
	if opts.FieldSelector != "" {
		if fieldSel, err = fields.ParseSelector(opts.FieldSelector); err != nil {
			return nil, nil, apierrors.NewBadRequest(err.Error())
		}
		for _, req := range fieldSel.Requirements() {
			if req.Field != "metadata.name" && req.Field != "metadata.namespace" {
				return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("%q is not a known field selector: only %s", req.Field, strings.Join([]string{`"metadata.name"`, `"metadata.namespace"`}, ", ")))
			}
		}
	}
	return labelSel, fieldSel, nil
}

// probe runs a component's check and reports it as its Healthy condition.
func probe(ctx context.Context, c Component) corev1.ComponentStatus {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	healthy, message, err := c.Check(ctx)
	condition := corev1.ComponentCondition{Type: corev1.ComponentHealthy, Status: corev1.ConditionFalse, Message: message}
	if healthy {
		condition.Status = corev1.ConditionTrue
	}
	if err != nil {
		condition.Error = err.Error()
	}
	return corev1.ComponentStatus{
		ObjectMeta: metav1.ObjectMeta{Name: c.Name},
		Conditions: []corev1.ComponentCondition{condition},
	}
}
