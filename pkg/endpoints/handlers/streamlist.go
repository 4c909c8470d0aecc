package handlers

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"sort"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Lists are written item by item, so that a response of 50,000 objects
// never exists as one encoded buffer: memory stays proportional to the
// largest item, not to the list. The bytes are the same as those of the
// serializers the lists would otherwise go through.

// streamingListWriter writes one list in one encoding, or reports that it
// cannot (the caller then encodes the list as a whole).
type streamingListWriter func(w io.Writer, list runtime.Object, gvk schema.GroupVersionKind) (handled bool, err error)

// streamingWriterFor returns the streaming writer of a media type, if
// there is one.
func streamingWriterFor(mediaType string, pretty bool) streamingListWriter {
	if pretty {
		return nil // indented output is for people, not for size
	}
	switch mediaType {
	case runtime.ContentTypeJSON:
		return streamJSONList
	case runtime.ContentTypeProtobuf:
		return streamProtobufList
	}
	return nil
}

// listParts returns the list metadata and the items of a typed list.
func listParts(list runtime.Object) (*metav1.ListMeta, []runtime.Object, bool) {
	if _, unstructured := list.(runtime.Unstructured); unstructured {
		return nil, nil, false
	}
	accessor, ok := list.(metav1.ListMetaAccessor)
	if !ok {
		return nil, nil, false
	}
	listMeta, ok := accessor.GetListMeta().(*metav1.ListMeta)
	if !ok {
		return nil, nil, false
	}
	var items []runtime.Object
	if err := meta.EachListItem(list, func(o runtime.Object) error {
		items = append(items, o)
		return nil
	}); err != nil {
		return nil, nil, false
	}
	return listMeta, items, true
}

// streamJSONList writes {"kind":..,"apiVersion":..,"metadata":..,"items":[..]}
// followed by a newline, as the JSON serializer does.
func streamJSONList(w io.Writer, list runtime.Object, gvk schema.GroupVersionKind) (bool, error) {
	if u, ok := list.(*unstructured.UnstructuredList); ok {
		return true, streamUnstructuredJSONList(w, u)
	}
	listMeta, items, ok := listParts(list)
	if !ok {
		return false, nil
	}
	bw := bufio.NewWriterSize(w, 32*1024)
	head, err := json.Marshal(struct {
		Kind       string           `json:"kind"`
		APIVersion string           `json:"apiVersion"`
		Metadata   *metav1.ListMeta `json:"metadata"`
	}{gvk.Kind, gvk.GroupVersion().String(), listMeta})
	if err != nil {
		return true, err
	}
	// Replace the closing brace of the head with the items array.
	_, _ = bw.Write(head[:len(head)-1])
	_, _ = bw.WriteString(`,"items":[`)
	// One buffer for every item: an item's encoding is garbage once
	// written, and a list of 50,000 would otherwise leave as much garbage
	// as its whole encoded size before the collector runs.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for i, item := range items {
		if i > 0 {
			_ = bw.WriteByte(',')
		}
		buf.Reset()
		// Encode escapes as Marshal does, and adds a newline.
		if err := enc.Encode(item); err != nil {
			return true, err
		}
		if _, err := bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))); err != nil {
			return true, err
		}
	}
	_, _ = bw.WriteString("]}\n")
	return true, bw.Flush()
}

// streamUnstructuredJSONList writes a list of custom resources as their
// encoder does, a map of the list's fields with "items" among them, keys
// sorted, but one item at a time. Encoding the list through the JSON
// serializer would also have encoding/json scan and compact all the bytes
// the list's MarshalJSON returned, which doubled the cost of the list.
func streamUnstructuredJSONList(w io.Writer, list *unstructured.UnstructuredList) error {
	keys := make([]string, 0, len(list.Object)+1)
	for k := range list.Object {
		if k != "items" {
			keys = append(keys, k)
		}
	}
	keys = append(keys, "items")
	sort.Strings(keys)

	bw := bufio.NewWriterSize(w, 32*1024)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	write := func(v any) error {
		buf.Reset()
		// Encode escapes as Marshal does, and adds a newline.
		if err := enc.Encode(v); err != nil {
			return err
		}
		_, err := bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		return err
	}
	_ = bw.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			_ = bw.WriteByte(',')
		}
		if err := write(k); err != nil {
			return err
		}
		_ = bw.WriteByte(':')
		if k != "items" {
			if err := write(list.Object[k]); err != nil {
				return err
			}
			continue
		}
		_ = bw.WriteByte('[')
		for j := range list.Items {
			if j > 0 {
				_ = bw.WriteByte(',')
			}
			if err := write(list.Items[j].Object); err != nil {
				return err
			}
		}
		_ = bw.WriteByte(']')
	}
	_, _ = bw.WriteString("}\n")
	return bw.Flush()
}

// protoSizer is what generated protobuf types implement.
type protoSizer interface {
	Size() int
	MarshalToSizedBuffer([]byte) (int, error)
}

// protobufMagic is the envelope every protobuf object of the Kubernetes API
// starts with.
var protobufMagic = []byte{0x6b, 0x38, 0x73, 0x00}

// streamProtobufList writes the k8s\x00 envelope (a runtime.Unknown) around
// the list, encoding one item at a time. Every list of the Kubernetes API
// has its ListMeta as field 1 and its items as field 2; the lengths are
// known beforehand from the items' sizes.
func streamProtobufList(w io.Writer, list runtime.Object, gvk schema.GroupVersionKind) (bool, error) {
	listMeta, items, ok := listParts(list)
	if !ok {
		return false, nil
	}
	sizers := make([]protoSizer, len(items))
	for i, item := range items {
		s, ok := item.(protoSizer)
		if !ok {
			return false, nil
		}
		sizers[i] = s
	}
	// The list's own message: field 1 ListMeta, field 2 each item.
	listSize := fieldSize(listMeta.Size())
	for _, s := range sizers {
		listSize += fieldSize(s.Size())
	}
	typeMeta := runtime.TypeMeta{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind}
	typeMetaSize := typeMeta.Size()
	// runtime.Unknown: field 1 TypeMeta, field 2 raw, field 3
	// contentEncoding and field 4 contentType (both empty, but encoded,
	// as the protobuf serializer does).
	bw := bufio.NewWriterSize(w, 32*1024)
	_, _ = bw.Write(protobufMagic)
	buf := make([]byte, 0, 64)
	buf = appendTag(buf, 1, typeMetaSize)
	tm, err := typeMeta.Marshal()
	if err != nil {
		return true, err
	}
	buf = append(buf, tm...)
	buf = appendTag(buf, 2, listSize)
	_, _ = bw.Write(buf)

	lm, err := listMeta.Marshal()
	if err != nil {
		return true, err
	}
	_, _ = bw.Write(appendTag(nil, 1, len(lm)))
	_, _ = bw.Write(lm)
	var item, tag []byte
	for _, s := range sizers {
		size := s.Size()
		if cap(item) < size {
			item = make([]byte, size)
		}
		item = item[:size]
		if _, err := s.MarshalToSizedBuffer(item); err != nil {
			return true, err
		}
		tag = appendTag(tag[:0], 2, size)
		_, _ = bw.Write(tag)
		if _, err := bw.Write(item); err != nil {
			return true, err
		}
	}
	// Empty contentEncoding and contentType.
	_, _ = bw.Write([]byte{0x1a, 0x00, 0x22, 0x00})
	return true, bw.Flush()
}

// appendTag appends a length-delimited field's key and length.
func appendTag(b []byte, field int, length int) []byte {
	b = binary.AppendUvarint(b, uint64(field<<3|2))
	return binary.AppendUvarint(b, uint64(length))
}

// fieldSize is the encoded size of a length-delimited field of a
// one-byte key.
func fieldSize(length int) int {
	return 1 + uvarintLen(uint64(length)) + length
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}
