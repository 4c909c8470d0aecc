package autoregister

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
)

// BuiltIn returns the APIServices of the built-in group versions served,
// as the discovery registry has them before any CRD is served: all but
// the aggregator's own, with the group priority they are installed with
// and kube-apiserver's version priority. A group version kube-apiserver
// has no version priority for gets none, as in kube-apiserver.
func BuiltIn(served []discovery.GroupVersion) []*apiregistrationv1.APIService {
	var out []*apiregistrationv1.APIService
	for _, gv := range served {
		if gv.GroupVersion.Group == apiregistrationv1.GroupName {
			continue
		}
		versionPriority, ok := versionPriorities[gv.GroupVersion]
		if !ok {
			continue
		}
		out = append(out, local(gv.GroupVersion, int32(gv.GroupPriority), versionPriority))
	}
	return out
}

// local is the APIService of a group version the chain serves.
func local(gv schema.GroupVersion, groupPriority, versionPriority int32) *apiregistrationv1.APIService {
	return &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: Name(gv)},
		Spec: apiregistrationv1.APIServiceSpec{
			Group:                gv.Group,
			Version:              gv.Version,
			GroupPriorityMinimum: groupPriority,
			VersionPriority:      versionPriority,
		},
	}
}

// Name is the name of the APIService of gv: <version>.<group>.
func Name(gv schema.GroupVersion) string { return gv.Version + "." + gv.Group }
