// Package webhooktest serves admission webhooks over HTTPS on loopback,
// for the tests of the webhook admission plugins. A path names a
// behaviour and its parameters as pairs of segments (kube-apiserver
// refuses webhook URLs with a query), values path-escaped:
//
//	/allow                             allows
//	/deny/message/m/code/c             refuses with message m (and code c if given)
//	/label/key/k/value/v               allows, patching the object's label k to v
//	/slow/delay/d                      answers allow after d (or when the caller gives up)
//	/annotate/key/k/value/v            allows with the audit annotation k=v
//	/bad-uid                           answers for another request's uid
//	/error                             answers HTTP 500
//
// Any path also takes warn/w, a warning to answer with. The review is
// answered in the version it came in (admission.k8s.io/v1 or v1beta1).
// The server records the requests it receives.
package webhooktest

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/testpki"
)

// Server is a webhook server.
type Server struct {
	// URL is the server's base URL; CABundle the PEM to verify it with.
	URL      string
	CABundle []byte

	mu       sync.Mutex
	requests []Request
	// inFlight are the reviews being answered, maxInFlight the most at
	// once.
	inFlight, maxInFlight int
}

// MaxInFlight is the most reviews the server was answering at once.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

// Request is a review the server received: its behaviour (Path) and
// parameters, the review's version and request.
type Request struct {
	Path       string
	Query      url.Values
	APIVersion string
	Request    admissionv1.AdmissionRequest
	// Authorization is the request's Authorization header.
	Authorization string
}

// Start serves until the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	ca, cert := testpki.Serving(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{URL: "https://" + l.Addr().String(), CABundle: ca}
	srv := &http.Server{Handler: s, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.ServeTLS(l, "", "") }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

// Requests are the reviews received so far for a behaviour ("" for
// all).
func (s *Server) Requests(path string) []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Request
	for _, r := range s.requests {
		if path == "" || r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

type review struct {
	APIVersion string                         `json:"apiVersion"`
	Kind       string                         `json:"kind"`
	Request    *admissionv1.AdmissionRequest  `json:"request,omitempty"`
	Response   *admissionv1.AdmissionResponse `json:"response,omitempty"`
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var in review
	if err := json.Unmarshal(body, &in); err != nil || in.Request == nil {
		http.Error(w, fmt.Sprintf("not an AdmissionReview: %v", err), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	behaviour, params := parsePath(r.URL.Path)
	s.requests = append(s.requests, Request{Path: behaviour, Query: params, APIVersion: in.APIVersion, Request: *in.Request, Authorization: r.Header.Get("Authorization")})
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()

	q := params
	resp := &admissionv1.AdmissionResponse{UID: in.Request.UID, Allowed: true, Warnings: q["warn"]}
	switch behaviour {
	case "allow":
	case "deny":
		resp.Allowed = false
		resp.Result = &metav1.Status{Message: q.Get("message")}
		if c := q.Get("code"); c != "" {
			code, _ := strconv.Atoi(c)
			resp.Result.Code = int32(code)
		}
	case "label":
		resp.Patch = labelPatch(in.Request.Object.Raw, q.Get("key"), q.Get("value"))
		pt := admissionv1.PatchTypeJSONPatch
		resp.PatchType = &pt
	case "slow":
		d, _ := time.ParseDuration(q.Get("delay"))
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
	case "annotate":
		resp.AuditAnnotations = map[string]string{q.Get("key"): q.Get("value")}
	case "bad-uid":
		resp.UID = "not-" + resp.UID
	case "error":
		http.Error(w, "webhook failed", http.StatusInternalServerError)
		return
	default:
		http.NotFound(w, r)
		return
	}
	out := review{APIVersion: in.APIVersion, Kind: "AdmissionReview", Response: resp}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// labelPatch is a JSON patch setting label key to value on obj.
func labelPatch(obj []byte, key, value string) []byte {
	var o struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(obj, &o)
	var ops []map[string]any
	if o.Metadata.Labels == nil {
		ops = append(ops, map[string]any{"op": "add", "path": "/metadata/labels", "value": map[string]string{}})
	}
	ops = append(ops, map[string]any{"op": "add", "path": "/metadata/labels/" + escape(key), "value": value})
	b, _ := json.Marshal(ops)
	return b
}

func escape(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '~':
			out = append(out, '~', '0')
		case '/':
			out = append(out, '~', '1')
		default:
			out = append(out, s[i])
		}
	}
	return string(out)
}

// parsePath splits /behaviour/k1/v1/k2/v2... into the behaviour and its
// parameters.
func parsePath(p string) (string, url.Values) {
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	q := url.Values{}
	for i := 1; i+1 < len(parts); i += 2 {
		q.Add(parts[i], parts[i+1])
	}
	return parts[0], q
}
