package discovery

import (
	"fmt"
	"net"
	"net/http"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/kapi-dev/kapi/pkg/endpoints/negotiation"
	"github.com/kapi-dev/kapi/pkg/endpoints/responsewriters"
)

// discoveryScheme knows the discovery types and nothing else, so the
// documents encode in JSON, YAML and protobuf without the main scheme.
var (
	discoveryScheme = runtime.NewScheme()
	discoveryCodecs = serializer.NewCodecFactory(discoveryScheme)
)

func init() {
	metav1.AddToGroupVersion(discoveryScheme, schema.GroupVersion{Version: "v1"})
	if err := apidiscoveryv2.AddToScheme(discoveryScheme); err != nil {
		panic(err)
	}
}

// Handler serves the discovery documents of a Registry.
type Handler struct {
	Registry *Registry
	// ServerAddress is what /api advertises in serverAddressByClientCIDRs
	// (host:port); empty leaves the list out.
	ServerAddress string
}

// ServeLegacyRoot serves /api.
func (h *Handler) ServeLegacyRoot(w http.ResponseWriter, r *http.Request) {
	d := h.Registry.docs()
	if h.serveAggregated(w, r, d, d.aggregatedAPI) {
		return
	}
	versions := &metav1.APIVersions{
		TypeMeta: metav1.TypeMeta{Kind: "APIVersions"},
		Versions: d.legacyVersions,
	}
	if h.ServerAddress != "" {
		versions.ServerAddressByClientCIDRs = []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: h.ServerAddress}}
	}
	writeDocument(w, r, versions)
}

// ServeGroups serves /apis, in the aggregated form if the client asks for
// it.
func (h *Handler) ServeGroups(w http.ResponseWriter, r *http.Request) {
	d := h.Registry.docs()
	if h.serveAggregated(w, r, d, d.aggregatedAPIs) {
		return
	}
	h.ServeLegacyGroups(w, r)
}

// ServeLegacyGroups serves the APIGroupList of /apis; a client that
// accepts only the aggregated form gets 406.
func (h *Handler) ServeLegacyGroups(w http.ResponseWriter, r *http.Request) {
	d := h.Registry.docs()
	writeAggregatorDocument(w, r, &metav1.APIGroupList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
		Groups:   d.groups,
	})
}

// ServeGroup serves /apis/<group>; ok is false when the group is not
// served, so the caller can pass the request on.
func (h *Handler) ServeGroup(w http.ResponseWriter, r *http.Request, group string) (ok bool) {
	g, ok := h.Registry.docs().groupByName[group]
	if !ok {
		return false
	}
	out := *g
	out.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
	writeAggregatorDocument(w, r, &out)
	return true
}

// ServeResources serves /api/v1 and /apis/<group>/<version>; ok is false
// when the group version is not served.
func (h *Handler) ServeResources(w http.ResponseWriter, r *http.Request, gv schema.GroupVersion) (ok bool) {
	list, ok := h.Registry.docs().resourceLists[gv]
	if !ok {
		return false
	}
	writeDocument(w, r, list)
	return true
}

// serveAggregated answers with the aggregated document list of d if the
// client asks for it, and reports whether it did.
func (h *Handler) serveAggregated(w http.ResponseWriter, r *http.Request, d *documents, list *apidiscoveryv2.APIGroupDiscoveryList) bool {
	info, opts, err := negotiation.NegotiateOutput(r, discoveryCodecs.SupportedMediaTypes(), func(o negotiation.MediaTypeOptions) bool {
		return o.Convert == "APIGroupDiscoveryList" && o.ConvertGroup == apidiscoveryv2.SchemeGroupVersion.Group &&
			o.ConvertVersion == apidiscoveryv2.SchemeGroupVersion.Version
	})
	if err != nil || opts.Convert == "" {
		return false
	}
	doc := d.encodedAggregated(list, info.MediaType, info.Serializer)
	if doc.err != nil {
		responsewriters.WriteErrorStatus(w, r, doc.err)
		return true
	}
	w.Header().Set("Vary", "Accept")
	w.Header().Set("Cache-Control", "public")
	w.Header().Set("ETag", doc.etag)
	w.Header().Set("Content-Type", fmt.Sprintf("%s;g=%s;v=%s;as=APIGroupDiscoveryList", info.MediaType,
		apidiscoveryv2.SchemeGroupVersion.Group, apidiscoveryv2.SchemeGroupVersion.Version))
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, doc.etag) {
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(doc.body)
	return true
}

// writeAggregatorDocument writes a document that kube-apiserver serves
// from kube-aggregator (/apis, /apis/<group>), whose 406 is worded apart
// from that of the documents its web services serve.
func writeAggregatorDocument(w http.ResponseWriter, r *http.Request, obj runtime.Object) {
	if _, _, err := negotiation.NegotiateOutput(r, discoveryCodecs.SupportedMediaTypes(), nil); err != nil {
		responsewriters.WriteStatus(w, &metav1.Status{
			TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status:   metav1.StatusFailure,
			Message:  "only the following media types are accepted: " + strings.Join(mediaTypes(), ", "),
			Reason:   metav1.StatusReasonNotAcceptable,
			Code:     http.StatusNotAcceptable,
		})
		return
	}
	writeDocument(w, r, obj)
}

// mediaTypes are the media types discovery documents are served in.
func mediaTypes() []string {
	var out []string
	for _, info := range discoveryCodecs.SupportedMediaTypes() {
		out = append(out, info.MediaType)
	}
	return out
}

// writeDocument writes a legacy discovery document in the negotiated
// encoding.
func writeDocument(w http.ResponseWriter, r *http.Request, obj runtime.Object) {
	info, opts, err := negotiation.NegotiateOutput(r, discoveryCodecs.SupportedMediaTypes(), nil)
	if err != nil {
		responsewriters.WriteErrorStatus(w, r, err)
		return
	}
	ser := info.Serializer
	if opts.Pretty && info.PrettySerializer != nil {
		ser = info.PrettySerializer
	}
	body, err := runtime.Encode(ser, obj)
	if err != nil {
		responsewriters.WriteErrorStatus(w, r, err)
		return
	}
	w.Header().Set("Content-Type", info.MediaType)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// HostPort joins a host and port for ServerAddress.
func HostPort(host string, port int) string {
	return net.JoinHostPort(host, fmt.Sprint(port))
}
