package openapi

import (
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"github.com/munnerz/goautoneg"
	"google.golang.org/protobuf/proto"
	"k8s.io/kube-openapi/pkg/cached"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// The media types of /openapi/v2, as kube-apiserver serves them. kubectl and
// client-go ask for protobuf; the "@" form is the older spelling of the
// same type.
const (
	mediaTypeJSON           = "application/json"
	mediaTypeProtobuf       = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
	mediaTypeProtobufLegacy = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
)

// encoded is a serialized document, ready to be served.
type encoded struct {
	data         []byte
	etag         string
	lastModified time.Time
}

// v2Handler serves the Swagger 2.0 document in JSON and protobuf, gzipped
// when the client accepts it, as kube-openapi's pkg/handler does for
// kube-apiserver (that package needs github.com/NYTimes/gziphandler, which
// kapi does not depend on). Each form is encoded on first use and kept
// until the document changes: the document is 2 MB of JSON and encoding it
// takes longer than serving it.
type v2Handler struct {
	doc cached.LastSuccess[v2Source]

	spec             cached.Value[*spec.Swagger]
	json, jsonGzip   cached.Value[encoded]
	proto, protoGzip cached.Value[encoded]
}

// v2Source is what the v2 document is served from: the document kapi
// builds of its parts (v2Document), or one made elsewhere (swaggerSource).
type v2Source interface {
	Swagger() (*spec.Swagger, error)
	JSON() ([]byte, error)
	Protobuf() ([]byte, error)
}

func newV2Handler() *v2Handler {
	h := &v2Handler{}
	h.spec = cached.Transform(func(d v2Source, etag string, err error) (*spec.Swagger, string, error) {
		if err != nil {
			return nil, "", err
		}
		s, err := d.Swagger()
		return s, etag, err
	}, &h.doc)
	h.json = cached.Transform(func(d v2Source, _ string, err error) (encoded, string, error) {
		if err != nil {
			return encoded{}, "", err
		}
		data, err := d.JSON()
		if err != nil {
			return encoded{}, "", err
		}
		etag := fmt.Sprintf("%X", sha512.Sum512(data))
		return encoded{data: data, etag: etag, lastModified: time.Now()}, etag, nil
	}, &h.doc)
	// The protobuf form is made from the same parts, not by parsing the
	// JSON one again; the JSON's tag serves both, Vary: Accept tells
	// caches apart.
	h.proto = cached.Transform(func(e encoded, etag string, err error) (encoded, string, error) {
		if err != nil {
			return encoded{}, "", err
		}
		d, _, err := h.doc.Get()
		if err != nil {
			return encoded{}, "", err
		}
		data, err := d.Protobuf()
		if err != nil {
			return encoded{}, "", err
		}
		return encoded{data: data, etag: e.etag, lastModified: e.lastModified}, etag, nil
	}, h.json)
	h.jsonGzip = cached.Transform(gzipped, h.json)
	h.protoGzip = cached.Transform(gzipped, h.proto)
	return h
}

func gzipped(e encoded, etag string, err error) (encoded, string, error) {
	if err != nil {
		return encoded{}, "", err
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(e.data); err != nil {
		return encoded{}, "", err
	}
	if err := zw.Close(); err != nil {
		return encoded{}, "", err
	}
	return encoded{data: b.Bytes(), etag: e.etag, lastModified: e.lastModified}, etag, nil
}

// update replaces the document. version identifies it: a new one is
// encoded again.
func (h *v2Handler) update(version string, doc *v2Document) {
	h.doc.Store(cached.Static[v2Source](doc, version))
}

// NewSwaggerHandler serves the Swagger 2.0 document doc at /openapi/v2 as
// Service serves its own: JSON or protobuf, gzipped if asked, with ETags,
// each form encoded once per ETag of doc. The aggregator serves with it
// the local document merged with those of remote servers. While doc
// fails, its last document is served.
func NewSwaggerHandler(doc cached.Value[*spec.Swagger]) http.Handler {
	h := newV2Handler()
	h.doc.Store(cached.Transform(func(s *spec.Swagger, etag string, err error) (v2Source, string, error) {
		if err != nil {
			return nil, "", err
		}
		return &swaggerSource{doc: s}, etag, nil
	}, doc))
	return h
}

// swaggerSource serves a Swagger document as it is.
type swaggerSource struct {
	doc      *spec.Swagger
	jsonOnce sync.Once
	json     []byte
	jsonErr  error
}

func (s *swaggerSource) Swagger() (*spec.Swagger, error) { return s.doc, nil }

// JSON is the document's encoding, HTML characters unescaped as
// kube-apiserver's.
func (s *swaggerSource) JSON() ([]byte, error) {
	s.jsonOnce.Do(func() {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		s.jsonErr = enc.Encode(s.doc)
		s.json = bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	})
	return s.json, s.jsonErr
}

// Protobuf is gnostic's encoding of the JSON document, as kube-openapi's
// handler makes it.
func (s *swaggerSource) Protobuf() ([]byte, error) {
	data, err := s.JSON()
	if err != nil {
		return nil, err
	}
	doc, err := openapi_v2.ParseDocument(data)
	if err != nil {
		return nil, err
	}
	return proto.Marshal(doc)
}

func (h *v2Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	accept := r.Header.Get("Accept")
	if accept == "" {
		accept = "*/*"
	}
	w.Header().Add("Vary", "Accept")
	w.Header().Add("Vary", "Accept-Encoding")
	for _, clause := range goautoneg.ParseAccept(accept) {
		var plain, compressed cached.Value[encoded]
		var contentType string
		switch {
		case matches(clause, mediaTypeJSON):
			plain, compressed, contentType = h.json, h.jsonGzip, mediaTypeJSON
		case matches(clause, mediaTypeProtobuf), matches(clause, mediaTypeProtobufLegacy):
			plain, compressed, contentType = h.proto, h.protoGzip, mediaTypeProtobuf
		default:
			continue
		}
		doc := plain
		if acceptsGzip(r) {
			doc = compressed
			w.Header().Set("Content-Encoding", "gzip")
		}
		e, _, err := doc.Get()
		if err != nil {
			w.Header().Del("Content-Encoding")
			http.Error(w, "the OpenAPI document could not be built: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Etag", strconv.Quote(e.etag))
		// ServeContent answers conditional and range requests.
		http.ServeContent(w, r, "", e.lastModified, bytes.NewReader(e.data))
		return
	}
	w.WriteHeader(http.StatusNotAcceptable)
}

// matches tells whether an Accept clause admits a media type.
func matches(clause goautoneg.Accept, mediaType string) bool {
	typ, sub, _ := strings.Cut(mediaType, "/")
	return (clause.Type == typ || clause.Type == "*") && (clause.SubType == sub || clause.SubType == "*")
}

func acceptsGzip(r *http.Request) bool {
	for _, coding := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(coding), ";")
		if strings.TrimSpace(name) != "gzip" {
			continue
		}
		q := strings.ReplaceAll(params, " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}
