package openapi

import (
	"bytes"
	"crypto/rand"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/munnerz/goautoneg"
	"k8s.io/kube-openapi/pkg/handler3"
)

// The media types of the /openapi/v3 documents, as kube-apiserver serves
// them; the "@" form is the older spelling of the protobuf one.
const (
	mediaTypeV3Protobuf       = "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"
	mediaTypeV3ProtobufLegacy = "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"
)

// /openapi/v3 is an index of the documents, each at a URL with a hash of
// its content that clients cache it under for ever; a document is then
// fetched, by that URL, for the group version a client needs.
//
// kube-apiserver (kube-openapi's handler3) hashes the encoded documents:
// the first request for the index after a start builds and keeps every
// document, a second of CPU and a few hundred megabytes with a thousand
// CRDs, for clients that want one of them. kapi hashes what a document is
// built from instead, the served resources, and builds a document when it
// is asked for. The hash is as stable as the content across restarts and
// replicas of one build; a build whose version control revision is not
// known (a test binary, a modified checkout) hashes with a random identity
// of the process instead, which clients see as new documents after each
// restart.

// buildIdentity names the code that builds the documents: its revision
// when it was built from a clean checkout, else a random identity of the
// process.
var buildIdentity = sync.OnceValue(func() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		var revision, modified string
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if revision != "" && modified == "false" {
			return "revision " + revision + " " + info.GoVersion
		}
	}
	var nonce [16]byte
	_, _ = rand.Read(nonce[:])
	return "process " + hex.EncodeToString(nonce[:])
})

// servedDocument is the served form of one v3 document: its hash, and its
// encodings, made on first request and kept while the document is served.
type servedDocument struct {
	path         string
	lastModified time.Time

	hashOnce sync.Once
	hash     string

	jsonOnce sync.Once
	json     []byte
	jsonErr  error

	protoOnce sync.Once
	proto     []byte
	protoErr  error
}

// contentHash is the document's hash: of the build identity, the info, the
// path and the resources the document describes, which determine it.
func (d *servedDocument) contentHash(info Info, src *v3Source) string {
	d.hashOnce.Do(func() {
		h := sha512.New()
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%t\x00", buildIdentity(), info.Title, info.Version, d.path, src.flavour.customResources)
		if err := json.NewEncoder(h).Encode(src.resources); err != nil {
			// Describable resources encode; should one not, the document
			// is still told apart from every other.
			fmt.Fprintf(h, "unencodable %p", src)
		}
		d.hash = fmt.Sprintf("%X", h.Sum(nil))
	})
	return d.hash
}

// serverRelativeURL is where the index sends clients for the document.
func (d *servedDocument) serverRelativeURL(hash string) string {
	return (&url.URL{Path: "/openapi/v3/" + d.path, RawQuery: url.Values{"hash": {hash}}.Encode()}).String()
}

// v3Index is the encoded index of one state of the served documents.
type v3Index struct {
	once         sync.Once
	body         []byte
	etag         string
	err          error
	lastModified time.Time
}

// serveV3Index serves /openapi/v3.
func (s *Service) serveV3Index(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	index := s.v3Index
	if index == nil {
		index = &v3Index{lastModified: time.Now()}
		s.v3Index = index
	}
	sources := make(map[string]*v3Source, len(s.v3Docs))
	for path, src := range s.v3Docs {
		sources[path] = src
	}
	s.mu.Unlock()

	index.once.Do(func() {
		doc := handler3.OpenAPIV3Discovery{Paths: make(map[string]handler3.OpenAPIV3DiscoveryGroupVersion, len(sources))}
		for path, src := range sources {
			hash := src.served.contentHash(s.info, src)
			doc.Paths[path] = handler3.OpenAPIV3DiscoveryGroupVersion{ServerRelativeURL: src.served.serverRelativeURL(hash)}
		}
		index.body, index.err = json.Marshal(doc)
		index.etag = fmt.Sprintf("%X", sha512.Sum512(index.body))
	})
	if index.err != nil {
		http.Error(w, "the OpenAPI index could not be built: "+index.err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Etag", strconv.Quote(index.etag))
	// No Content-Type: kube-apiserver leaves it to content sniffing,
	// which names this JSON text/plain, and kapi answers the same.
	http.ServeContent(w, r, "/openapi/v3", index.lastModified, bytes.NewReader(index.body))
}

// serveV3Document serves /openapi/v3/<path> in JSON or protobuf. Fetched
// with the hash of the current document, it may be cached for ever; with
// another hash, the client is sent to the current one.
func (s *Service) serveV3Document(w http.ResponseWriter, r *http.Request, path string) {
	s.mu.Lock()
	src, ok := s.v3Docs[path]
	s.mu.Unlock()
	if !ok {
		// kube-apiserver's 404 here has no body and no Content-Type.
		w.WriteHeader(http.StatusNotFound)
		return
	}
	d := src.served
	accept := r.Header.Get("Accept")
	if accept == "" {
		accept = "*/*"
	}
	w.Header().Add("Vary", "Accept")
	for _, clause := range goautoneg.ParseAccept(accept) {
		var body func() ([]byte, error)
		var contentType string
		switch {
		case matches(clause, mediaTypeJSON):
			body, contentType = func() ([]byte, error) { return s.v3JSON(src) }, mediaTypeJSON
		case matches(clause, mediaTypeV3Protobuf), matches(clause, mediaTypeV3ProtobufLegacy):
			body, contentType = func() ([]byte, error) { return s.v3Protobuf(src) }, mediaTypeV3Protobuf
		default:
			continue
		}
		hash := d.contentHash(s.info, src)
		if asked := r.URL.Query().Get("hash"); asked != "" {
			if asked != hash {
				http.Redirect(w, r, d.serverRelativeURL(hash), http.StatusMovedPermanently)
				return
			}
			// The document at this URL never changes.
			w.Header().Set("Cache-Control", "public, immutable")
			w.Header().Set("Expires", time.Now().AddDate(1, 0, 0).Format(time.RFC1123))
		}
		data, err := body()
		if err != nil {
			http.Error(w, "the OpenAPI document could not be built: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Etag", strconv.Quote(hash))
		http.ServeContent(w, r, "", d.lastModified, bytes.NewReader(data))
		return
	}
	w.WriteHeader(http.StatusNotAcceptable)
}

// v3JSON is the JSON encoding of a source's document, built once.
func (s *Service) v3JSON(src *v3Source) ([]byte, error) {
	d := src.served
	d.jsonOnce.Do(func() {
		doc, err := buildV3(s.info, src.ops, s.kinds, src.flavour)
		if err != nil {
			d.jsonErr = err
			return
		}
		d.json, d.jsonErr = json.Marshal(doc)
	})
	return d.json, d.jsonErr
}

// v3Protobuf is the protobuf encoding of a source's document, made from
// its JSON once.
func (s *Service) v3Protobuf(src *v3Source) ([]byte, error) {
	d := src.served
	d.protoOnce.Do(func() {
		data, err := s.v3JSON(src)
		if err != nil {
			d.protoErr = err
			return
		}
		d.proto, d.protoErr = handler3.ToV3ProtoBinary(data)
	})
	return d.proto, d.protoErr
}
