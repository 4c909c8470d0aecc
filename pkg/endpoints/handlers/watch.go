package handlers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/endpoints/negotiation"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// serveWatch streams a watch to the client until the watch ends, the
// client goes away, the timeout passes or the server shuts down. It
// returns the error to answer with when the watch cannot start; once the
// status line is out, it has answered.
func serveWatch(ctx context.Context, w http.ResponseWriter, r *http.Request, s *RequestScope, watcher rest.Watcher, opts *metav1.ListOptions, timeout time.Duration) error {
	info, mopts, err := negotiation.NegotiateOutput(r, s.Serializer.SupportedMediaTypes(), s.canConvert(false))
	if err != nil {
		return err
	}
	if info.StreamSerializer == nil {
		return apierrors.NewBadRequest(fmt.Sprintf("no stream serializers registered for %s", info.MediaType))
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	wi, err := watcher.Watch(ctx, opts)
	if err != nil {
		return err
	}
	defer wi.Stop()

	flusher, _ := w.(http.Flusher)
	objSer := info.Serializer
	if mopts.Pretty && info.PrettySerializer != nil {
		objSer = info.PrettySerializer
	}
	events := newWatchEventWriter(w, s.Serializer, objSer, info)

	contentType := info.MediaType
	if info.MediaType == runtime.ContentTypeProtobuf {
		// Protobuf watch frames are not a plain protobuf body.
		contentType += ";stream=watch"
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Transfer-Encoding", "chunked")
	w.WriteHeader(http.StatusOK)
	if flusher != nil {
		flusher.Flush()
	}

	ch := wi.ResultChan()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-ch:
			if !ok {
				return nil
			}
			obj, gv, err := s.watchEventObject(ctx, ev, mopts, r)
			if err != nil {
				utilruntime.HandleError(fmt.Errorf("watch of %s: %w", s.Resource, err))
				return nil
			}
			if err := events.write(ev.Type, obj, gv); err != nil {
				if !errors.Is(err, errClientGone) {
					utilruntime.HandleError(fmt.Errorf("encoding watch event of %s: %w", s.Resource, err))
				}
				return nil
			}
			// Under load, events queue up: one flush sends them all.
			if len(ch) == 0 && flusher != nil {
				flusher.Flush()
			}
		}
	}
}

// errClientGone is a failed write to the client.
var errClientGone = errors.New("watch client gone")

// watchEventWriter writes watch events in one media type.
type watchEventWriter struct {
	w      io.Writer
	codecs runtime.NegotiatedSerializer
	objSer runtime.Serializer
	// encoders holds an object encoder per group version: making one
	// computes its identifier, too costly to do per event.
	encoders map[schema.GroupVersion]runtime.Encoder
	// plainJSON frames JSON events by hand; stream encodes the
	// metav1.WatchEvent otherwise (protobuf, pretty JSON, YAML).
	plainJSON bool
	stream    streaming.Encoder
	buf       bytes.Buffer
	frame     bytes.Buffer
}

func newWatchEventWriter(w io.Writer, codecs runtime.NegotiatedSerializer, objSer runtime.Serializer, info runtime.SerializerInfo) *watchEventWriter {
	framer := info.StreamSerializer.Framer
	return &watchEventWriter{
		w:         w,
		codecs:    codecs,
		objSer:    objSer,
		encoders:  map[schema.GroupVersion]runtime.Encoder{},
		plainJSON: info.MediaType == runtime.ContentTypeJSON && objSer == info.Serializer,
		stream:    streaming.NewEncoder(framer.NewFrameWriter(w), info.StreamSerializer.Serializer),
	}
}

// write sends one event. An object the watch cache shares between
// watchers encodes to bytes it has cached, so the per-watcher cost is a
// copy.
func (e *watchEventWriter) write(typ watch.EventType, obj runtime.Object, gv schema.GroupVersion) error {
	enc, ok := e.encoders[gv]
	if !ok {
		enc = e.codecs.EncoderForVersion(e.objSer, scheme.KindVersioner{GroupVersion: gv})
		e.encoders[gv] = enc
	}
	e.buf.Reset()
	if err := enc.Encode(obj, &e.buf); err != nil {
		return err
	}
	if !e.plainJSON {
		out := &metav1.WatchEvent{Type: string(typ), Object: runtime.RawExtension{Raw: e.buf.Bytes()}}
		if err := e.stream.Encode(out); err != nil {
			return errors.Join(errClientGone, err)
		}
		e.releaseLargeBuffer()
		return nil
	}
	// What encoding/json makes of a metav1.WatchEvent, byte for byte:
	// the object is already compact JSON with HTML characters escaped,
	// and only its trailing newline goes. The frame is written in three
	// pieces (the response is buffered): a watcher holds one copy of an
	// event, not two.
	e.frame.Reset()
	e.frame.WriteString(`{"type":`)
	e.frame.WriteString(strconv.Quote(string(typ)))
	e.frame.WriteString(`,"object":`)
	for _, piece := range [][]byte{e.frame.Bytes(), bytes.TrimSuffix(e.buf.Bytes(), []byte("\n")), []byte("}\n")} {
		if _, err := e.w.Write(piece); err != nil {
			return errors.Join(errClientGone, err)
		}
	}
	e.releaseLargeBuffer()
	return nil
}

// largeEventBuffer is the size above which a watcher does not keep its
// encoding buffer between events: an idle watch should not hold on to
// the largest object it ever sent.
const largeEventBuffer = 64 << 10

func (e *watchEventWriter) releaseLargeBuffer() {
	if e.buf.Cap() > largeEventBuffer {
		e.buf = bytes.Buffer{}
	}
}

// watchEventObject is the object a watch event carries on the wire: errors
// as a Status, bookmarks as-is, others converted like a get response.
func (s *RequestScope) watchEventObject(ctx context.Context, ev watch.Event, mopts negotiation.MediaTypeOptions, r *http.Request) (runtime.Object, schema.GroupVersion, error) {
	switch ev.Type {
	case watch.Error:
		if st, ok := ev.Object.(*metav1.Status); ok {
			return st, metav1.SchemeGroupVersion, nil
		}
		return ev.Object, metav1.SchemeGroupVersion, nil
	case watch.Bookmark:
		if mopts.Convert == asTable {
			// A bookmark in a table watch is a table with no rows that
			// carries the resourceVersion.
			return bookmarkTable(ev.Object), metav1.SchemeGroupVersion, nil
		}
		if mopts.Convert == asPartialObjectMetadata {
			obj, gv, err := s.transformObject(ctx, ev.Object, mopts, r)
			return obj, gv, err
		}
		return ev.Object, s.Kind.GroupVersion(), nil
	}
	obj := ev.Object
	if co, ok := obj.(runtime.CacheableObject); ok && mopts.Convert == asTable {
		// An object the watch cache shares between watchers is encoded
		// as it is, once for all; a table is made of a copy of its own.
		obj = co.GetObject()
	}
	return s.transformObject(ctx, obj, mopts, r)
}

// bookmarkTable is the Table form of a bookmark event: no rows, the
// bookmark's resourceVersion and annotations in its metadata.
func bookmarkTable(obj runtime.Object) *metav1.Table {
	t := &metav1.Table{}
	if m, err := meta.Accessor(obj); err == nil {
		t.ResourceVersion = m.GetResourceVersion()
	}
	return t
}
