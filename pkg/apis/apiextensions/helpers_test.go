package apiextensions

import (
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestVersionHelpers(t *testing.T) {
	c := newCRD(t)
	withSecondVersion(c)
	c.Spec.Versions[1].Served = false
	c.Status.StoredVersions = []string{"v0", "v1"}

	for _, tt := range []struct {
		version                string
		wantServed, wantStored bool
	}{
		{"v0", false, true},
		{"v1", true, true},
		{"v2", false, false},
		{"v3", false, false},
	} {
		if got := HasServedVersion(c, tt.version); got != tt.wantServed {
			t.Errorf("HasServedVersion(%s) = %v", tt.version, got)
		}
		if got := IsStoredVersion(c, tt.version); got != tt.wantStored {
			t.Errorf("IsStoredVersion(%s) = %v", tt.version, got)
		}
	}
	if v, err := StorageVersion(c); v != "v1" || err != nil {
		t.Errorf("StorageVersion = %q, %v; want v1", v, err)
	}
	c.Spec.Versions[0].Storage = false
	if _, err := StorageVersion(c); err == nil {
		t.Error("StorageVersion of a CRD without one: no error")
	}
}

func TestConditions(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 11, 22, 3, 41, 56, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	c := newCRD(t)

	SetCondition(c, apiextensionsv1.CustomResourceDefinitionCondition{Type: "NamesAccepted", Status: "True", Reason: "NoConflicts", Message: "no conflicts found", LastTransitionTime: t0})
	SetCondition(c, apiextensionsv1.CustomResourceDefinitionCondition{Type: "Established", Status: "False", Reason: "Installing", LastTransitionTime: t0})
	if !IsConditionTrue(c, "NamesAccepted") || IsConditionTrue(c, "Established") || IsConditionTrue(c, "Terminating") {
		t.Fatalf("conditions after first set: %+v", c.Status.Conditions)
	}

	// Same status: the transition time stays, the rest is replaced.
	SetCondition(c, apiextensionsv1.CustomResourceDefinitionCondition{Type: "Established", Status: "False", Reason: "StillInstalling", LastTransitionTime: t1})
	if got := GetCondition(c, "Established"); !got.LastTransitionTime.Equal(&t0) || got.Reason != "StillInstalling" {
		t.Errorf("same status: %+v, want time %v and the new reason", got, t0)
	}
	// New status: the transition time moves.
	SetCondition(c, apiextensionsv1.CustomResourceDefinitionCondition{Type: "Established", Status: "True", Reason: "InitialNamesAccepted", Message: "the initial names have been accepted", LastTransitionTime: t1})
	if got := GetCondition(c, "Established"); !got.LastTransitionTime.Equal(&t1) || !IsConditionTrue(c, "Established") {
		t.Errorf("new status: %+v, want time %v", got, t1)
	}
	// No time given: now.
	before := time.Now().Add(-time.Second)
	SetCondition(c, apiextensionsv1.CustomResourceDefinitionCondition{Type: "Terminating", Status: "False"})
	if got := GetCondition(c, "Terminating"); got.LastTransitionTime.Time.Before(before) {
		t.Errorf("no time given: %v, want now", got.LastTransitionTime)
	}
	if len(c.Status.Conditions) != 3 {
		t.Errorf("conditions: %+v, want 3", c.Status.Conditions)
	}

	RemoveCondition(c, "Terminating")
	if GetCondition(c, "Terminating") != nil || len(c.Status.Conditions) != 2 {
		t.Errorf("after remove: %+v", c.Status.Conditions)
	}

	a := GetCondition(c, "Established")
	b := a.DeepCopy()
	b.LastTransitionTime = metav1.Now()
	if !ConditionsEquivalent(a, b) || ConditionsEquivalent(a, GetCondition(c, "NamesAccepted")) || ConditionsEquivalent(a, nil) || !ConditionsEquivalent(nil, nil) {
		t.Error("ConditionsEquivalent compares everything but times")
	}
}
