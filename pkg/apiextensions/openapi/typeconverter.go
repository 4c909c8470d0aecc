package openapi

import (
	"log/slog"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/pkg/endpoints/fieldmanager"
	kapiopenapi "github.com/kapi-dev/kapi/pkg/openapi"
)

// TypeConverter returns the type converter of server-side apply for the
// custom resources of a CustomResourceDefinition, in all its versions: as
// kube-apiserver makes it, from the OpenAPI v3 definitions the CRD
// publishes (ResourceSchema: its structural schemas, with metadata
// referring to ObjectMeta). A CRD that keeps unknown fields keeps them in
// apply too. It is built when first used (see
// fieldmanager.DefinitionsTypeConverter). The converter keeps crd, which
// must not be modified (an informer's objects never are). A schema the
// converter cannot take is logged to log (nil discards it).
func TypeConverter(crd *apiextensionsv1.CustomResourceDefinition, log *slog.Logger) managedfields.TypeConverter {
	return fieldmanager.DefinitionsTypeConverter("CustomResourceDefinition "+crd.Name, func() (map[string]*spec.Schema, error) {
		models := make(map[string]*spec.Schema, len(crd.Spec.Versions))
		for _, v := range crd.Spec.Versions {
			s, _, err := ResourceSchema(crd, v.Name)
			if err != nil {
				return nil, err
			}
			gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
			models[kapiopenapi.ModelName(gvk)] = s
		}
		return models, nil
	}, crd.Spec.PreserveUnknownFields, log)
}
