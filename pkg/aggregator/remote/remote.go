// Package remote sends the aggregator's own requests to the servers behind
// APIServices: the discovery and OpenAPI documents it downloads in the
// background (pkg/aggregator/discovery, pkg/aggregator/openapi). Clients'
// requests go through the proxy (pkg/aggregator/proxy), whose transport
// these requests use too, so that a remote server sees the same client
// certificate and trusts the same front-proxy headers.
package remote

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
)

// Transport knows how to reach the server behind an APIService: the round
// tripper to send requests with (the proxy client certificate, the
// APIService's caBundle, the resolved service address) and the base URL
// of the server. It fails when the service cannot be resolved.
type Transport func(*apiregistrationv1.APIService) (http.RoundTripper, *url.URL, error)

// User is who a request is made as, told to the remote server in
// front-proxy headers (X-Remote-User, X-Remote-Group, X-Remote-Extra-),
// as kube-aggregator tells it.
type User struct {
	Name   string
	Groups []string
	Extra  map[string][]string
}

// UserOf is the user of a client's request, ok false if it has none.
func UserOf(r *http.Request) (u User, ok bool) {
	info, ok := request.UserFrom(r.Context())
	if !ok {
		return User{}, false
	}
	return User{Name: info.GetName(), Groups: info.GetGroups(), Extra: info.GetExtra()}, true
}

// MaxBody bounds what is read of a response: the OpenAPI document of a
// large server is a few megabytes.
const MaxBody = 64 << 20

// Response is a response read whole.
type Response struct {
	StatusCode int
	Header     http.Header
	Body       []byte
}

// Get sends GET path (with its query, if any) to the server behind
// apiService as user, with header, and reads the response. ctx bounds the
// whole exchange.
func Get(ctx context.Context, transport Transport, apiService *apiregistrationv1.APIService, path string, user User, header http.Header) (*Response, error) {
	rt, base, err := transport(apiService)
	if err != nil {
		return nil, err
	}
	u := *base
	p, q, _ := strings.Cut(path, "?")
	u.Path = strings.TrimSuffix(u.Path, "/") + p
	u.RawPath = ""
	u.RawQuery = q
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("X-Remote-User", user.Name)
	for _, g := range user.Groups {
		req.Header.Add("X-Remote-Group", g)
	}
	for k, values := range user.Extra {
		for _, v := range values {
			req.Header.Add("X-Remote-Extra-"+url.PathEscape(k), v)
		}
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(body) > MaxBody {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, MaxBody)
	}
	return &Response{StatusCode: resp.StatusCode, Header: resp.Header, Body: body}, nil
}

// Do serves r (a client's request, path and all) from the server behind
// apiService as user, writing the remote's answer to w as it is. It is
// for documents the aggregator passes through, the OpenAPI v3 documents
// of remote group versions.
func Do(w http.ResponseWriter, r *http.Request, transport Transport, apiService *apiregistrationv1.APIService, user User) error {
	resp, err := Get(r.Context(), transport, apiService, r.URL.Path+query(r.URL), user, forwardedHeaders(r.Header))
	if err != nil {
		return err
	}
	for _, k := range []string{"Content-Type", "Content-Encoding", "Etag", "Cache-Control", "Expires", "Last-Modified", "Vary"} {
		if v, ok := resp.Header[k]; ok {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(resp.Body)
	return nil
}

func query(u *url.URL) string {
	if u.RawQuery == "" {
		return ""
	}
	return "?" + u.RawQuery
}

// forwardedHeaders are the headers of a client's request that choose the
// representation of a document, passed on to the remote server.
func forwardedHeaders(h http.Header) http.Header {
	out := http.Header{}
	for _, k := range []string{"Accept", "Accept-Encoding", "If-None-Match", "If-Modified-Since"} {
		if v, ok := h[k]; ok {
			out[k] = v
		}
	}
	return out
}
