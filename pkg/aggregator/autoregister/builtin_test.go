package autoregister

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
)

// The built-in APIServices take their group priority from discovery, as
// the groups are installed, and kube-apiserver's version priority; the
// aggregator's own group and a version kube-apiserver has no priority for
// get none.
func TestBuiltInAPIServices(t *testing.T) {
	got := BuiltIn([]discovery.GroupVersion{
		{GroupVersion: schema.GroupVersion{Version: "v1"}, GroupPriority: 18000},
		{GroupVersion: schema.GroupVersion{Group: "apiregistration.k8s.io", Version: "v1"}, GroupPriority: 18000},
		{GroupVersion: schema.GroupVersion{Group: "autoscaling", Version: "v2"}, GroupPriority: 17500},
		{GroupVersion: schema.GroupVersion{Group: "autoscaling", Version: "v9"}, GroupPriority: 17500},
	})
	type entry struct {
		Name                           string
		Group, Version                 string
		GroupPriority, VersionPriority int32
	}
	var entries []entry
	for _, as := range got {
		entries = append(entries, entry{as.Name, as.Spec.Group, as.Spec.Version, as.Spec.GroupPriorityMinimum, as.Spec.VersionPriority})
	}
	want := []entry{{"v1.", "", "v1", 18000, 1}, {"v2.autoscaling", "autoscaling", "v2", 17500, 30}}
	if diff := cmp.Diff(want, entries); diff != "" {
		t.Errorf("built-in APIServices (-want +got):\n%s", diff)
	}
}
