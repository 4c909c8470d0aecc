// Package negotiation picks the encoding of a request body and of a
// response from the Content-Type and Accept headers, the way
// kube-apiserver does: JSON, YAML and protobuf, with the `as=Table` and
// `as=PartialObjectMetadata` transformations for clients that ask for them.
package negotiation

import (
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/munnerz/goautoneg"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// MediaTypeOptions are the parameters of an Accept media range that change
// what is sent rather than how it is encoded.
type MediaTypeOptions struct {
	// Convert is the kind the response is converted to: "" (the object
	// itself), "Table", "PartialObjectMetadata" or
	// "PartialObjectMetadataList"; ConvertGroup and ConvertVersion qualify it.
	Convert        string
	ConvertGroup   string
	ConvertVersion string
	// Pretty asks for indented output.
	Pretty bool
	// Stream is the stream parameter ("watch") of a watch media type.
	Stream string
}

// Target says whether a resource endpoint can produce a conversion.
type Target func(opts MediaTypeOptions) bool

// mediaRange is one entry of an Accept header.
type mediaRange struct {
	typ, subtype string
	params       map[string]string
	q            float64
}

// parseAccept splits an Accept header into media ranges, most preferred
// first. It uses the parser kube-apiserver uses, so that ties are broken
// the same way: by quality, then a concrete type before a wildcard, then
// the client's order.
func parseAccept(header string) []mediaRange {
	clauses := goautoneg.ParseAccept(header)
	out := make([]mediaRange, 0, len(clauses))
	for _, c := range clauses {
		out = append(out, mediaRange{typ: c.Type, subtype: c.SubType, params: c.Params, q: c.Q})
	}
	return out
}

func (r mediaRange) matches(info runtime.SerializerInfo) bool {
	typ, sub, _ := strings.Cut(info.MediaType, "/")
	if r.typ != "*" && r.typ != typ {
		return false
	}
	return r.subtype == "*" || r.subtype == sub
}

// NegotiateOutput picks the serializer and options of a response. It
// returns a 406 NotAcceptable error if no acceptable media type can be
// produced. canConvert says which `as=` conversions the endpoint can do.
func NegotiateOutput(r *http.Request, serializers []runtime.SerializerInfo, canConvert Target) (runtime.SerializerInfo, MediaTypeOptions, error) {
	header := r.Header.Get("Accept")
	pretty := isPrettyRequested(r)
	if header == "" {
		header = "application/json"
	}
	for _, mr := range parseAccept(header) {
		if mr.q == 0 {
			continue
		}
		opts := MediaTypeOptions{
			Convert:        mr.params["as"],
			ConvertGroup:   mr.params["g"],
			ConvertVersion: mr.params["v"],
			Pretty:         pretty || mr.params["pretty"] == "1",
			Stream:         mr.params["stream"],
		}
		if opts.Convert != "" || opts.ConvertGroup != "" || opts.ConvertVersion != "" {
			if canConvert == nil || !canConvert(opts) {
				continue
			}
		}
		for _, info := range serializers {
			if mr.matches(info) {
				return info, opts, nil
			}
		}
	}
	return runtime.SerializerInfo{}, MediaTypeOptions{}, NewNotAcceptableError(serializers)
}

// isPrettyRequested reports whether the request asks for indentation
// outside the media type, as kube-apiserver decides it: ?pretty with a
// boolean value says so explicitly; otherwise clients that are people
// (curl, Wget, browsers) get indented output.
func isPrettyRequested(r *http.Request) bool {
	if r.URL != nil && strings.Contains(r.URL.RawQuery, "pretty") {
		if v := r.URL.Query().Get("pretty"); v != "" {
			b, _ := strconv.ParseBool(v)
			return b
		}
	}
	ua := r.UserAgent()
	return strings.HasPrefix(ua, "curl") || strings.HasPrefix(ua, "Wget") || strings.HasPrefix(ua, "Mozilla/5.0")
}

// NegotiateInput picks the serializer of a request body from its
// Content-Type, or returns kube-apiserver's 415.
func NegotiateInput(r *http.Request, serializers []runtime.SerializerInfo) (runtime.SerializerInfo, error) {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		// kube-apiserver treats a body without a Content-Type as JSON.
		ct = "application/json"
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil {
		for _, info := range serializers {
			if info.MediaType == mt {
				return info, nil
			}
		}
	}
	return runtime.SerializerInfo{}, NewUnsupportedMediaTypeError(serializers)
}

// NewNotAcceptableError is kube-apiserver's 406.
func NewNotAcceptableError(serializers []runtime.SerializerInfo) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotAcceptable,
		Reason:  metav1.StatusReasonNotAcceptable,
		Message: fmt.Sprintf("406: Not Acceptable\n\nAvailable representations: %s", strings.Join(mediaTypes(serializers), ", ")),
		Details: &metav1.StatusDetails{},
	}}
}

// NewUnsupportedMediaTypeError is kube-apiserver's 415 for a body it
// cannot decode.
func NewUnsupportedMediaTypeError(serializers []runtime.SerializerInfo) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure,
		Code:   http.StatusUnsupportedMediaType,
		Reason: metav1.StatusReasonUnsupportedMediaType,
		Message: fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s",
			strings.Join(mediaTypes(serializers), ", ")),
	}}
}

// NewUnsupportedPatchTypeError is kube-apiserver's 415 for a PATCH whose
// Content-Type is not a patch type.
func NewUnsupportedPatchTypeError() error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusUnsupportedMediaType,
		Reason:  metav1.StatusReasonUnsupportedMediaType,
		Message: "415: Unsupported Media Type",
		Details: &metav1.StatusDetails{},
	}}
}

func mediaTypes(serializers []runtime.SerializerInfo) []string {
	out := make([]string, 0, len(serializers))
	for _, s := range serializers {
		out = append(out, s.MediaType)
	}
	return out
}
