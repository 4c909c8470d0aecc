package openapi

import (
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync"

	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/kube-openapi/pkg/aggregator"
	"k8s.io/kube-openapi/pkg/cached"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/pkg/aggregator/remote"
	"github.com/kapi-dev/kapi/pkg/openapi"
)

// locallyMadeETag marks an ETag made of a document's content, for a
// server that sends none: it is compared, never sent back. kube-aggregator
// uses the same prefix.
const locallyMadeETag = `"6E8F849B434D4B98A569B9D7718876E9-`

// v2Download is the answer to a download of /openapi/v2.
type v2Download struct {
	// doc is the new document, nil when it did not change or there is
	// none (notFound).
	doc      *spec.Swagger
	etag     string
	notFound bool
}

// downloadV2 downloads a server's /openapi/v2, revalidating the document
// of ETag etag.
func downloadV2(ctx context.Context, transport remote.Transport, apiService *apiregistrationv1.APIService, etag string) (v2Download, error) {
	header := http.Header{"Accept": {"application/json"}}
	if etag != "" && !strings.HasPrefix(etag, locallyMadeETag) {
		header.Set("If-None-Match", etag)
	}
	resp, err := remote.Get(ctx, transport, apiService, "/openapi/v2", aggregatorUser, header)
	if err != nil {
		return v2Download{}, err
	}
	switch resp.StatusCode {
	case http.StatusNotModified:
		if etag == "" {
			return v2Download{}, fmt.Errorf("/openapi/v2 answered 304 to a request with no ETag")
		}
		return v2Download{etag: etag}, nil
	case http.StatusNotFound:
		return v2Download{notFound: true}, nil
	case http.StatusOK:
		newETag := resp.Header.Get("Etag")
		if newETag == "" {
			newETag = fmt.Sprintf("%s%X\"", locallyMadeETag, sha512.Sum512(resp.Body))
			if newETag == etag {
				return v2Download{etag: etag}, nil
			}
		}
		doc := &spec.Swagger{}
		if err := doc.UnmarshalJSON(resp.Body); err != nil {
			return v2Download{}, fmt.Errorf("decoding /openapi/v2: %w", err)
		}
		return v2Download{doc: doc, etag: newETag}, nil
	default:
		return v2Download{}, fmt.Errorf("/openapi/v2 answered %d: %.200s", resp.StatusCode, resp.Body)
	}
}

// filterV2 is the part of a server's document that is its APIService's:
// the paths under /apis/<group>/<version>/ and what they use.
func filterV2(doc *spec.Swagger, apiService *apiregistrationv1.APIService) *spec.Swagger {
	return aggregator.FilterSpecByPathsWithoutSideEffects(doc, []string{"/" + groupVersionPath(apiService) + "/"})
}

// mergedV2 serves /openapi/v2: the local document while no remote server
// has one, else the local one with theirs merged in, merged once per
// change of any of them.
type mergedV2 struct {
	a        *Aggregator
	local    http.Handler
	localDoc cached.Value[*spec.Swagger]
	merged   http.Handler

	mu        sync.Mutex
	key       string
	doc       *spec.Swagger
	remoteGen int
	remotes   []remoteSpecs
}

func newMergedV2(a *Aggregator) *mergedV2 {
	m := &mergedV2{a: a, local: a.local, localDoc: a.local.OpenAPIV2Document(), remoteGen: -1}
	m.merged = openapi.NewSwaggerHandler(cached.Func(m.get))
	return m
}

func (m *mergedV2) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if len(m.withDocuments()) == 0 {
		m.local.ServeHTTP(w, r)
		return
	}
	m.merged.ServeHTTP(w, r)
}

// withDocuments returns the remote APIServices that have a v2 document,
// in merge order.
func (m *mergedV2) withDocuments() []remoteSpecs {
	gen, specs := m.a.snapshot()
	m.mu.Lock()
	defer m.mu.Unlock()
	if gen == m.remoteGen {
		return m.remotes
	}
	var out []remoteSpecs
	for _, s := range specs {
		if s.v2Filtered != nil {
			out = append(out, s)
		}
	}
	m.remoteGen, m.remotes = gen, out
	return out
}

// get returns the merged document, with an ETag of what it is made of.
func (m *mergedV2) get() (*spec.Swagger, string, error) {
	remotes := m.withDocuments()
	local, localETag, err := m.localDoc.Get()
	if err != nil {
		return nil, "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%q\x00", localETag)
	for _, r := range remotes {
		fmt.Fprintf(h, "%q %q\x00", r.apiService.Name, r.v2ETag)
	}
	key := fmt.Sprintf("%x", h.Sum(nil))

	m.mu.Lock()
	defer m.mu.Unlock()
	if key == m.key {
		return m.doc, key, nil
	}
	doc, err := merge(local, remotes)
	if err != nil {
		return nil, "", err
	}
	m.key, m.doc = key, doc
	return doc, key, nil
}

// merge merges the remote documents into a copy of local, leaving local
// as it is: it is shared.
func merge(local *spec.Swagger, remotes []remoteSpecs) (*spec.Swagger, error) {
	merged := *local
	merged.Paths = &spec.Paths{Paths: map[string]spec.PathItem{}}
	if local.Paths != nil {
		merged.Paths.VendorExtensible = local.Paths.VendorExtensible
		maps.Copy(merged.Paths.Paths, local.Paths.Paths)
	}
	merged.Definitions = maps.Clone(local.Definitions)
	merged.Parameters = maps.Clone(local.Parameters)
	for _, r := range remotes {
		// The merge adds the group-version-kinds of an equal remote
		// definition to the existing one's extensions: give those their
		// own copy first.
		for name := range r.v2Filtered.Definitions {
			if d, ok := merged.Definitions[name]; ok {
				d.Extensions = maps.Clone(d.Extensions)
				merged.Definitions[name] = d
			}
		}
		if err := aggregator.MergeSpecsIgnorePathConflictRenamingDefinitionsAndParameters(&merged, r.v2Filtered); err != nil {
			return nil, fmt.Errorf("merging the OpenAPI document of APIService %s: %w", r.apiService.Name, err)
		}
	}
	return &merged, nil
}
