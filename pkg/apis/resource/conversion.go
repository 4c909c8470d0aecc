package resource

import (
	"encoding/json"

	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
)

// AddConversions registers the conversions between v1, the version kapi
// serves, and v1beta2, the version kube-apiserver 1.37 still stores
// DeviceTaintRules in. The two versions of the kind have the same
// fields, so an object converts through its JSON form.
func AddConversions(scheme *runtime.Scheme) error {
	gv := resourcev1beta2.SchemeGroupVersion
	scheme.AddKnownTypes(gv, &resourcev1beta2.DeviceTaintRule{}, &resourcev1beta2.DeviceTaintRuleList{})
	pairs := [][2]any{
		{(*resourcev1.DeviceTaintRule)(nil), (*resourcev1beta2.DeviceTaintRule)(nil)},
		{(*resourcev1beta2.DeviceTaintRule)(nil), (*resourcev1.DeviceTaintRule)(nil)},
		{(*resourcev1.DeviceTaintRuleList)(nil), (*resourcev1beta2.DeviceTaintRuleList)(nil)},
		{(*resourcev1beta2.DeviceTaintRuleList)(nil), (*resourcev1.DeviceTaintRuleList)(nil)},
	}
	for _, p := range pairs {
		if err := scheme.AddConversionFunc(p[0], p[1], viaJSON); err != nil {
			return err
		}
	}
	return nil
}

func viaJSON(a, b any, _ conversion.Scope) error {
	data, err := json.Marshal(a)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, b)
}
