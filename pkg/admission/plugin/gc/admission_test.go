package gc

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// allow grants the "verb resource/subresource" pairs it holds.
type allow map[string]bool

func (al allow) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	key := a.GetVerb() + " " + a.GetResource()
	if a.GetSubresource() != "" {
		key += "/" + a.GetSubresource()
	}
	if al[key] {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

func cm(refs ...metav1.OwnerReference) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns", OwnerReferences: refs}}
}

// Changing owner references needs delete; a new blocking reference needs
// the owner's finalizers (or everyone's); a pod's status is exempt.
func TestOwnerReferences(t *testing.T) {
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, meta.RESTScopeNamespace)
	yes, no := true, false
	ref := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: "1"}
	blocking := ref
	blocking.BlockOwnerDeletion = &yes
	notBlocking := ref
	notBlocking.BlockOwnerDeletion = &no
	unknown := metav1.OwnerReference{APIVersion: "example.com/v1", Kind: "Nope", Name: "x", UID: "2", BlockOwnerDeletion: &yes}
	const cantDelete = `configmaps "c" is forbidden: cannot set an ownerRef on a resource you can't delete: , <nil>`
	const cantFinalize = `configmaps "c" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>`
	tests := []struct {
		name     string
		rights   allow
		op       admission.Operation
		old, new *corev1.ConfigMap
		want     string
	}{
		{name: "create with a reference", op: admission.Create, new: cm(ref)},
		{name: "create blocking", op: admission.Create, new: cm(blocking), want: cantFinalize},
		{name: "create blocking, may finalize the owner", rights: allow{"update configmaps/finalizers": true}, op: admission.Create, new: cm(blocking)},
		{name: "create blocking, may finalize anything", rights: allow{"update */finalizers": true}, op: admission.Create, new: cm(blocking)},
		{name: "create blocking an unknown kind", op: admission.Create, new: cm(unknown),
			want: `configmaps "c" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion example.com/v1 Kind Nope: no matches for kind "Nope" in version "example.com/v1"`},
		{name: "update, references unchanged", op: admission.Update, old: cm(ref), new: cm(ref)},
		{name: "update, references changed", op: admission.Update, old: cm(ref), new: cm(), want: cantDelete},
		{name: "update, may delete", rights: allow{"delete configmaps": true}, op: admission.Update, old: cm(notBlocking), new: cm(ref)},
		{name: "update, newly blocking", rights: allow{"delete configmaps": true}, op: admission.Update, old: cm(notBlocking), new: cm(blocking), want: cantFinalize},
		{name: "update, blocking already", rights: allow{"delete configmaps": true}, op: admission.Update, old: cm(blocking), new: cm(blocking, unknown), want: `configmaps "c" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion example.com/v1 Kind Nope: no matches for kind "Nope" in version "example.com/v1"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &admission.Attributes{Name: "c", Namespace: "ns", Resource: corev1.SchemeGroupVersion.WithResource("configmaps"),
				Operation: tc.op, Object: tc.new, User: &user.DefaultInfo{Name: "u"}}
			if tc.old != nil {
				a.OldObject = tc.old
			}
			err := New(tc.rights, mapper).Validate(context.Background(), a)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || err.Error() != tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
	pod := &admission.Attributes{Name: "p", Namespace: "ns", Resource: corev1.SchemeGroupVersion.WithResource("pods"), Subresource: "status",
		Operation: admission.Update, Object: &corev1.Pod{}, OldObject: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{ref}}}}
	if err := New(allow{}, mapper).Validate(context.Background(), pod); err != nil {
		t.Errorf("pod status: %v", err)
	}
}
