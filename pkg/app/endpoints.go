package app

import (
	"net/http"
	"net/http/pprof"

	"github.com/kapi-dev/kapi/pkg/endpoints"
	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
	"github.com/kapi-dev/kapi/pkg/metrics"
	"github.com/kapi-dev/kapi/pkg/server"
	"github.com/kapi-dev/kapi/pkg/version"
)

// installSystemEndpoints serves on the outermost server what is not an
// API group: discovery, /version, /metrics and /debug/pprof.
func installSystemEndpoints(s *server.GenericAPIServer, reg *metrics.Registry, profiling bool, advertise string) {
	d := &discovery.Handler{Registry: s.Discovery(), ServerAddress: advertise}
	s.InstallDiscovery(d)

	info := version.Handler()
	versionHandler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			// kube-apiserver serves /version as a GET-only web service.
			endpoints.MethodNotAllowed(w, r)
			return
		}
		info.ServeHTTP(w, r)
	})
	s.Handle("/version", versionHandler)
	s.Handle("/version/", versionHandler)

	s.Handle("/metrics", reg.Handler())

	if profiling {
		s.Handle("/debug/pprof/", http.HandlerFunc(pprof.Index))
		s.Handle("/debug/pprof/profile", http.HandlerFunc(pprof.Profile))
		s.Handle("/debug/pprof/symbol", http.HandlerFunc(pprof.Symbol))
		s.Handle("/debug/pprof/trace", http.HandlerFunc(pprof.Trace))
		s.Handle("/debug/pprof/cmdline", http.HandlerFunc(pprof.Cmdline))
	}
}
