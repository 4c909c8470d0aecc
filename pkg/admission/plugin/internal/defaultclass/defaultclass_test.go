package defaultclass

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func class(name string, created int64, isDefault bool) *metav1.ObjectMeta {
	m := &metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(time.Unix(created, 0))}
	if isDefault {
		m.Annotations = map[string]string{"default": "true"}
	}
	return m
}

func marked(m *metav1.ObjectMeta) bool { return m.Annotations["default"] == "true" }

func TestNewestPicksTheNewestDefaultThenTheFirstName(t *testing.T) {
	for _, tc := range []struct {
		name    string
		classes []*metav1.ObjectMeta
		want    string
	}{
		{"none marked", []*metav1.ObjectMeta{class("a", 1, false), class("b", 2, false)}, ""},
		{"one marked", []*metav1.ObjectMeta{class("a", 1, false), class("b", 2, true)}, "b"},
		{"the newest marked, not the newest", []*metav1.ObjectMeta{class("old", 1, true), class("mid", 2, true), class("new", 3, false)}, "mid"},
		{"equally new: first by name, whatever the order", []*metav1.ObjectMeta{class("z", 5, true), class("b", 5, true), class("m", 5, true)}, "b"},
		{"no classes", nil, ""},
	} {
		got, ok := Newest(tc.classes, marked)
		name := ""
		if ok {
			name = got.Name
		}
		if name != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, name, tc.want)
		}
	}
}
