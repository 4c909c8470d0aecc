package openapi

import (
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"

	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/kube-openapi/pkg/handler3"
	"k8s.io/kube-openapi/pkg/openapiconv"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/pkg/aggregator/remote"
)

// v3Index is the answer to a download of /openapi/v3.
type v3Index struct {
	// paths are the listed documents and their serverRelativeURL.
	paths map[string]string
	// notFound: the server has no /openapi/v3.
	notFound bool
}

func downloadV3Index(ctx context.Context, transport remote.Transport, apiService *apiregistrationv1.APIService) (v3Index, error) {
	resp, err := remote.Get(ctx, transport, apiService, "/openapi/v3", aggregatorUser, nil)
	if err != nil {
		return v3Index{}, err
	}
	switch resp.StatusCode {
	case http.StatusNotFound:
		return v3Index{notFound: true}, nil
	case http.StatusOK:
		var index handler3.OpenAPIV3Discovery
		if err := json.Unmarshal(resp.Body, &index); err != nil {
			return v3Index{}, fmt.Errorf("decoding /openapi/v3: %w", err)
		}
		paths := make(map[string]string, len(index.Paths))
		for p, gv := range index.Paths {
			paths[p] = gv.ServerRelativeURL
		}
		return v3Index{paths: paths}, nil
	default:
		return v3Index{}, fmt.Errorf("/openapi/v3 answered %d: %.200s", resp.StatusCode, resp.Body)
	}
}

// mergedV3 serves /openapi/v3 and its documents: the local ones, those
// remote servers list (passed through to them) and those converted from
// the v2 documents of the servers with no v3.
type mergedV3 struct {
	a *Aggregator
	// converted serves the converted documents, hashed as
	// kube-apiserver hashes them.
	converted *handler3.OpenAPIService

	mu sync.Mutex
	// convertedFrom are the v2 documents converted, by path.
	convertedFrom map[string]*spec.Swagger
	// index is the merged index of one state of the local index and the
	// remote documents.
	indexKey string
	index    *encodedIndex
}

type encodedIndex struct {
	body         []byte
	etag         string
	lastModified time.Time
	// remote are the paths served by a remote server, and by which.
	remote map[string]*apiregistrationv1.APIService
	// converted are the paths of converted documents.
	converted map[string]bool
}

func newMergedV3(a *Aggregator) *mergedV3 {
	return &mergedV3{a: a, converted: handler3.NewOpenAPIService(), convertedFrom: map[string]*spec.Swagger{}}
}

// convert serves the conversion of an APIService's v2 document as its
// group version's v3 document, as kube-aggregator does for a server with
// no /openapi/v3.
func (m *mergedV3) convert(apiService *apiregistrationv1.APIService, doc *spec.Swagger) {
	path := groupVersionPath(apiService)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.convertedFrom[path] == doc {
		return
	}
	m.convertedFrom[path] = doc
	m.converted.UpdateGroupVersion(path, openapiconv.ConvertV2ToV3(doc))
}

func (m *mergedV3) forgetConverted(apiService *apiregistrationv1.APIService) {
	path := groupVersionPath(apiService)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.convertedFrom[path]; ok {
		delete(m.convertedFrom, path)
		m.converted.DeleteGroupVersion(path)
	}
}

// record serves a request to h in memory.
func record(h http.Handler, path string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
	return w
}

// currentIndex returns the merged index: the local documents first, then
// the converted ones, then those of the remote servers by priority, a
// path listed already keeping its first server.
func (m *mergedV3) currentIndex() (*encodedIndex, error) {
	_, remotes := m.a.snapshot()
	local := record(m.a.local, "/openapi/v3")
	if local.Code != http.StatusOK {
		return nil, fmt.Errorf("the local OpenAPI index answered %d: %s", local.Code, local.Body)
	}
	converted := record(http.HandlerFunc(m.converted.HandleDiscovery), "/openapi/v3")
	if converted.Code != http.StatusOK {
		return nil, fmt.Errorf("the index of converted documents answered %d", converted.Code)
	}

	h := sha512.New()
	fmt.Fprintf(h, "%s\x00%s\x00", local.Header().Get("Etag"), converted.Header().Get("Etag"))
	for _, r := range remotes {
		fmt.Fprintf(h, "%s\x00", r.apiService.Name)
		if err := json.NewEncoder(h).Encode(r.v3Paths); err != nil {
			return nil, err
		}
	}
	key := fmt.Sprintf("%X", h.Sum(nil))
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.index != nil && key == m.indexKey {
		return m.index, nil
	}

	var merged handler3.OpenAPIV3Discovery
	if err := json.Unmarshal(local.Body.Bytes(), &merged); err != nil {
		return nil, fmt.Errorf("decoding the local OpenAPI index: %w", err)
	}
	if merged.Paths == nil {
		merged.Paths = map[string]handler3.OpenAPIV3DiscoveryGroupVersion{}
	}
	index := &encodedIndex{lastModified: time.Now(), remote: map[string]*apiregistrationv1.APIService{}, converted: map[string]bool{}}
	var convertedIndex handler3.OpenAPIV3Discovery
	if err := json.Unmarshal(converted.Body.Bytes(), &convertedIndex); err != nil {
		return nil, fmt.Errorf("decoding the index of converted documents: %w", err)
	}
	for p, gv := range convertedIndex.Paths {
		if _, ok := merged.Paths[p]; !ok {
			merged.Paths[p] = gv
			index.converted[p] = true
		}
	}
	for _, r := range remotes {
		for p, u := range r.v3Paths {
			if _, ok := merged.Paths[p]; !ok {
				merged.Paths[p] = handler3.OpenAPIV3DiscoveryGroupVersion{ServerRelativeURL: u}
				index.remote[p] = r.apiService
			}
		}
	}
	body, err := json.Marshal(merged)
	if err != nil {
		return nil, err
	}
	index.body = body
	index.etag = fmt.Sprintf("%X", sha512.Sum512(body))
	m.indexKey, m.index = key, index
	return index, nil
}

// hasRemote tells whether any remote APIService has v3 documents.
func (m *mergedV3) hasRemote() bool {
	_, remotes := m.a.snapshot()
	for _, r := range remotes {
		if len(r.v3Paths) > 0 || r.v3Converted {
			return true
		}
	}
	return false
}

func (m *mergedV3) serveIndex(w http.ResponseWriter, r *http.Request) {
	if !m.hasRemote() {
		m.a.local.ServeHTTP(w, r)
		return
	}
	index, err := m.currentIndex()
	if err != nil {
		http.Error(w, "the OpenAPI index could not be built: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Etag", strconv.Quote(index.etag))
	http.ServeContent(w, r, "/openapi/v3", index.lastModified, bytes.NewReader(index.body))
}

// serveDocument serves /openapi/v3/<path>: the local document, a
// converted one, or the remote server's answer.
func (m *mergedV3) serveDocument(w http.ResponseWriter, r *http.Request, path string) {
	if !m.hasRemote() {
		m.a.local.ServeHTTP(w, r)
		return
	}
	index, err := m.currentIndex()
	if err != nil {
		http.Error(w, "the OpenAPI index could not be built: "+err.Error(), http.StatusInternalServerError)
		return
	}
	switch apiService := index.remote[path]; {
	case apiService != nil:
		user, ok := remote.UserOf(r)
		if !ok {
			user = aggregatorUser
		}
		if err := remote.Do(w, r, m.a.transport, apiService, user); err != nil {
			// What kube-aggregator's proxy answers when it cannot reach
			// the server.
			http.Error(w, "service unavailable", http.StatusServiceUnavailable)
		}
	case index.converted[path]:
		m.converted.HandleGroupVersion(w, r)
	default:
		m.a.local.ServeHTTP(w, r)
	}
}
