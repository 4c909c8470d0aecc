package openapi

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/schemavalidation"
)

// isStructural tells whether kube-apiserver would publish a schema: a
// structural one of OpenAPI v3 types only. Those of apiextensions.k8s.io/v1 always are (the API
// refuses others); only CustomResourceDefinitions written in v1beta1 days
// can have another, and their resources are then published as bare
// objects. The reasons are the business of the CRD's NonStructuralSchema
// condition, not of the documents.
func isStructural(s *apiextensionsv1.JSONSchemaProps) bool {
	return !schemavalidation.SchemaHasInvalidTypes(s) && len(schemavalidation.ValidateStructural(nil, s)) == 0
}
