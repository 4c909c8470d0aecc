package handlers

import (
	"bytes"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
)

// TestJSONWatchFramesAreWhatTheSerializerWrites: the hand-framed JSON
// watch events are byte for byte what encoding a metav1.WatchEvent with
// the JSON stream serializer gives, HTML escaping included.
func TestJSONWatchFramesAreWhatTheSerializerWrites(t *testing.T) {
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	if !ok {
		t.Fatal("no JSON serializer")
	}
	events := []struct {
		typ watch.EventType
		obj runtime.Object
		gv  schema.GroupVersion
	}{
		{watch.Added, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", ResourceVersion: "7"},
			Data: map[string]string{"html": "<b>&amp;</b>", "unicode": "caf\u00e9 \u2028", "quote": `"\`}}, corev1.SchemeGroupVersion},
		{watch.Modified, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"x": "y"}}}, corev1.SchemeGroupVersion},
		{watch.Bookmark, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "9"}}, corev1.SchemeGroupVersion},
		{watch.Error, &metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old"}, metav1.SchemeGroupVersion},
	}
	var fast, slow bytes.Buffer
	fastW := newWatchEventWriter(&fast, scheme.Codecs, info.Serializer, info)
	slowW := newWatchEventWriter(&slow, scheme.Codecs, info.Serializer, info)
	slowW.plainJSON = false
	if !fastW.plainJSON {
		t.Fatal("plain JSON watches do not take the fast path")
	}
	for _, ev := range events {
		if err := fastW.write(ev.typ, ev.obj.DeepCopyObject(), ev.gv); err != nil {
			t.Fatal(err)
		}
		if err := slowW.write(ev.typ, ev.obj.DeepCopyObject(), ev.gv); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(fast.Bytes(), slow.Bytes()) {
		t.Fatalf("hand-framed:\n%s\nserializer:\n%s", fast.Bytes(), slow.Bytes())
	}
	if !bytes.Contains(fast.Bytes(), []byte(`\u003cb\u003e`)) {
		t.Fatalf("HTML characters are not escaped: %s", fast.Bytes())
	}
}
