package handlers

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/httpstream/wsstream"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// ConnectResource serves a Connecter (exec, attach, portforward, the
// proxies) as kube-apiserver does: dryRun is refused, the options are
// decoded from the query (and the path after the subresource, for
// proxies), admission sees a CONNECT of them, and the connecter's handler
// serves the rest of the request.
func ConnectResource(connecter rest.Connecter, s *RequestScope) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if _, ok := r.URL.Query()["dryRun"]; ok {
			s.writeError(w, r, apierrors.NewBadRequest("dryRun is not supported"))
			return
		}
		ctx, name, err := s.requestContext(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		opts, subpath, subpathKey := connecter.NewConnectOptions()
		if err := requestOptions(r, opts, subpath, subpathKey); err != nil {
			s.writeError(w, r, err)
			return
		}
		if s.Admission != nil {
			a := s.admissionAttributes(ctx, name, admission.Connect, opts, nil, nil, false)
			if err := s.Admission.Admit(ctx, a); err != nil {
				s.writeError(w, r, err)
				return
			}
			if err := s.Admission.Validate(ctx, a); err != nil {
				s.writeError(w, r, err)
				return
			}
		}
		handler, err := connecter.Connect(ctx, name, opts, responder{s})
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		handler.ServeHTTP(w, r.WithContext(ctx))
	}
}

// responder writes the errors of a connecter's handler.
type responder struct{ s *RequestScope }

func (rs responder) Error(w http.ResponseWriter, r *http.Request, err error) {
	rs.s.writeError(w, r, err)
}

// GetResourceWithOptions serves GET of a subresource that reads with
// options of its own (pods/log). A ResourceStreamer it returns is
// streamed as it comes, over a WebSocket when the client asks for one.
func GetResourceWithOptions(getter rest.GetterWithOptions, s *RequestScope) http.HandlerFunc {
	return s.serve(false, func(ctx context.Context, name string, w http.ResponseWriter, r *http.Request) (runtime.Object, int, error) {
		opts, subpath, subpathKey := getter.NewGetOptions()
		if err := requestOptions(r, opts, subpath, subpathKey); err != nil {
			return nil, 0, err
		}
		obj, err := getter.Get(ctx, name, opts)
		if err != nil {
			return nil, 0, err
		}
		if streamer, ok := obj.(rest.ResourceStreamer); ok {
			return nil, 0, streamObject(ctx, w, r, streamer, s.Kind.GroupVersion().String())
		}
		return obj, http.StatusOK, nil
	})
}

// streamObject writes what a streamer reads: nothing (204) without a
// stream, over a WebSocket to a client that upgrades, as the streamer's
// content type otherwise, flushed after every write when it asks.
func streamObject(ctx context.Context, w http.ResponseWriter, r *http.Request, streamer rest.ResourceStreamer, apiVersion string) error {
	in, flush, contentType, err := streamer.InputStream(ctx, apiVersion, r.Header.Get("Accept"))
	if err != nil {
		return err
	}
	if in == nil {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	defer in.Close()
	if wsstream.IsWebSocketRequest(r) {
		reader := wsstream.NewReader(in, true, wsstream.NewDefaultReaderProtocols())
		if err := reader.Copy(w, r); err != nil {
			utilruntime.HandleError(fmt.Errorf("streaming over a websocket: %w", err))
		}
		return nil
	}
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	out := io.Writer(w)
	if flush {
		out = flushWriter{w, rc}
	}
	_, _ = io.Copy(out, in)
	return nil
}

// flushWriter sends every write at once.
type flushWriter struct {
	w  io.Writer
	rc *http.ResponseController
}

func (f flushWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err == nil {
		err = f.rc.Flush()
	}
	return n, err
}

// requestOptions decodes the options of a connect or get-with-options
// request from its query; with subpath, the path after the subresource
// (with its leading slash, and its trailing one if the request had one)
// is the field subpathKey.
func requestOptions(r *http.Request, into runtime.Object, subpath bool, subpathKey string) error {
	if into == nil {
		return nil
	}
	query := r.URL.Query()
	if subpath {
		info, _ := request.RequestInfoFrom(r.Context())
		p := ""
		if info != nil && len(info.Parts) > 3 {
			p = "/" + strings.Join(info.Parts[3:], "/")
		}
		if info != nil && strings.HasSuffix(info.Path, "/") && !strings.HasSuffix(p, "/") {
			p += "/"
		}
		query[subpathKey] = []string{p}
	}
	if err := decodeQueryOptions(query, into); err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	return nil
}

// decodeQueryOptions sets the fields of an options struct from the query
// parameters named as their JSON fields, with the conversions of
// kube-apiserver's generated url.Values conversions: the first value of a
// scalar, booleans false only for "0" and "false", integers parsed in
// base 10, lists of ports split at commas, times in RFC 3339. A field
// without a parameter is left as it is.
func decodeQueryOptions(query url.Values, into runtime.Object) error {
	v := reflect.ValueOf(into)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("options of type %T cannot be decoded", into)
	}
	v = v.Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		values := query[name]
		if name == "" || name == "-" || len(values) == 0 {
			continue
		}
		if err := setQueryField(v.Field(i), values); err != nil {
			return err
		}
	}
	return nil
}

var timeType = reflect.TypeFor[metav1.Time]()

func setQueryField(f reflect.Value, values []string) error {
	first := values[0]
	switch {
	case f.Type() == reflect.PointerTo(timeType):
		var t metav1.Time
		if err := t.UnmarshalQueryParameter(first); err != nil {
			return err
		}
		f.Set(reflect.ValueOf(&t))
		return nil
	case f.Kind() == reflect.Pointer:
		p := reflect.New(f.Type().Elem())
		if err := setQueryField(p.Elem(), values); err != nil {
			return err
		}
		f.Set(p)
		return nil
	}
	switch f.Kind() {
	case reflect.String:
		f.SetString(first)
	case reflect.Bool:
		f.SetBool(!(first == "0" || strings.EqualFold(first, "false")))
	case reflect.Int64:
		n, err := strconv.ParseInt(first, 10, 64)
		if err != nil {
			return err
		}
		f.SetInt(n)
	case reflect.Slice:
		switch f.Type().Elem().Kind() {
		case reflect.String:
			f.Set(reflect.ValueOf(append([]string(nil), values...)).Convert(f.Type()))
		case reflect.Int32:
			var ports []int32
			for _, s := range values {
				for _, p := range strings.Split(s, ",") {
					n, err := strconv.ParseUint(p, 10, 16)
					if err != nil {
						return fmt.Errorf("cannot convert to []int32: %v", err)
					}
					ports = append(ports, int32(n))
				}
			}
			f.Set(reflect.ValueOf(ports))
		default:
			return fmt.Errorf("query parameters cannot set a field of type %s", f.Type())
		}
	default:
		return fmt.Errorf("query parameters cannot set a field of type %s", f.Type())
	}
	return nil
}
