package handlers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
	"github.com/kapi-dev/kapi/pkg/endpoints/negotiation"
	"github.com/kapi-dev/kapi/pkg/endpoints/responsewriters"
)

var errNoRequestInfo = errors.New("no request info in the request context")

// Conversions clients may ask for with the `as` media type parameter.
const (
	asTable                     = "Table"
	asPartialObjectMetadata     = "PartialObjectMetadata"
	asPartialObjectMetadataList = "PartialObjectMetadataList"
)

// canConvert returns the conversions an endpoint can produce: tables when
// the resource has a table convertor, metadata-only objects always.
func (s *RequestScope) canConvert(list bool) negotiation.Target {
	return func(o negotiation.MediaTypeOptions) bool {
		if o.ConvertGroup != metav1.GroupName || o.ConvertVersion != "v1" {
			return false
		}
		switch o.Convert {
		case asTable:
			return s.TableConvertor != nil
		case asPartialObjectMetadata:
			return !list
		case asPartialObjectMetadataList:
			return list
		}
		return false
	}
}

// transformObject turns the hub object the storage returned into what the
// client asked for: the object in the addressed version, a Table or
// metadata only.
func (s *RequestScope) transformObject(ctx context.Context, obj runtime.Object, opts negotiation.MediaTypeOptions, r *http.Request) (runtime.Object, schema.GroupVersion, error) {
	if _, ok := obj.(*metav1.Status); ok {
		return obj, metav1.SchemeGroupVersion, nil
	}
	switch opts.Convert {
	case asTable:
		tableOpts := &metav1.TableOptions{}
		if err := s.decodeParameters(r.URL.Query(), tableOpts); err != nil {
			return nil, schema.GroupVersion{}, err
		}
		table, err := s.TableConvertor.ConvertToTable(ctx, obj, tableOpts)
		if err != nil {
			return nil, schema.GroupVersion{}, err
		}
		if err := s.applyIncludeObject(table, tableOpts.IncludeObject); err != nil {
			return nil, schema.GroupVersion{}, err
		}
		return table, metav1.SchemeGroupVersion, nil
	case asPartialObjectMetadata:
		m, err := meta.Accessor(obj)
		if err != nil {
			return nil, schema.GroupVersion{}, apierrors.NewInternalError(err)
		}
		return partialObjectMetadata(m), metav1.SchemeGroupVersion, nil
	case asPartialObjectMetadataList:
		return partialObjectMetadataList(obj)
	}
	return obj, s.Kind.GroupVersion(), nil
}

// applyIncludeObject reduces each row's object to what includeObject asks
// for: nothing, its metadata (the default) or the whole object.
func (s *RequestScope) applyIncludeObject(table *metav1.Table, policy metav1.IncludeObjectPolicy) error {
	if policy == "" {
		policy = metav1.IncludeMetadata
	}
	for i := range table.Rows {
		row := &table.Rows[i]
		obj := row.Object.Object
		if obj == nil {
			continue
		}
		switch policy {
		case metav1.IncludeNone:
			row.Object = runtime.RawExtension{}
		case metav1.IncludeMetadata:
			m, err := meta.Accessor(obj)
			if err != nil {
				return apierrors.NewInternalError(err)
			}
			row.Object = runtime.RawExtension{Object: partialObjectMetadata(m)}
		case metav1.IncludeObject:
			versioned, err := s.Convertor.ConvertToVersion(obj, scheme.KindVersioner{GroupVersion: s.Kind.GroupVersion()})
			if err != nil {
				return apierrors.NewInternalError(err)
			}
			row.Object = runtime.RawExtension{Object: versioned}
		default:
			return apierrors.NewBadRequest(fmt.Sprintf("unrecognized includeObject value: %q", policy))
		}
	}
	return nil
}

func partialObjectMetadata(m metav1.Object) *metav1.PartialObjectMetadata {
	pom := &metav1.PartialObjectMetadata{ObjectMeta: *metaOf(m)}
	pom.Kind, pom.APIVersion = asPartialObjectMetadata, metav1.SchemeGroupVersion.String()
	return pom
}

func metaOf(m metav1.Object) *metav1.ObjectMeta {
	if om, ok := m.(*metav1.ObjectMeta); ok {
		return om.DeepCopy()
	}
	return &metav1.ObjectMeta{
		Name: m.GetName(), GenerateName: m.GetGenerateName(), Namespace: m.GetNamespace(),
		UID: m.GetUID(), ResourceVersion: m.GetResourceVersion(), Generation: m.GetGeneration(),
		CreationTimestamp: m.GetCreationTimestamp(), DeletionTimestamp: m.GetDeletionTimestamp(),
		DeletionGracePeriodSeconds: m.GetDeletionGracePeriodSeconds(), Labels: m.GetLabels(),
		Annotations: m.GetAnnotations(), OwnerReferences: m.GetOwnerReferences(),
		Finalizers: m.GetFinalizers(), ManagedFields: m.GetManagedFields(),
	}
}

func partialObjectMetadataList(obj runtime.Object) (runtime.Object, schema.GroupVersion, error) {
	lm, err := meta.ListAccessor(obj)
	if err != nil {
		return nil, schema.GroupVersion{}, apierrors.NewBadRequest("a PartialObjectMetadataList can only be produced for a list")
	}
	out := &metav1.PartialObjectMetadataList{}
	out.Kind, out.APIVersion = asPartialObjectMetadataList, metav1.SchemeGroupVersion.String()
	out.ResourceVersion = lm.GetResourceVersion()
	out.Continue = lm.GetContinue()
	out.RemainingItemCount = lm.GetRemainingItemCount()
	err = meta.EachListItem(obj, func(item runtime.Object) error {
		m, err := meta.Accessor(item)
		if err != nil {
			return err
		}
		out.Items = append(out.Items, *partialObjectMetadata(m))
		return nil
	})
	if err != nil {
		return nil, schema.GroupVersion{}, apierrors.NewInternalError(err)
	}
	return out, metav1.SchemeGroupVersion, nil
}

// writeObject negotiates the response encoding and writes obj with code.
func (s *RequestScope) writeObject(ctx context.Context, w http.ResponseWriter, r *http.Request, code int, obj runtime.Object, list bool) {
	info, opts, err := negotiation.NegotiateOutput(r, s.Serializer.SupportedMediaTypes(), s.canConvert(list))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out, gv, err := s.transformObject(ctx, obj, opts, r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if auditcontext.From(ctx).Level() != auditcontext.LevelNone {
		auditcontext.LogResponseObject(ctx, out, auditEncoder(s.Serializer, gv))
	}
	if st, ok := out.(*metav1.Status); ok && st.Code != 0 {
		code = int(st.Code)
	}
	if meta.IsListType(out) && s.streamList(w, info, opts.Pretty, gv, code, out) {
		return
	}
	encodeAndWrite(w, s.Serializer, info, opts.Pretty, gv, code, out)
}

// encodeAndWrite encodes obj with the chosen serializer in version gv,
// keeping its kind.
func encodeAndWrite(w http.ResponseWriter, ns runtime.NegotiatedSerializer, info runtime.SerializerInfo, pretty bool, gv schema.GroupVersion, code int, obj runtime.Object) {
	ser := info.Serializer
	if pretty && info.PrettySerializer != nil {
		ser = info.PrettySerializer
	}
	enc := ns.EncoderForVersion(ser, scheme.KindVersioner{GroupVersion: gv})
	// Encode before writing the status line, so that an object that cannot
	// be encoded is a 500 Status rather than a truncated 200.
	var buf bytes.Buffer
	if err := enc.Encode(obj, &buf); err != nil {
		utilruntime.HandleError(fmt.Errorf("encoding %T response: %w", obj, err))
		if _, isStatus := obj.(*metav1.Status); !isStatus {
			encodeAndWrite(w, ns, info, pretty, metav1.SchemeGroupVersion, http.StatusInternalServerError,
				responsewriters.ErrorToStatus(apierrors.NewInternalError(err)))
			return
		}
		responsewriters.WriteStatus(w, obj.(*metav1.Status))
		return
	}
	w.Header().Set("Content-Type", info.MediaType)
	w.WriteHeader(code)
	_, _ = w.Write(buf.Bytes())
}

// streamList writes a list item by item when its encoding allows, and
// reports whether it did. A list of the served kind is converted to the
// addressed version first (a no-op for the storage version).
func (s *RequestScope) streamList(w http.ResponseWriter, info runtime.SerializerInfo, pretty bool, gv schema.GroupVersion, code int, obj runtime.Object) bool {
	stream := streamingWriterFor(info.MediaType, pretty)
	if stream == nil {
		return false
	}
	gvks, _, err := s.Typer.ObjectKinds(obj)
	if err != nil || len(gvks) == 0 {
		return false
	}
	if gvks[0].GroupVersion() != gv {
		return false // conversion to another version goes the long way
	}
	if !streamable(obj, gv) {
		return false
	}
	w.Header().Set("Content-Type", info.MediaType)
	w.WriteHeader(code)
	if _, err := stream(w, obj, gv.WithKind(gvks[0].Kind)); err != nil {
		// The status line is out; the client sees a truncated body.
		utilruntime.HandleError(fmt.Errorf("streaming %T: %w", obj, err))
	}
	return true
}

// streamable reports whether a list in version gv can be written item by
// item: typed lists, and lists of custom resources whose items are all in
// gv already (conversion of items goes the long way).
func streamable(list runtime.Object, gv schema.GroupVersion) bool {
	if u, ok := list.(*unstructured.UnstructuredList); ok {
		version := gv.String()
		for i := range u.Items {
			if u.Items[i].GetAPIVersion() != version {
				return false
			}
		}
		return true
	}
	_, _, ok := listParts(list)
	return ok
}

// writeError writes err as a Status in the negotiated encoding (JSON when
// nothing acceptable can be produced, as kube-apiserver does).
func (s *RequestScope) writeError(w http.ResponseWriter, r *http.Request, err error) {
	WriteError(w, r, s.Serializer, err)
}

// WriteError writes err as a negotiated Status.
func WriteError(w http.ResponseWriter, r *http.Request, ns runtime.NegotiatedSerializer, err error) {
	st := responsewriters.ErrorToStatus(err)
	if auditcontext.From(r.Context()).Level() != auditcontext.LevelNone {
		auditcontext.LogResponseObject(r.Context(), st, auditEncoder(ns, metav1.SchemeGroupVersion))
	}
	info, opts, nerr := negotiation.NegotiateOutput(r, ns.SupportedMediaTypes(), nil)
	if nerr != nil {
		responsewriters.WriteStatus(w, st)
		return
	}
	encodeAndWrite(w, ns, info, opts.Pretty, metav1.SchemeGroupVersion, int(st.Code), st)
}
