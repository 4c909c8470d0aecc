package storage

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestPreconditionsCheck(t *testing.T) {
	obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{UID: "u1", ResourceVersion: "5"}}
	uid := func(s string) *types.UID { u := types.UID(s); return &u }
	rv := func(s string) *string { return &s }

	tests := []struct {
		name    string
		p       *Preconditions
		wantErr string // Detail of the conflict, "" when satisfied
	}{
		{name: "nil", p: nil},
		{name: "empty", p: &Preconditions{}},
		{name: "matching UID and resourceVersion", p: &Preconditions{UID: uid("u1"), ResourceVersion: rv("5")}},
		{
			name:    "other UID",
			p:       &Preconditions{UID: uid("u2")},
			wantErr: "Precondition failed: UID in precondition: u2, UID in object meta: u1",
		},
		{
			name:    "other resourceVersion",
			p:       &Preconditions{ResourceVersion: rv("4")},
			wantErr: "Precondition failed: ResourceVersion in precondition: 4, ResourceVersion in object meta: 5",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.p.Check("/configmaps/ns/a", obj)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				return
			}
			if !IsConflict(err) {
				t.Fatalf("Check = %v, want a conflict", err)
			}
			if d := err.(*Error).Detail; d != tt.wantErr {
				t.Errorf("detail = %q\nwant     %q", d, tt.wantErr)
			}
		})
	}
}
