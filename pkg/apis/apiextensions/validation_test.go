package apiextensions

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

type crd = apiextensionsv1.CustomResourceDefinition

// The expected errors below were checked against kube-apiserver 1.37's own
// validation, field path, type, value and message, in order.
func TestValidateCustomResourceDefinition(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(c *crd)
		want   []string
	}{
		{name: "valid", mutate: func(c *crd) {}},
		{name: "valid with two versions sharing everything", mutate: withSecondVersion},

		// metadata.name
		{name: "name must be plural.group", mutate: func(c *crd) { c.Name = "gadgets.example.com" }, want: []string{
			`metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group`,
		}},
		{name: "name is required", mutate: func(c *crd) { c.Name = "" }, want: []string{
			`metadata.name: Required value: name or generateName is required`,
		}},
		{name: "generateName is checked against the name rule too", mutate: func(c *crd) { c.Name, c.GenerateName = "", "widgets." }, want: []string{
			`metadata.generateName: Invalid value: "widgets.": ` + dns1123Msg,
			`metadata.generateName: Invalid value: "widgets.": must be spec.names.plural+"."+spec.group`,
			`metadata.name: Required value: name or generateName is required`,
		}},
		{name: "cluster-scoped object", mutate: func(c *crd) { c.Namespace = "default" }, want: []string{
			`metadata.namespace: Forbidden: not allowed on this type`,
		}},

		// spec.group and spec.scope
		{name: "group is required", mutate: func(c *crd) { c.Spec.Group = "" }, want: []string{
			`metadata.name: Invalid value: "widgets.example.com": must be spec.names.plural+"."+spec.group`,
			`spec.group: Required value`,
		}},
		{name: "group is a DNS subdomain", mutate: func(c *crd) { c.Spec.Group, c.Name = "Example.com", "widgets.Example.com" }, want: []string{
			`metadata.name: Invalid value: "widgets.Example.com": ` + dns1123Msg,
			`spec.group: Invalid value: "Example.com": ` + dns1123Msg,
		}},
		{name: "group has a dot", mutate: func(c *crd) { c.Spec.Group, c.Name = "example", "widgets.example" }, want: []string{
			`spec.group: Invalid value: "example": should be a domain with at least one dot`,
		}},
		{name: "scope is required", mutate: func(c *crd) { c.Spec.Scope = "" }, want: []string{
			`spec.scope: Required value`,
		}},
		{name: "scope is Cluster or Namespaced", mutate: func(c *crd) { c.Spec.Scope = "Global" }, want: []string{
			`spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"`,
		}},

		// spec.names
		{name: "names are required", mutate: func(c *crd) { c.Spec.Names = apiextensionsv1.CustomResourceDefinitionNames{} }, want: []string{
			`metadata.name: Invalid value: "widgets.example.com": must be spec.names.plural+"."+spec.group`,
			`spec.names.plural: Required value`,
			`spec.names.singular: Required value`,
			`spec.names.kind: Required value`,
			`spec.names.listKind: Required value`,
		}},
		{name: "names are DNS labels, kinds in any case", mutate: func(c *crd) {
			c.Name = "Widgets.example.com"
			c.Spec.Names = apiextensionsv1.CustomResourceDefinitionNames{
				Plural: "Widgets", Singular: "wid_get", Kind: "Wid.get", ListKind: "Wid.getList",
				ShortNames: []string{"ok", "B-ad"}, Categories: []string{"all", "x y"},
			}
		}, want: []string{
			`metadata.name: Invalid value: "Widgets.example.com": ` + dns1123Msg,
			`spec.names.plural: Invalid value: "Widgets": ` + dns1035Msg,
			`spec.names.singular: Invalid value: "wid_get": ` + dns1035Msg,
			`spec.names.kind: Invalid value: "Wid.get": may have mixed case, but should otherwise match: ` + dns1035Msg,
			`spec.names.listKind: Invalid value: "Wid.getList": may have mixed case, but should otherwise match: ` + dns1035Msg,
			`spec.names.shortNames[1]: Invalid value: "B-ad": ` + dns1035Msg,
			`spec.names.categories[1]: Invalid value: "x y": ` + dns1035Msg,
		}},
		{name: "kind and listKind differ", mutate: func(c *crd) { c.Spec.Names.ListKind = "Widget" }, want: []string{
			`spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same`,
		}},

		// spec.versions
		{name: "no versions", mutate: func(c *crd) { c.Spec.Versions, c.Status.StoredVersions = nil, nil }, want: []string{
			`spec.versions: Invalid value: null: must have exactly one version marked as storage version`,
			`status.storedVersions: Invalid value: null: must have at least one stored version`,
		}},
		{name: "one storage version: none", mutate: func(c *crd) { c.Spec.Versions[0].Storage = false }, want: []string{
			`spec.versions: Invalid value: [{"Name":"v1","Served":true,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]: must have exactly one version marked as storage version`,
		}},
		{name: "one storage version: two", mutate: func(c *crd) { withSecondVersion(c); c.Spec.Versions[1].Storage = true }, want: []string{
			`spec.versions: Invalid value: [{"Name":"v1","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null},{"Name":"v2","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]: must have exactly one version marked as storage version`,
			`status.storedVersions: Invalid value: ["v1"]: must have the storage version v2`,
		}},
		{name: "unique version names", mutate: func(c *crd) { withSecondVersion(c); c.Spec.Versions[1].Name = "v1" }, want: []string{
			`spec.versions: Invalid value: [{"Name":"v1","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null},{"Name":"v1","Served":true,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]: must contain unique version names`,
		}},
		{name: "the first version name is reported twice, as spec.version too", mutate: func(c *crd) {
			c.Spec.Versions[0].Name, c.Status.StoredVersions = "V1", []string{"V1"}
		}, want: []string{
			`spec.versions[0].name: Invalid value: "V1": ` + dns1035Msg,
			`spec.version: Invalid value: "V1": ` + dns1035Msg,
		}},
		{name: "other version names are reported once", mutate: func(c *crd) { withSecondVersion(c); c.Spec.Versions[1].Name = "2" }, want: []string{
			`spec.versions[1].name: Invalid value: "2": ` + dns1035Msg,
		}},
		{name: "every version needs a schema", mutate: func(c *crd) {
			withSecondVersion(c)
			c.Spec.Versions[1].Schema = &apiextensionsv1.CustomResourceValidation{}
		}, want: []string{
			`spec.versions[1].schema.openAPIV3Schema: Required value`,
		}},
		{name: "deprecation warnings", mutate: func(c *crd) {
			withSecondVersion(c)
			c.Spec.Versions[0].DeprecationWarning = ptr("use v2")
			c.Spec.Versions[1].Deprecated, c.Spec.Versions[1].DeprecationWarning = true, ptr("")
		}, want: []string{
			`spec.versions[0].deprecationWarning: Invalid value: "use v2": can only be set for deprecated versions`,
			`spec.versions[1].deprecationWarning: Invalid value: "": must not be an empty string`,
		}},
		{name: "deprecation warning is a short printable line", mutate: func(c *crd) {
			c.Spec.Versions[0].Deprecated, c.Spec.Versions[0].DeprecationWarning = true, ptr(strings.Repeat("a", 257)+"\t")
		}, want: []string{
			`spec.versions[0].deprecationWarning: Invalid value: "` + strings.Repeat("a", 257) + `\t": must be <= 256 characters long`,
			`spec.versions[0].deprecationWarning: Invalid value: "` + strings.Repeat("a", 257) + `\t": must only contain printable UTF-8 characters; non-printable character found at index 257`,
		}},
		{name: "deprecation warning is valid UTF-8", mutate: func(c *crd) {
			c.Spec.Versions[0].Deprecated, c.Spec.Versions[0].DeprecationWarning = true, ptr("ok\xff")
		}, want: []string{
			`spec.versions[0].deprecationWarning: Invalid value: "ok\ufffd": must only contain printable UTF-8 characters`,
		}},
		{name: "deprecation warning has no invisible characters", mutate: func(c *crd) {
			c.Spec.Versions[0].Deprecated, c.Spec.Versions[0].DeprecationWarning = true, ptr("ok\u200b")
		}, want: []string{
			"spec.versions[0].deprecationWarning: Invalid value: \"ok\u200b\": must only contain printable UTF-8 characters; non-printable character found at index 2",
		}},

		// preserveUnknownFields
		{name: "preserveUnknownFields is refused, and with defaults twice", mutate: func(c *crd) { c.Spec.PreserveUnknownFields = true }, want: []string{
			`spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema`,
			`spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead`,
		}},
		{name: "preserveUnknownFields forbids conversion webhooks", mutate: func(c *crd) {
			c.Spec.PreserveUnknownFields = true
			c.Spec.Conversion = webhookConversion("https://convert.example.com/widgets", nil, "v1")
		}, want: []string{
			`spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema`,
			`spec.conversion.strategy: Invalid value: "Webhook": must be None if spec.preserveUnknownFields is true`,
			`spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead`,
		}},

		// the root of the schema with a status subresource
		{name: "status subresource needs an object at the root", mutate: func(c *crd) { c.Spec.Versions[0].Schema.OpenAPIV3Schema.Type = "array" }, want: []string{
			`spec.validation.openAPIV3Schema.type: Invalid value: "array": only "object" is allowed as the type at the root of the schema if the status subresource is enabled`,
		}},
		{name: "status subresource limits the root fields, per version", mutate: func(c *crd) {
			withSecondVersion(c)
			c.Spec.Versions[1].Subresources = nil
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties = nil
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.MinProperties = ptr(int64(1))
		}, want: []string{
			`spec.versions[0].schema.openAPIV3Schema: Invalid value: {"ID":"","Schema":"","Ref":null,"Description":"","Type":"object","Nullable":false,"Format":"","Title":"","Default":null,"Maximum":null,"ExclusiveMaximum":false,"Minimum":null,"ExclusiveMinimum":false,"MaxLength":null,"MinLength":null,"Pattern":"","MaxItems":null,"MinItems":null,"UniqueItems":false,"MultipleOf":null,"Enum":null,"MaxProperties":null,"MinProperties":1,"Required":null,"Items":null,"AllOf":null,"OneOf":null,"AnyOf":null,"Not":null,"Properties":null,"AdditionalProperties":null,"PatternProperties":null,"Dependencies":null,"AdditionalItems":null,"Definitions":null,"ExternalDocs":null,"Example":null,"XPreserveUnknownFields":null,"XEmbeddedResource":false,"XIntOrString":false,"XListMapKeys":null,"XListType":null,"XMapType":null,"XValidations":null}: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled`,
		}},

		// subresources
		{name: "scale paths are simple JSON paths under spec and status", mutate: func(c *crd) {
			c.Spec.Versions[0].Subresources.Scale = &apiextensionsv1.CustomResourceSubresourceScale{
				SpecReplicasPath: "spec.replicas", StatusReplicasPath: ".spec.replicas", LabelSelectorPath: ptr(".metadata.labels"),
			}
		}, want: []string{
			`spec.subresources.scale.specReplicasPath: Invalid value: "spec.replicas": must be a simple json path starting with .`,
			`spec.subresources.scale.statusReplicasPath: Invalid value: ".spec.replicas": should be a json path under .status`,
			`spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status`,
		}},
		{name: "scale paths point below spec and status", mutate: func(c *crd) {
			c.Spec.Versions[0].Subresources.Scale = &apiextensionsv1.CustomResourceSubresourceScale{
				SpecReplicasPath: ".spec", StatusReplicasPath: ".status", LabelSelectorPath: ptr("selector"),
			}
		}, want: []string{
			`spec.subresources.scale.specReplicasPath: Invalid value: ".spec": should be a json path under .spec`,
			`spec.subresources.scale.statusReplicasPath: Invalid value: ".status": should be a json path under .status`,
			`spec.subresources.scale.labelSelectorPath: Invalid value: "selector": must be a simple json path starting with .`,
		}},
		{name: "scale replica paths are required, the selector is not", mutate: func(c *crd) {
			c.Spec.Versions[0].Subresources.Scale = &apiextensionsv1.CustomResourceSubresourceScale{LabelSelectorPath: ptr("")}
		}, want: []string{
			`spec.subresources.scale.specReplicasPath: Required value`,
			`spec.subresources.scale.statusReplicasPath: Required value`,
		}},
		{name: "subresources that differ between versions are reported per version", mutate: func(c *crd) {
			withSecondVersion(c)
			c.Spec.Versions[1].Subresources.Scale = &apiextensionsv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.size", StatusReplicasPath: "status.replicas"}
		}, want: []string{
			`spec.versions[1].subresources.scale.statusReplicasPath: Invalid value: "status.replicas": must be a simple json path starting with .`,
		}},

		// additionalPrinterColumns
		{name: "printer columns", mutate: func(c *crd) {
			c.Spec.Versions[0].AdditionalPrinterColumns = []apiextensionsv1.CustomResourceColumnDefinition{
				{},
				{Name: "Size", Type: "float", Format: "uuid", JSONPath: "spec.size"},
				{Name: "Age", Type: "date", Format: "date-time", JSONPath: "."},
			}
		}, want: []string{
			`spec.additionalPrinterColumns[0].name: Required value`,
			`spec.additionalPrinterColumns[0].type: Required value: must be one of boolean,date,integer,number,string`,
			`spec.additionalPrinterColumns[0].JSONPath: Required value`,
			`spec.additionalPrinterColumns[1].type: Invalid value: "float": must be one of boolean,date,integer,number,string`,
			`spec.additionalPrinterColumns[1].format: Invalid value: "uuid": must be one of byte,date,date-time,double,float,int32,int64,password`,
			`spec.additionalPrinterColumns[1].JSONPath: Invalid value: "spec.size": must be a simple json path starting with .`,
		}},
		{name: "printer columns that differ between versions are reported per version", mutate: func(c *crd) {
			withSecondVersion(c)
			c.Spec.Versions[1].AdditionalPrinterColumns = []apiextensionsv1.CustomResourceColumnDefinition{{Name: "Size", Type: "float", JSONPath: "x"}}
		}, want: []string{
			`spec.versions[1].additionalPrinterColumns[0].type: Invalid value: "float": must be one of boolean,date,integer,number,string`,
			`spec.versions[1].additionalPrinterColumns[0].JSONPath: Invalid value: "x": must be a simple json path starting with .`,
		}},
		{name: "no printer columns and an empty list are the same", mutate: func(c *crd) {
			withSecondVersion(c)
			c.Spec.Versions[0].AdditionalPrinterColumns = nil
			c.Spec.Versions[1].AdditionalPrinterColumns = []apiextensionsv1.CustomResourceColumnDefinition{}
		}},

		// selectableFields
		{name: "selectable fields: strings, integers, booleans and map values", mutate: func(c *crd) {
			c.Spec.Versions[0].SelectableFields = []apiextensionsv1.SelectableField{
				{JSONPath: ".spec.color"}, {JSONPath: ".spec.size"}, {JSONPath: ".status.ready"}, {JSONPath: ".spec.labels.team"},
			}
		}},
		{name: "selectable fields must resolve to scalars outside metadata", mutate: func(c *crd) {
			c.Spec.Versions[0].SelectableFields = []apiextensionsv1.SelectableField{
				{}, {JSONPath: "spec.color"}, {JSONPath: ".spec.obj"}, {JSONPath: ".metadata.name"}, {JSONPath: ".spec.nope"},
				{JSONPath: ".spec[color]"}, {JSONPath: ".spec.color"}, {JSONPath: ".spec.color"}, {JSONPath: "."},
				{JSONPath: ".spec."}, {JSONPath: ".spec.anything.x"}, {JSONPath: ".spec.'a.b'"}, {JSONPath: ".spec.labels"},
			}
		}, want: []string{
			`spec.selectableFields[0].jsonPath: Required value`,
			`spec.selectableFields[1].jsonPath: Invalid value: "spec.color": is an invalid path: expected [ or . but got: spec`,
			`spec.selectableFields[2].jsonPath: Invalid value: ".spec.obj": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.`,
			`spec.selectableFields[3].jsonPath: Invalid value: ".metadata.name": is an invalid path: does not refer to a valid field`,
			`spec.selectableFields[4].jsonPath: Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field`,
			`spec.selectableFields[5].jsonPath: Invalid value: ".spec[color]": is an invalid path: array notation is not allowed`,
			`spec.selectableFields[7].jsonPath: Duplicate value: ".spec.color"`,
			`spec.selectableFields[8].jsonPath: Invalid value: ".": is an invalid path: unexpected end of JSON path`,
			`spec.selectableFields[9].jsonPath: Invalid value: ".spec.": is an invalid path: unexpected end of JSON path`,
			`spec.selectableFields[10].jsonPath: Invalid value: ".spec.anything.x": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.`,
			`spec.selectableFields[11].jsonPath: Invalid value: ".spec.'a.b'": is an invalid path: does not refer to a valid field`,
			`spec.selectableFields[12].jsonPath: Invalid value: ".spec.labels": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.`,
		}},
		{name: "selectable fields are limited to 8", mutate: func(c *crd) { stringFields(c, 10, 10) }, want: []string{
			`spec.selectableFields: Too many: 10: must have at most 8 items`,
		}},
		{name: "selectable fields per version, with per-version schemas", mutate: func(c *crd) {
			withSecondVersion(c)
			c.Spec.Versions[1].Schema.OpenAPIV3Schema.Description = "v2 differs"
			c.Spec.Versions[1].SelectableFields = []apiextensionsv1.SelectableField{{JSONPath: ".spec.color"}, {JSONPath: ".spec.obj"}}
		}, want: []string{
			`spec.versions[1].selectableFields[1].jsonPath: Invalid value: ".spec.obj": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.`,
		}},
		{name: "selectable fields per version with one shared schema are refused, as kube-apiserver does", mutate: func(c *crd) {
			withSecondVersion(c)
			c.Spec.Versions[1].SelectableFields = []apiextensionsv1.SelectableField{{JSONPath: ".spec.color"}}
		}, want: []string{
			"spec.versions[1].selectableFields: Invalid value: \"\": may only be set when `version.schema.openAPIV3Schema` is not included",
		}},
		{name: "selectable fields need a schema", mutate: func(c *crd) {
			c.Spec.Versions[0].Schema = nil
			c.Spec.Versions[0].SelectableFields = []apiextensionsv1.SelectableField{{JSONPath: ".spec.color"}}
		}, want: []string{
			`spec.versions[0].schema.openAPIV3Schema: Required value`,
			`spec.selectableFields: Invalid value: "": may only be set when validations.schema is included`,
		}},
		{name: "selectable fields need a schema, per version", mutate: func(c *crd) {
			withSecondVersion(c)
			c.Spec.Versions[1].Schema = nil
			c.Spec.Versions[1].SelectableFields = []apiextensionsv1.SelectableField{{JSONPath: ".spec.color"}}
		}, want: []string{
			`spec.versions[1].schema.openAPIV3Schema: Required value`,
			"spec.versions[1].selectableFields: Invalid value: \"\": may only be set when `version.schema.openAPIV3Schema` is not included",
		}},
		// kube-apiserver panics here (it resolves the paths in no schema);
		// we report every path as unresolvable instead.
		{name: "selectable fields in a schema that is not structural", mutate: func(c *crd) {
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = apiextensionsv1.JSONSchemaProps{Type: "object", Ref: ptr("#/definitions/x")}
			c.Spec.Versions[0].SelectableFields = []apiextensionsv1.SelectableField{{JSONPath: ".spec.color"}}
		}, want: []string{
			`spec.schema.openAPIV3Schema: Invalid value: "": OpenAPIV3Schema '$ref' is not supported`,
			`spec.selectableFields[0].jsonPath: Invalid value: ".spec.color": is an invalid path: does not refer to a valid field`,
		}},

		// conversion
		{name: "conversion strategy is required", mutate: func(c *crd) { c.Spec.Conversion.Strategy = "" }, want: []string{
			`spec.conversion.strategy: Required value`,
		}},
		{name: "conversion strategy is None or Webhook", mutate: func(c *crd) { c.Spec.Conversion.Strategy = "Magic" }, want: []string{
			`spec.conversion.strategy: Unsupported value: "Magic": supported values: "None", "Webhook"`,
		}},
		{name: "strategy None takes no webhook", mutate: func(c *crd) {
			c.Spec.Conversion.Webhook = &apiextensionsv1.WebhookConversion{ConversionReviewVersions: []string{"v1"}, ClientConfig: &apiextensionsv1.WebhookClientConfig{}}
		}, want: []string{
			`spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook`,
			`spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook`,
		}},
		{name: "strategy Webhook needs a webhook", mutate: func(c *crd) { c.Spec.Conversion.Strategy = "Webhook" }, want: []string{
			`spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook`,
			`spec.conversion.conversionReviewVersions: Required value`,
		}},
		{name: "review versions are unique DNS labels and include v1 or v1beta1", mutate: func(c *crd) {
			c.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: "Webhook", Webhook: &apiextensionsv1.WebhookConversion{ConversionReviewVersions: []string{"v2", "v2", "V3"}}}
		}, want: []string{
			`spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook`,
			`spec.conversion.conversionReviewVersions[1]: Invalid value: "v2": duplicate version`,
			`spec.conversion.conversionReviewVersions[2]: Invalid value: "V3": ` + dns1035Msg,
			`spec.conversion.conversionReviewVersions: Invalid value: ["v2","v2","V3"]: must include at least one of v1, v1beta1`,
		}},
		{name: "webhook has a url or a service", mutate: func(c *crd) {
			c.Spec.Conversion = webhookConversion("https://convert.example.com", nil, "v1beta1")
			c.Spec.Conversion.Webhook.ClientConfig.Service = &apiextensionsv1.ServiceReference{Name: "convert", Namespace: "system", Port: ptr(int32(443))}
		}, want: []string{
			`spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required`,
		}},
		{name: "webhook url is plain https", mutate: func(c *crd) {
			c.Spec.Conversion = webhookConversion("http://user:pw@/x?q=1#frag", []byte("not PEM"), "v1")
		}, want: []string{
			`spec.conversion.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
			`spec.conversion.webhookClientConfig.url: Invalid value: "": host must be specified; desired format: https://host[/path]`,
			`spec.conversion.webhookClientConfig.url: Invalid value: "user:pw": user information is not permitted in the URL`,
			`spec.conversion.webhookClientConfig.url: Invalid value: "frag": fragments are not permitted in the URL`,
			`spec.conversion.webhookClientConfig.url: Invalid value: "q=1": query parameters are not permitted in the URL`,
		}},
		{name: "webhook url parses", mutate: func(c *crd) { c.Spec.Conversion = webhookConversion("https://a b\x7f", nil, "v1") }, want: []string{
			`spec.conversion.webhookClientConfig.url: Required value: url must be a valid URL: parse "https://a b\x7f": net/url: invalid control character in URL; desired format: https://host[/path]`,
		}},
		{name: "webhook service: a missing name is reported at namespace, as kube-apiserver does", mutate: func(c *crd) {
			c.Spec.Conversion = serviceConversion(apiextensionsv1.ServiceReference{Namespace: "system", Path: ptr("x//Y_/"), Port: ptr(int32(70000))})
		}, want: []string{
			`spec.conversion.webhookClientConfig.service.namespace: Required value`,
			`spec.conversion.webhookClientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive`,
			`spec.conversion.webhookClientConfig.service.path: Invalid value: "x//Y_/": must start with a '/'`,
			`spec.conversion.webhookClientConfig.service.path: Invalid value: "x//Y_/": segment[0] may not be empty`,
			`spec.conversion.webhookClientConfig.service.path: Invalid value: "x//Y_/": segment[1] may not be empty`,
			`spec.conversion.webhookClientConfig.service.path: Invalid value: "x//Y_/": segment[2]: ` + dns1123Msg,
		}},
		{name: "webhook service: a missing namespace is reported at name", mutate: func(c *crd) {
			c.Spec.Conversion = serviceConversion(apiextensionsv1.ServiceReference{Name: "convert", Path: ptr("//")})
		}, want: []string{
			`spec.conversion.webhookClientConfig.service.name: Required value`,
			`spec.conversion.webhookClientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive`,
			`spec.conversion.webhookClientConfig.service.path: Invalid value: "//": segment[0] may not be empty`,
		}},
		{name: "webhook service with a path", mutate: func(c *crd) {
			c.Spec.Conversion = serviceConversion(apiextensionsv1.ServiceReference{Name: "convert", Namespace: "system", Path: ptr("/convert/widgets/"), Port: ptr(int32(8443))})
		}},

		// API approval
		{name: "protected groups need the approval annotation", mutate: func(c *crd) { c.Spec.Group, c.Name = "x.k8s.io", "widgets.x.k8s.io" }, want: []string{
			`metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`,
		}},
		{name: "approval is a URL or unapproved...", mutate: func(c *crd) {
			c.Spec.Group, c.Name = "kubernetes.io", "widgets.kubernetes.io"
			c.Annotations = map[string]string{"api-approved.kubernetes.io": "yes"}
		}, want: []string{
			`metadata.annotations[api-approved.kubernetes.io]: Invalid value: "yes": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
		}},
		{name: "unapproved is accepted", mutate: func(c *crd) {
			c.Spec.Group, c.Name = "a.k8s.io", "widgets.a.k8s.io"
			c.Annotations = map[string]string{"api-approved.kubernetes.io": "unapproved, experimental"}
		}},
		{name: "approved", mutate: func(c *crd) {
			c.Spec.Group, c.Name = "a.k8s.io", "widgets.a.k8s.io"
			c.Annotations = map[string]string{"api-approved.kubernetes.io": "https://github.com/kubernetes/kubernetes/pull/78458"}
		}},
		{name: "k8s.io lookalikes are not protected", mutate: func(c *crd) { c.Spec.Group, c.Name = "notk8s.io", "widgets.notk8s.io" }},

		// status
		{name: "stored versions must stay in spec.versions", mutate: func(c *crd) { c.Status.StoredVersions = []string{"v0", "v1"} }, want: []string{
			`status.storedVersions[0]: Invalid value: "v0": missing from spec.versions; v0 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v0 and removes v0 from status.storedVersions`,
		}},
		{name: "stored versions include the storage version", mutate: func(c *crd) { withSecondVersion(c); c.Status.StoredVersions = []string{"v2"} }, want: []string{
			`status.storedVersions: Invalid value: ["v2"]: must have the storage version v1`,
		}},
		{name: "stored versions are required", mutate: func(c *crd) { c.Status.StoredVersions = []string{} }, want: []string{
			`status.storedVersions: Invalid value: []: must have at least one stored version`,
		}},
		{name: "accepted names have the form of names", mutate: func(c *crd) {
			c.Status.AcceptedNames = apiextensionsv1.CustomResourceDefinitionNames{Plural: "A", Kind: "X", ListKind: "X"}
		}, want: []string{
			`status.acceptedNames.plural: Invalid value: "A": ` + dns1035Msg,
			`status.acceptedNames.listKind: Invalid value: "X": kind and listKind may not be the same`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCRD(t)
			tt.mutate(c)
			checkErrors(t, ValidateCustomResourceDefinition(c, ValidationOptions{}), tt.want)
		})
	}
}

func TestValidateCustomResourceDefinitionUpdate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(old, c *crd)
		want   []string
	}{
		{name: "no change", mutate: func(old, c *crd) {}},
		{name: "the name is immutable", mutate: func(old, c *crd) { c.Name = "gadgets.example.com" }, want: []string{
			`metadata.name: Invalid value: "gadgets.example.com": field is immutable`,
		}},
		{name: "group and plural are immutable", mutate: func(old, c *crd) { c.Spec.Group, c.Spec.Names.Plural = "example.org", "gadgets" }, want: []string{
			`spec.group: Invalid value: "example.org": field is immutable`,
			`spec.names.plural: Invalid value: "gadgets": field is immutable`,
		}},
		{name: "scope and kind may change until the CRD is established", mutate: func(old, c *crd) {
			c.Spec.Scope, c.Spec.Names.Kind, c.Spec.Names.ListKind = apiextensionsv1.ClusterScoped, "Gadget", "GadgetList"
		}},
		{name: "scope and kind are immutable once established", mutate: func(old, c *crd) {
			establish(old)
			c.Spec.Scope, c.Spec.Names.Kind, c.Spec.Names.ListKind = apiextensionsv1.ClusterScoped, "Gadget", "GadgetList"
		}, want: []string{
			`spec.scope: Invalid value: "Cluster": field is immutable`,
			`spec.names.kind: Invalid value: "Gadget": field is immutable`,
		}},
		{name: "a stored version may not leave spec.versions", mutate: func(old, c *crd) {
			withSecondVersion(old)
			old.Status.StoredVersions = []string{"v1", "v2"}
			*c = *old.DeepCopy()
			c.Spec.Versions = c.Spec.Versions[1:]
			c.Spec.Versions[0].Storage = true
		}, want: []string{
			`status.storedVersions[0]: Invalid value: "v1": missing from spec.versions; v1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1 and removes v1 from status.storedVersions`,
		}},
		{name: "a missing approval that stays missing is accepted", mutate: func(old, c *crd) {
			for _, x := range []*crd{old, c} {
				x.Spec.Group, x.Name = "a.k8s.io", "widgets.a.k8s.io"
			}
		}},
		{name: "a missing approval may not become invalid", mutate: func(old, c *crd) {
			for _, x := range []*crd{old, c} {
				x.Spec.Group, x.Name = "a.k8s.io", "widgets.a.k8s.io"
			}
			c.Annotations = map[string]string{"api-approved.kubernetes.io": "nope"}
		}, want: []string{
			`metadata.annotations[api-approved.kubernetes.io]: Invalid value: "nope": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
		}},
		{name: "an approval may not be removed", mutate: func(old, c *crd) {
			for _, x := range []*crd{old, c} {
				x.Spec.Group, x.Name = "a.k8s.io", "widgets.a.k8s.io"
			}
			old.Annotations = map[string]string{"api-approved.kubernetes.io": "https://github.com/kubernetes/enhancements/pull/1111"}
		}, want: []string{
			`metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`,
		}},
		{name: "preserveUnknownFields may stay true", mutate: func(old, c *crd) {
			old.Spec.PreserveUnknownFields, c.Spec.PreserveUnknownFields = true, true
		}, want: []string{
			`spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema`,
		}},
		{name: "preserveUnknownFields may not become true", mutate: func(old, c *crd) { c.Spec.PreserveUnknownFields = true }, want: []string{
			`spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema`,
			`spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead`,
		}},
		{name: "unknown review versions stay accepted", mutate: func(old, c *crd) {
			old.Spec.Conversion = webhookConversion("https://convert.example.com", nil, "v3")
			c.Spec.Conversion = webhookConversion("https://convert.example.com", nil, "v3", "v4")
		}},
		{name: "unknown review versions are not accepted anew", mutate: func(old, c *crd) {
			old.Spec.Conversion = webhookConversion("https://convert.example.com", nil, "v1")
			c.Spec.Conversion = webhookConversion("https://convert.example.com", nil, "v3")
		}, want: []string{
			`spec.conversion.conversionReviewVersions: Invalid value: ["v3"]: must include at least one of v1, v1beta1`,
		}},
		{name: "the caBundle is not checked before the CRD is established", mutate: func(old, c *crd) {
			c.Spec.Conversion = webhookConversion("https://convert.example.com", []byte("junk"), "v1")
		}},
		{name: "the caBundle holds PEM once established", mutate: func(old, c *crd) {
			establish(old)
			c.Spec.Conversion = webhookConversion("https://convert.example.com", []byte("junk"), "v1")
		}, want: []string{
			`spec.conversion.webhookClientConfig.caBundle: Invalid value: "anVuaw==": unable to load root certificates: unable to parse bytes as PEM block`,
		}},
		{name: "the caBundle holds a certificate", mutate: func(old, c *crd) {
			establish(old)
			c.Spec.Conversion = webhookConversion("https://convert.example.com", []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"), "v1")
		}, want: []string{
			`spec.conversion.webhookClientConfig.caBundle: Invalid value: "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCkFBQUEKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=": unable to load root certificates: failed to parse certificate: x509: malformed certificate`,
		}},
		{name: "the caBundle holds certificates, not keys", mutate: func(old, c *crd) {
			establish(old)
			c.Spec.Conversion = webhookConversion("https://convert.example.com", []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), "v1")
		}, want: []string{
			`spec.conversion.webhookClientConfig.caBundle: Invalid value: "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCkFBQUEKLS0tLS1FTkQgUFJJVkFURSBLRVktLS0tLQo=": unable to load root certificates: no valid certificate authority data seen`,
		}},
		{name: "an already invalid caBundle stays accepted", mutate: func(old, c *crd) {
			establish(old)
			old.Spec.Conversion = webhookConversion("https://convert.example.com", []byte("junk"), "v1")
			c.Spec.Conversion = webhookConversion("https://convert.example.com", []byte("junk2"), "v1")
		}},
		{name: "versions without a schema stay accepted while not served", mutate: func(old, c *crd) {
			withSecondVersion(old)
			old.Spec.Versions[1].Schema = nil
			*c = *old.DeepCopy()
			c.Spec.Versions[0].Schema = nil
			c.Spec.Versions[1].Served = false
		}, want: []string{
			`spec.versions[0].schema.openAPIV3Schema: Required value: because otherwise all fields are pruned`,
		}},
		{name: "too many selectable fields stay accepted unchanged", mutate: func(old, c *crd) {
			stringFields(old, 10, 10)
			stringFields(c, 10, 10)
		}},
		{name: "too many selectable fields are refused when changed", mutate: func(old, c *crd) {
			stringFields(old, 10, 10)
			stringFields(c, 10, 9)
		}, want: []string{
			`spec.selectableFields: Too many: 9: must have at most 8 items`,
		}},
		{name: "too many selectable fields per version stay accepted unchanged", mutate: func(old, c *crd) {
			withSecondVersion(old)
			stringFields(old, 10, 10)
			old.Spec.Versions[1].Schema.OpenAPIV3Schema.Description = "v2 differs"
			old.Spec.Versions[1].SelectableFields = old.Spec.Versions[1].SelectableFields[:1]
			*c = *old.DeepCopy()
			c.Spec.Versions[1].SelectableFields = nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, c := newCRD(t), newCRD(t)
			tt.mutate(old, c)
			// As stored objects, both carry a resourceVersion.
			old.ResourceVersion, c.ResourceVersion = "7", "7"
			checkErrors(t, ValidateCustomResourceDefinitionUpdate(c, old, ValidationOptions{}), tt.want)
		})
	}
}

func TestValidateCustomResourceDefinitionStatusUpdate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(c *crd)
		want   []string
	}{
		{name: "conditions and accepted names", mutate: func(c *crd) {
			establish(c)
			c.Status.AcceptedNames = c.Spec.Names
		}},
		{name: "stored versions are not checked here", mutate: func(c *crd) { c.Status.StoredVersions = []string{"v9"} }},
		{name: "accepted names", mutate: func(c *crd) { c.Status.AcceptedNames.Kind = "A.B" }, want: []string{
			`status.acceptedNames.kind: Invalid value: "A.B": may have mixed case, but should otherwise match: ` + dns1035Msg,
		}},
		{name: "metadata", mutate: func(c *crd) { c.ResourceVersion = "" }, want: []string{
			`metadata.resourceVersion: Invalid value: "": must be specified for an update`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := newCRD(t)
			old.ResourceVersion = "7"
			c := old.DeepCopy()
			tt.mutate(c)
			checkErrors(t, ValidateCustomResourceDefinitionStatusUpdate(c, old), tt.want)
		})
	}
}

// The schema hook is called where kube-apiserver validates the schema: once
// at spec.validation when every version shares it, else per version.
func TestValidateSchemaHook(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(c *crd)
		want   []string
	}{
		{name: "one version: hoisted", mutate: func(c *crd) {}, want: []string{
			"spec.validation.openAPIV3Schema",
		}},
		{name: "identical schemas: hoisted, checked once", mutate: withSecondVersion, want: []string{
			"spec.validation.openAPIV3Schema",
		}},
		{name: "schemas that differ only in JSON formatting are identical", mutate: func(c *crd) {
			withSecondVersion(c)
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Default = &apiextensionsv1.JSON{Raw: []byte(`{"a":1,"b":2}`)}
			c.Spec.Versions[1].Schema.OpenAPIV3Schema.Default = &apiextensionsv1.JSON{Raw: []byte(`{ "b": 2, "a": 1 }`)}
		}, want: []string{
			"spec.validation.openAPIV3Schema",
		}},
		{name: "different schemas: per version", mutate: func(c *crd) {
			withSecondVersion(c)
			c.Spec.Versions[1].Schema.OpenAPIV3Schema.Description = "v2"
		}, want: []string{
			"spec.versions[0].schema.openAPIV3Schema",
			"spec.versions[1].schema.openAPIV3Schema",
		}},
		{name: "missing schemas are not passed on", mutate: func(c *crd) {
			withSecondVersion(c)
			c.Spec.Versions[1].Schema = nil
		}, want: []string{
			"spec.versions[0].schema.openAPIV3Schema",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCRD(t)
			tt.mutate(c)
			var calls []string
			opts := ValidationOptions{ValidateSchema: func(fldPath *field.Path, s *apiextensionsv1.JSONSchemaProps) field.ErrorList {
				calls = append(calls, fldPath.String())
				return field.ErrorList{field.Invalid(fldPath.Child("type"), s.Type, "hook")}
			}}
			errs := ValidateCustomResourceDefinition(c, opts)
			if strings.Join(calls, " ") != strings.Join(tt.want, " ") {
				t.Errorf("hook called at %v, want %v", calls, tt.want)
			}
			for _, path := range tt.want {
				found := false
				for _, e := range errs {
					found = found || e.Field == path+".type" && e.Detail == "hook"
				}
				if !found {
					t.Errorf("hook error at %s not returned in %v", path, errs)
				}
			}
		})
	}
}
