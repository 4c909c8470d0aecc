package pod

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/httpstream/wsstream"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/proxy"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/core/node"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Kubelets finds the kubelet of a node (node.Kubelets).
type Kubelets interface {
	ConnectionInfo(ctx context.Context, nodeName string) (*node.ConnectionInfo, error)
	// ProxyTransport is the transport of pods/proxy.
	ProxyTransport() http.RoundTripper
}

// Connections is what the subresources that reach into a pod need: the
// kubelets, and the authorizer that checks the create verb on WebSocket
// upgrades of exec, attach and portforward.
type Connections struct {
	Kubelets   Kubelets
	Authorizer authorizer.Authorizer
}

// podGetter reads pods; the connecting subresources share the pods'
// store.
type podGetter struct{ store *generic.Store }

func (g podGetter) get(ctx context.Context, name string) (*corev1.Pod, error) {
	obj, err := g.store.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.Pod), nil
}

// LogREST is pods/log: the log of a container, read from its kubelet.
type LogREST struct {
	pods podGetter
	conn Connections
}

var (
	_ rest.GetterWithOptions = &LogREST{}
	_ rest.MIMETypesProducer = &LogREST{}
)

func (r *LogREST) New() runtime.Object   { return &corev1.Pod{} }
func (r *LogREST) Destroy()              {}
func (r *LogREST) NamespaceScoped() bool { return true }
func (r *LogREST) NewGetOptions() (runtime.Object, bool, string) {
	return &corev1.PodLogOptions{}, false, ""
}

// ProducesMIMETypes is what the log is served as.
func (r *LogREST) ProducesMIMETypes() []string { return []string{"text/plain"} }

// Get validates the options and returns the stream of the container's
// log: empty for a pod no node runs.
func (r *LogREST) Get(ctx context.Context, name string, opts runtime.Object) (runtime.Object, error) {
	logOpts := opts.(*corev1.PodLogOptions)
	if errs := core.ValidatePodLogOptions(logOpts); len(errs) > 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Kind: "PodLogOptions"}, name, errs)
	}
	pod, err := r.pods.get(ctx, name)
	if err != nil {
		return nil, err
	}
	container, err := containerOf(pod, logOpts.Container)
	if err != nil {
		return nil, err
	}
	streamer := &locationStreamer{resource: corev1.Resource("pods/log"), name: name, flush: logOpts.Follow}
	if pod.Spec.NodeName == "" {
		return streamer, nil
	}
	info, err := r.conn.Kubelets.ConnectionInfo(ctx, pod.Spec.NodeName)
	if err != nil {
		return nil, err
	}
	params := url.Values{}
	if logOpts.Follow {
		params.Add("follow", "true")
	}
	if logOpts.Previous {
		params.Add("previous", "true")
	}
	if logOpts.Timestamps {
		params.Add("timestamps", "true")
	}
	if logOpts.SinceSeconds != nil {
		params.Add("sinceSeconds", strconv.FormatInt(*logOpts.SinceSeconds, 10))
	}
	if logOpts.SinceTime != nil {
		params.Add("sinceTime", logOpts.SinceTime.Format(time.RFC3339))
	}
	if logOpts.TailLines != nil {
		params.Add("tailLines", strconv.FormatInt(*logOpts.TailLines, 10))
	}
	if logOpts.LimitBytes != nil {
		params.Add("limitBytes", strconv.FormatInt(*logOpts.LimitBytes, 10))
	}
	streamer.location = &url.URL{
		Scheme:   info.Scheme,
		Host:     net.JoinHostPort(info.Hostname, info.Port),
		Path:     fmt.Sprintf("/containerLogs/%s/%s/%s", pod.Namespace, pod.Name, container),
		RawQuery: params.Encode(),
	}
	streamer.transport = info.Transport
	if logOpts.InsecureSkipTLSVerifyBackend {
		streamer.transport = info.InsecureSkipTLSVerifyTransport
	}
	return streamer, nil
}

// locationStreamer streams what a GET of location answers, as text.
type locationStreamer struct {
	location  *url.URL
	transport http.RoundTripper
	flush     bool
	// resource and name name the object in the errors of the backend.
	resource schema.GroupResource
	name     string
}

var _ rest.ResourceStreamer = &locationStreamer{}

func (s *locationStreamer) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }
func (s *locationStreamer) DeepCopyObject() runtime.Object {
	c := *s
	return &c
}

// InputStream reads the location without following redirects. An answer
// outside 2xx becomes the error kube-apiserver makes of it: its body as
// the message, with its code.
func (s *locationStreamer) InputStream(ctx context.Context, _, _ string) (io.ReadCloser, bool, string, error) {
	if s.location == nil {
		return nil, false, "", nil
	}
	client := &http.Client{
		Transport:     s.transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return errors.New("redirects forbidden") },
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.location.String(), nil)
	if err != nil {
		return nil, false, "", fmt.Errorf("failed to construct request for %s, got %v", s.location.String(), err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, false, "", err
	}
	if resp.StatusCode < http.StatusOK || resp.StatusCode > http.StatusPartialContent {
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, 50000))
		if err != nil {
			return nil, false, "", apierrors.NewInternalError(err)
		}
		switch resp.StatusCode {
		case http.StatusInternalServerError:
			return nil, false, "", apierrors.NewInternalError(errors.New(string(body)))
		case http.StatusBadRequest:
			return nil, false, "", apierrors.NewBadRequest(string(body))
		}
		return nil, false, "", apierrors.NewGenericServerResponse(resp.StatusCode, "", s.resource, s.name, string(body), 0, false)
	}
	return resp.Body, s.flush, "text/plain", nil
}

// upgradeMethods are the methods of exec, attach and portforward: POST
// for SPDY, GET for WebSockets.
var upgradeMethods = []string{"GET", "POST"}

// ExecREST is pods/exec: a command run in a container, its streams
// carried over SPDY or WebSockets.
type ExecREST struct {
	pods podGetter
	conn Connections
}

var _ rest.Connecter = &ExecREST{}

func (r *ExecREST) New() runtime.Object      { return &corev1.PodExecOptions{} }
func (r *ExecREST) Destroy()                 {}
func (r *ExecREST) NamespaceScoped() bool    { return true }
func (r *ExecREST) ConnectMethods() []string { return upgradeMethods }
func (r *ExecREST) NewConnectOptions() (runtime.Object, bool, string) {
	return &corev1.PodExecOptions{}, false, ""
}

func (r *ExecREST) Connect(ctx context.Context, name string, opts runtime.Object, responder rest.Responder) (http.Handler, error) {
	if err := authorizeCreate(ctx, r.conn.Authorizer); err != nil {
		return nil, err
	}
	o := opts.(*corev1.PodExecOptions)
	params := streamParams(o.Stdin, o.Stdout, o.Stderr, o.TTY)
	for _, c := range o.Command {
		params.Add("command", c)
	}
	location, info, err := r.pods.streamLocation(ctx, r.conn.Kubelets, name, o.Container, "exec", params)
	if err != nil {
		return nil, err
	}
	return streamHandler(location, info.Transport, responder, streamOptions{o.Stdin, o.Stdout, o.Stderr, o.TTY}), nil
}

// AttachREST is pods/attach: the streams of a running container.
type AttachREST struct {
	pods podGetter
	conn Connections
}

var _ rest.Connecter = &AttachREST{}

func (r *AttachREST) New() runtime.Object      { return &corev1.PodAttachOptions{} }
func (r *AttachREST) Destroy()                 {}
func (r *AttachREST) NamespaceScoped() bool    { return true }
func (r *AttachREST) ConnectMethods() []string { return upgradeMethods }
func (r *AttachREST) NewConnectOptions() (runtime.Object, bool, string) {
	return &corev1.PodAttachOptions{}, false, ""
}

func (r *AttachREST) Connect(ctx context.Context, name string, opts runtime.Object, responder rest.Responder) (http.Handler, error) {
	if err := authorizeCreate(ctx, r.conn.Authorizer); err != nil {
		return nil, err
	}
	o := opts.(*corev1.PodAttachOptions)
	params := streamParams(o.Stdin, o.Stdout, o.Stderr, o.TTY)
	location, info, err := r.pods.streamLocation(ctx, r.conn.Kubelets, name, o.Container, "attach", params)
	if err != nil {
		return nil, err
	}
	return streamHandler(location, info.Transport, responder, streamOptions{o.Stdin, o.Stdout, o.Stderr, o.TTY}), nil
}

// PortForwardREST is pods/portforward: connections to the pod's ports.
type PortForwardREST struct {
	pods podGetter
	conn Connections
}

var _ rest.Connecter = &PortForwardREST{}

func (r *PortForwardREST) New() runtime.Object      { return &corev1.PodPortForwardOptions{} }
func (r *PortForwardREST) Destroy()                 {}
func (r *PortForwardREST) NamespaceScoped() bool    { return true }
func (r *PortForwardREST) ConnectMethods() []string { return upgradeMethods }
func (r *PortForwardREST) NewConnectOptions() (runtime.Object, bool, string) {
	return &corev1.PodPortForwardOptions{}, false, ""
}

func (r *PortForwardREST) Connect(ctx context.Context, name string, opts runtime.Object, responder rest.Responder) (http.Handler, error) {
	if err := authorizeCreate(ctx, r.conn.Authorizer); err != nil {
		return nil, err
	}
	o := opts.(*corev1.PodPortForwardOptions)
	pod, err := r.pods.get(ctx, name)
	if err != nil {
		return nil, err
	}
	if pod.Spec.NodeName == "" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("pod %s does not have a host assigned", name))
	}
	info, err := r.conn.Kubelets.ConnectionInfo(ctx, pod.Spec.NodeName)
	if err != nil {
		return nil, err
	}
	params := url.Values{}
	if len(o.Ports) > 0 {
		ports := make([]string, len(o.Ports))
		for i, p := range o.Ports {
			ports[i] = strconv.Itoa(int(p))
		}
		params.Add(corev1.PortHeader, strings.Join(ports, ","))
	}
	location := &url.URL{
		Scheme:   info.Scheme,
		Host:     net.JoinHostPort(info.Hostname, info.Port),
		Path:     fmt.Sprintf("/portForward/%s/%s", pod.Namespace, pod.Name),
		RawQuery: params.Encode(),
	}
	upgrade := proxy.NewUpgradeAwareHandler(location, info.Transport, false, true, responder)
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if wsstream.IsWebSocketRequestWithTunnelingProtocol(req) {
			tunnelPortForward(w, req, location, info.Transport, responder)
			return
		}
		upgrade.ServeHTTP(w, req)
	}), nil
}

// ProxyREST is pods/proxy: any method, with any path after it, passed on
// to the pod's IP ("name", "name:port" or "scheme:name:port"; without a
// port, the first port a container declares).
type ProxyREST struct {
	pods podGetter
	conn Connections
}

var _ rest.Connecter = &ProxyREST{}

func (r *ProxyREST) New() runtime.Object      { return &corev1.PodProxyOptions{} }
func (r *ProxyREST) Destroy()                 {}
func (r *ProxyREST) NamespaceScoped() bool    { return true }
func (r *ProxyREST) ConnectMethods() []string { return node.ProxyMethods }
func (r *ProxyREST) NewConnectOptions() (runtime.Object, bool, string) {
	return &corev1.PodProxyOptions{}, true, "path"
}

func (r *ProxyREST) Connect(ctx context.Context, id string, opts runtime.Object, responder rest.Responder) (http.Handler, error) {
	proxyOpts := opts.(*corev1.PodProxyOptions)
	location, err := r.location(ctx, id)
	if err != nil {
		return nil, err
	}
	location.Path = utilnet.JoinPreservingTrailingSlash(location.Path, proxyOpts.Path)
	return proxy.NewUpgradeAwareHandler(location, r.conn.Kubelets.ProxyTransport(), true, false, responder), nil
}

// location is the pod's first IP, which must be global unicast, and the
// port asked for or the first one a container declares.
func (r *ProxyREST) location(ctx context.Context, id string) (*url.URL, error) {
	scheme, name, port, valid := utilnet.SplitSchemeNamePort(id)
	if !valid {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid pod request %q", id))
	}
	pod, err := r.pods.get(ctx, name)
	if err != nil {
		return nil, err
	}
	if port == "" {
		for _, c := range pod.Spec.Containers {
			if len(c.Ports) > 0 {
				port = strconv.Itoa(int(c.Ports[0].ContainerPort))
				break
			}
		}
	}
	podIP := ""
	if len(pod.Status.PodIPs) > 0 {
		podIP = pod.Status.PodIPs[0].IP
	}
	if ip := net.ParseIP(podIP); ip == nil || !ip.IsGlobalUnicast() {
		return nil, apierrors.NewBadRequest("address not allowed")
	}
	loc := &url.URL{Scheme: scheme, Host: podIP}
	if strings.Contains(podIP, ":") {
		loc.Host = "[" + podIP + "]"
	}
	if port != "" {
		loc.Host = net.JoinHostPort(podIP, port)
	}
	return loc, nil
}

// streamParams are the kubelet's query parameters of the streams asked
// for.
func streamParams(stdin, stdout, stderr, tty bool) url.Values {
	params := url.Values{}
	for _, p := range []struct {
		name string
		on   bool
	}{{corev1.ExecStdinParam, stdin}, {corev1.ExecStdoutParam, stdout}, {corev1.ExecStderrParam, stderr}, {corev1.ExecTTYParam, tty}} {
		if p.on {
			params.Add(p.name, "1")
		}
	}
	return params
}

// streamLocation is the kubelet URL of exec or attach in a container of
// the pod.
func (g podGetter) streamLocation(ctx context.Context, kubelets Kubelets, name, container, path string, params url.Values) (*url.URL, *node.ConnectionInfo, error) {
	pod, err := g.get(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	if container, err = containerOf(pod, container); err != nil {
		return nil, nil, err
	}
	if pod.Spec.NodeName == "" {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("pod %s does not have a host assigned", name))
	}
	info, err := kubelets.ConnectionInfo(ctx, pod.Spec.NodeName)
	if err != nil {
		return nil, nil, err
	}
	return &url.URL{
		Scheme:   info.Scheme,
		Host:     net.JoinHostPort(info.Hostname, info.Port),
		Path:     fmt.Sprintf("/%s/%s/%s/%s", path, pod.Namespace, pod.Name, container),
		RawQuery: params.Encode(),
	}, info, nil
}

// containerOf is the container a request names, or the pod's only
// container when it names none.
func containerOf(pod *corev1.Pod, container string) (string, error) {
	var names []string
	for _, c := range pod.Spec.InitContainers {
		names = append(names, c.Name)
	}
	for _, c := range pod.Spec.Containers {
		names = append(names, c.Name)
	}
	for _, c := range pod.Spec.EphemeralContainers {
		names = append(names, c.Name)
	}
	if container == "" {
		switch len(pod.Spec.Containers) {
		case 1:
			return pod.Spec.Containers[0].Name, nil
		case 0:
			return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s", pod.Name))
		}
		return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s, choose one of: %s", pod.Name, names))
	}
	for _, n := range names {
		if n == container {
			return container, nil
		}
	}
	return "", apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", container, pod.Name))
}

// authorizeCreate requires the create verb of a request authorized as
// another verb: a WebSocket upgrade (a GET) of exec, attach or
// portforward does what a POST does, so kube-apiserver 1.35 and later
// (AuthorizePodWebsocketUpgradeCreatePermission) ask for create too.
func authorizeCreate(ctx context.Context, a authorizer.Authorizer) error {
	info, ok := request.RequestInfoFrom(ctx)
	if !ok {
		return apierrors.NewInternalError(errors.New("no request info in context"))
	}
	if info.Verb == "create" {
		return nil
	}
	if a == nil {
		return apierrors.NewInternalError(errors.New("no authorizer available"))
	}
	attrs := authorizer.AttributesRecord{
		Verb:            "create",
		Namespace:       info.Namespace,
		APIGroup:        info.APIGroup,
		APIVersion:      info.APIVersion,
		Resource:        info.Resource,
		Subresource:     info.Subresource,
		Name:            info.Name,
		ResourceRequest: info.IsResourceRequest,
		Path:            info.Path,
	}
	if u, ok := request.UserFrom(ctx); ok {
		attrs.User = u
	}
	decision, reason, err := a.Authorize(ctx, attrs)
	if err != nil {
		return err
	}
	if decision != authorizer.DecisionAllow {
		return apierrors.NewForbidden(schema.GroupResource{Group: info.APIGroup, Resource: info.Resource}, info.Name, errors.New(reason))
	}
	return nil
}
