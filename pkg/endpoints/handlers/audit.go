package handlers

import (
	"bytes"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
)

// auditEncoder encodes objects for the audit log as kube-apiserver does:
// JSON, in version gv. The handlers hand it to auditcontext, which calls
// it only when the request's audit level records objects.
func auditEncoder(ns runtime.NegotiatedSerializer, gv schema.GroupVersion) auditcontext.Encoder {
	return func(obj runtime.Object) ([]byte, error) {
		info, ok := runtime.SerializerInfoForMediaType(ns.SupportedMediaTypes(), runtime.ContentTypeJSON)
		if !ok {
			return nil, fmt.Errorf("no %s serializer", runtime.ContentTypeJSON)
		}
		var buf bytes.Buffer
		if err := ns.EncoderForVersion(info.Serializer, scheme.KindVersioner{GroupVersion: gv}).Encode(obj, &buf); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
}

// encodeInternalDeleteOptions encodes the DeleteOptions of a delete as
// kube-apiserver's audit log shows them: it records them in meta's
// internal version, {"kind":"DeleteOptions","apiVersion":"meta.k8s.io/__internal",...}.
func encodeInternalDeleteOptions(obj runtime.Object) ([]byte, error) {
	opts, ok := obj.(*metav1.DeleteOptions)
	if !ok {
		return nil, fmt.Errorf("%T is not DeleteOptions", obj)
	}
	c := *opts
	c.TypeMeta = metav1.TypeMeta{Kind: "DeleteOptions", APIVersion: metav1.GroupName + "/" + runtime.APIVersionInternal}
	return json.Marshal(&c)
}
