package handlers

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/api/objectkind"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
	"github.com/kapi-dev/kapi/pkg/endpoints/negotiation"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
)

// readBody reads a request body up to the scope's limit; a larger body is
// kube-apiserver's 413.
func (s *RequestScope) readBody(r *http.Request) ([]byte, error) {
	limit := s.maxRequestBodyBytes()
	if r.ContentLength > limit {
		return nil, tooLarge(limit)
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		var maxErr *http.MaxBytesError
		if errors.As(err, &maxErr) {
			return nil, tooLarge(limit)
		}
		return nil, apierrors.NewBadRequest(fmt.Sprintf("unable to read request body: %v", err))
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(limit)
	}
	return data, nil
}

// maxRequestBodyBytes is the scope's limit on request bodies.
func (s *RequestScope) maxRequestBodyBytes() int64 {
	if s.MaxRequestBodyBytes <= 0 {
		return DefaultMaxRequestBodyBytes
	}
	return s.MaxRequestBodyBytes
}

func tooLarge(limit int64) error {
	return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", limit))
}

// fieldValidation returns the request's fieldValidation directive,
// defaulting to Warn as kube-apiserver does.
func fieldValidation(r *http.Request) (string, error) {
	v := r.URL.Query().Get("fieldValidation")
	switch v {
	case "":
		return metav1.FieldValidationWarn, nil
	case metav1.FieldValidationIgnore, metav1.FieldValidationWarn, metav1.FieldValidationStrict:
		return v, nil
	}
	return "", apierrors.NewBadRequest(fmt.Sprintf("fieldValidation parameter unsupported: %v", v))
}

// decodeBody decodes a create or update body into the served kind,
// reporting unknown and duplicate fields as fieldValidation asks, and
// returns it converted to the hub version and defaulted.
func (s *RequestScope) decodeBody(ctx context.Context, r *http.Request) (runtime.Object, error) {
	body, err := s.readBody(r)
	if err != nil {
		return nil, err
	}
	validation, err := fieldValidation(r)
	if err != nil {
		return nil, err
	}
	obj, err := s.decode(ctx, r, body, validation)
	if err != nil {
		return nil, err
	}
	if auditcontext.From(ctx).Level() != auditcontext.LevelNone {
		auditcontext.LogRequestObject(ctx, obj, s.Resource, s.Subresource, auditEncoder(s.Serializer, s.Kind.GroupVersion()))
	}
	return s.toHub(obj)
}

// decode decodes body (in the request's Content-Type) into the served
// kind and defaults it.
func (s *RequestScope) decode(ctx context.Context, r *http.Request, body []byte, validation string) (runtime.Object, error) {
	serializers := s.Serializer.SupportedMediaTypes()
	if validation != metav1.FieldValidationIgnore && s.StrictSerializer != nil {
		serializers = s.StrictSerializer.SupportedMediaTypes()
	}
	info, err := negotiation.NegotiateInput(r, serializers)
	if err != nil {
		return nil, err
	}
	return s.decodeWith(ctx, info.Serializer, body, validation, s.strictBodyError, nil)
}

// strictBodyError is kube-apiserver's answer to a create or update body
// with unknown or duplicate fields under fieldValidation=Strict: 400.
func (s *RequestScope) strictBodyError(gvk *schema.GroupVersionKind, err error) error {
	return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v",
		gvk.Kind, gvk.Version, s.Kind.Kind, err))
}

// decodeWith decodes body with dec into the served kind. Unknown and
// duplicate fields are warnings, ignored, or (Strict) the error
// strictError makes of them. A body that does not decode is the error
// undecodable makes of it, or when that is nil kube-apiserver's 400 for a
// request body.
func (s *RequestScope) decodeWith(ctx context.Context, dec runtime.Decoder, body []byte, validation string,
	strictError, undecodable func(gvk *schema.GroupVersionKind, err error) error) (runtime.Object, error) {
	into, err := s.Creater.New(s.Kind)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	obj, gvk, err := dec.Decode(body, &s.Kind, into)
	if err != nil {
		if !runtime.IsStrictDecodingError(err) || obj == nil {
			if undecodable != nil {
				return nil, undecodable(gvk, err)
			}
			return nil, s.decodeError(err, gvk, body)
		}
		strictErrs := err.(interface{ Errors() []error }).Errors()
		switch validation {
		case metav1.FieldValidationStrict:
			return nil, strictError(gvk, err)
		case metav1.FieldValidationWarn:
			for _, e := range strictErrs {
				warning.AddWarning(ctx, e.Error())
			}
		}
	}
	if gvk != nil && (gvk.Kind != s.Kind.Kind || gvk.GroupVersion() != s.Kind.GroupVersion()) {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: converting (%s) to (%s): unknown conversion",
			gvk.Kind, gvk.Version, s.Kind.Kind, goTypeName(gvk), goTypeName(&s.Kind)))
	}
	s.Defaulter.Default(obj)
	objectkind.ClearTyped(obj)
	return obj, nil
}

// decodeError is kube-apiserver's 400 for a body that cannot be decoded:
// when the body named its kind, that it cannot be handled as the served
// one, otherwise that it is unrecognized, quoting its first bytes.
func (s *RequestScope) decodeError(err error, gvk *schema.GroupVersionKind, body []byte) error {
	if gvk != nil && gvk.Kind != "" {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, s.Kind.Kind, err))
	}
	return apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)", s.Kind.Kind, err, summarizeBody(body)))
}

// summarizeBody quotes the first 30 bytes of a body as kube-apiserver
// does: as text if it is a JSON object, in hex otherwise (YAML and
// protobuf alike), so that no binary reaches the message.
func summarizeBody(body []byte) string {
	const quoted = 30
	summary, more := body, ""
	if len(body) > quoted {
		summary, more = body[:quoted], " ..."
	}
	switch {
	case len(body) == 0:
		return "<empty>"
	case body[0] == '{':
		return string(summary) + more
	default:
		return hex.EncodeToString(summary) + more
	}
}

// goTypeName names a kind the way conversion errors do: "v1.ConfigMap".
func goTypeName(gvk *schema.GroupVersionKind) string {
	return gvk.Version + "." + gvk.Kind
}
