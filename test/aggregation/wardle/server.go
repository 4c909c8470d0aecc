// Package wardle is a small extension API server built with
// k8s.io/apiserver, the way extension servers are built for
// kube-apiserver's aggregation layer: it serves wardle.example.com/v1alpha1
// (one namespaced kind, Flunder, kept in memory), authenticates the
// requests the aggregator proxies to it by the front-proxy client
// certificate and headers the cluster publishes in the
// kube-system/extension-apiserver-authentication ConfigMap, and asks the
// cluster to authorize them with SubjectAccessReviews.
//
// It is what test/aggregation registers with kapi, and an example of how
// to build one.
package wardle

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"sync"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/endpoints/openapi"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/options"
	"k8s.io/apiserver/pkg/util/compatibility"
)

// Options are the server's flags: k8s.io/apiserver's recommended ones
// (--secure-port, --tls-cert-file, --kubeconfig,
// --authentication-kubeconfig, --authorization-kubeconfig, ...) and where
// to record the requests it serves.
type Options struct {
	Recommended *options.RecommendedOptions
	// RecordFile, if set, receives a JSON line per API request: who the
	// request came from, as authentication found it.
	RecordFile string
}

// NewOptions returns the defaults: no etcd (the flunders are kept in
// memory) and no admission plugins.
func NewOptions() *Options {
	o := &Options{Recommended: options.NewRecommendedOptions("", Codecs.LegacyCodec(SchemeGroupVersion))}
	o.Recommended.Etcd = nil
	o.Recommended.Admission = nil
	return o
}

// AddFlags adds the options' flags to fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	o.Recommended.AddFlags(fs)
	fs.StringVar(&o.RecordFile, "record-requests", o.RecordFile, "File to append a JSON line to for every API request: verb, path, user, groups and extra.")
}

// Record is what the server writes to --record-requests for a request.
type Record struct {
	Verb   string              `json:"verb"`
	Path   string              `json:"path"`
	User   string              `json:"user"`
	Groups []string            `json:"groups"`
	Extra  map[string][]string `json:"extra,omitempty"`
}

// Run serves until ctx is done.
func (o *Options) Run(ctx context.Context) error {
	if errs := o.Recommended.Validate(); len(errs) > 0 {
		return errs[0]
	}
	config := genericapiserver.NewRecommendedConfig(Codecs)
	config.EffectiveVersion = compatibility.DefaultBuildEffectiveVersion()

	// The OpenAPI documents name the group's types by their models and
	// mark them with their group, version and kind.
	namer := runtime.NewScheme()
	namer.AddKnownTypes(SchemeGroupVersion, &Flunder{}, &FlunderList{})
	config.OpenAPIConfig = genericapiserver.DefaultOpenAPIConfig(GetOpenAPIDefinitions, openapi.NewDefinitionNamer(namer))
	config.OpenAPIConfig.Info.Title = "Wardle"
	config.OpenAPIV3Config = genericapiserver.DefaultOpenAPIV3Config(GetOpenAPIDefinitions, openapi.NewDefinitionNamer(namer))
	config.OpenAPIV3Config.Info.Title = "Wardle"

	if err := o.Recommended.ApplyTo(config); err != nil {
		return err
	}
	if o.RecordFile != "" {
		f, err := os.OpenFile(o.RecordFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		defer f.Close()
		config.BuildHandlerChainFunc = func(h http.Handler, c *genericapiserver.Config) http.Handler {
			return genericapiserver.DefaultBuildHandlerChain(record(f, h), c)
		}
	}

	server, err := config.Complete().New("wardle-apiserver", genericapiserver.NewEmptyDelegate())
	if err != nil {
		return err
	}
	group := genericapiserver.NewDefaultAPIGroupInfo(GroupName, Scheme, runtime.NewParameterCodec(Scheme), Codecs)
	group.VersionedResourcesStorageMap[SchemeGroupVersion.Version] = map[string]rest.Storage{"flunders": newStore()}
	if err := server.InstallAPIGroup(&group); err != nil {
		return err
	}
	return server.PrepareRun().RunWithContext(ctx)
}

// record wraps the API handler, inside authentication and authorization:
// it writes down the user of every request that reaches the API.
func record(f *os.File, h http.Handler) http.Handler {
	var mu sync.Mutex
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, ok := genericapirequest.UserFrom(r.Context()); ok {
			line, _ := json.Marshal(Record{Verb: r.Method, Path: r.URL.Path, User: u.GetName(), Groups: u.GetGroups(), Extra: u.GetExtra()})
			mu.Lock()
			_, _ = f.Write(append(line, '\n'))
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	})
}
