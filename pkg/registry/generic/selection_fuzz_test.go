package generic

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
)

// selectionStore is a namespaced resource selectable, beyond its
// metadata, by two fields of its own, as pods are by spec.nodeName and
// status.phase. The selector targets parse through its predicate, the
// one every list and watch is made with.
func selectionStore() *Store {
	return &Store{
		NewFunc:          func() runtime.Object { return &corev1.Pod{} },
		CreateStrategy:   ValidatingStrategy[*corev1.Pod]{DefaultStrategy: DefaultStrategy{Namespaced: true}},
		SelectableFields: []string{"spec.nodeName", "status.phase"},
		FieldsFunc: func(obj runtime.Object) fields.Set {
			pod := obj.(*corev1.Pod)
			return fields.Set{"spec.nodeName": pod.Spec.NodeName, "status.phase": string(pod.Status.Phase)}
		},
	}
}

// Whatever label selector a client sends, the list either refuses it with
// a 400, or selects with a selector whose String() parses back to the
// same requirements and selects the same label sets: the form a selector
// is logged, cached and compared in means what the client asked.
func FuzzLabelSelector(f *testing.F) {
	store := selectionStore()
	f.Fuzz(func(t *testing.T, selector, key, value string) {
		p, err := store.predicate(&metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			if !apierrors.IsBadRequest(err) {
				t.Fatalf("%q: got %v, want a 400", selector, err)
			}
			return
		}
		printed := p.Label.String()
		again, err := labels.Parse(printed)
		if err != nil {
			t.Fatalf("%q prints as %q, which does not parse: %v", selector, printed, err)
		}
		if got, want := requirementsOf(again), requirementsOf(p.Label); !reflect.DeepEqual(got, want) || again.String() != printed {
			t.Fatalf("%q prints as %q, which parses to %q %v, want %v", selector, printed, again.String(), got, want)
		}

		// Label sets on both sides of every requirement: the
		// requirement's own values, and the fuzzer's key and value.
		sets := []labels.Set{{}, {key: value}}
		all := labels.Set{}
		reqs, _ := p.Label.Requirements()
		for _, r := range reqs {
			sets = append(sets, labels.Set{r.Key(): ""}, labels.Set{r.Key(): value})
			for _, v := range r.ValuesUnsorted() {
				sets = append(sets, labels.Set{r.Key(): v})
				all[r.Key()] = v
			}
		}
		sets = append(sets, all)
		for _, set := range sets {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Labels: set}}
			matched, err := p.Matches(pod)
			if err != nil {
				t.Fatal(err)
			}
			if matched != again.Matches(set) {
				t.Fatalf("%q matches %v: %v, but its printed form %q: %v", selector, set, matched, printed, !matched)
			}
			if p.Empty() && !matched {
				t.Fatalf("%q is empty but does not match %v", selector, set)
			}
		}
	})
}

// Whatever field selector a client sends, the list either refuses it with
// a 400 (a syntax error, or a field the resource cannot be selected by),
// or selects with a selector whose String() parses back to the same
// requirements and selects the same objects; and when the selector pins
// metadata.name, so that the list reads one key instead of a range, every
// object it matches has that name.
func FuzzFieldSelector(f *testing.F) {
	store := selectionStore()
	allowed := map[string]bool{"metadata.name": true, "metadata.namespace": true, "spec.nodeName": true, "status.phase": true}
	f.Fuzz(func(t *testing.T, selector, name, namespace, value string) {
		p, err := store.predicate(&metav1.ListOptions{FieldSelector: selector})
		if err != nil {
			if !apierrors.IsBadRequest(err) {
				t.Fatalf("%q: got %v, want a 400", selector, err)
			}
			return
		}
		for _, r := range p.Field.Requirements() {
			if !allowed[r.Field] {
				t.Fatalf("%q: selects by %q, which the resource does not offer", selector, r.Field)
			}
		}
		printed := p.Field.String()
		again, err := fields.ParseSelector(printed)
		if err != nil {
			t.Fatalf("%q prints as %q, which does not parse: %v", selector, printed, err)
		}
		if !reflect.DeepEqual(again.Requirements(), p.Field.Requirements()) || again.String() != printed {
			t.Fatalf("%q prints as %q, which parses to %q %v, want %v", selector, printed, again.String(), again.Requirements(), p.Field.Requirements())
		}

		// Objects on both sides of every requirement: the fuzzer's
		// values, then each requirement's value in its field.
		pods := []*corev1.Pod{fieldPod(name, namespace, value)}
		for _, r := range p.Field.Requirements() {
			pod := fieldPod(name, namespace, value)
			setField(pod, r.Field, r.Value)
			pods = append(pods, pod)
		}
		pinned, single := p.MatchesSingle()
		for _, pod := range pods {
			matched, err := p.Matches(pod)
			if err != nil {
				t.Fatal(err)
			}
			_, set, _ := p.GetAttrs(pod)
			if matched != again.Matches(set) {
				t.Fatalf("%q matches %v: %v, but its printed form %q: %v", selector, set, matched, printed, !matched)
			}
			if matched && single && pod.Name != pinned {
				t.Fatalf("%q pins name %q but matches %v", selector, pinned, set)
			}
		}
	})
}

func fieldPod(name, namespace, value string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec:       corev1.PodSpec{NodeName: value},
		Status:     corev1.PodStatus{Phase: corev1.PodPhase(value)},
	}
}

func setField(pod *corev1.Pod, field, value string) {
	switch field {
	case "metadata.name":
		pod.Name = value
	case "metadata.namespace":
		pod.Namespace = value
	case "spec.nodeName":
		pod.Spec.NodeName = value
	case "status.phase":
		pod.Status.Phase = corev1.PodPhase(value)
	}
}

// requirement is a label requirement in comparable form.
type requirement struct {
	Key    string
	Op     selection.Operator
	Values []string
}

func requirementsOf(sel labels.Selector) []requirement {
	reqs, _ := sel.Requirements()
	out := make([]requirement, 0, len(reqs))
	for _, r := range reqs {
		out = append(out, requirement{r.Key(), r.Operator(), r.Values().List()})
	}
	return out
}
