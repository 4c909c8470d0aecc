package admissionregistration

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/util/jsonpath"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/apis/internal/declarative"
	"github.com/kapi-dev/kapi/pkg/apis/internal/fielderrors"
)

var (
	specPath   = field.NewPath("spec")
	statusPath = field.NewPath("status")
)

const (
	maxAuditAnnotations = 20
	// maxAuditAnnotationValueExpressionLength is below the 10 KiB of
	// an audit annotation's value: a concatenation grows.
	maxAuditAnnotationValueExpressionLength = 5 * 1024
)

var (
	validationReasons = []string{string(metav1.StatusReasonForbidden), string(metav1.StatusReasonInvalid), string(metav1.StatusReasonRequestEntityTooLarge)}
	validationActions = []string{string(admissionregistrationv1.Audit), string(admissionregistrationv1.Deny), string(admissionregistrationv1.Warn)}
	patchTypes        = []string{string(admissionregistrationv1.PatchTypeApplyConfiguration), string(admissionregistrationv1.PatchTypeJSONPatch)}
	notFoundActions   = []string{string(admissionregistrationv1.DenyAction), string(admissionregistrationv1.AllowAction)}
	newlines          = regexp.MustCompile(`[\n\r]+`)
	celIdentifier     = regexp.MustCompile(`^[_a-zA-Z][_a-zA-Z0-9]*$`)
	celReservedIdents = sets.New("true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while")
)

// policyOptions are what a policy's validation tolerates: an update
// that changes neither the match conditions nor the param kind does not
// compile the conditions again, and expressions the stored policy
// already has compile in the environment of stored expressions.
type policyOptions struct {
	ignoreMatchConditions bool
	stored                map[exprKind]sets.Set[string]
}

// storedExpressions collects the stored object's expressions by kind.
type storedExpressions map[exprKind]sets.Set[string]

func (s storedExpressions) add(kind exprKind, expression string) {
	if s[kind] == nil {
		s[kind] = sets.New[string]()
	}
	s[kind].Insert(expression)
}

// ValidateValidatingAdmissionPolicy validates a new
// ValidatingAdmissionPolicy.
func ValidateValidatingAdmissionPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy) field.ErrorList {
	return validateValidatingAdmissionPolicy(p, policyOptions{})
}

// ValidateValidatingAdmissionPolicyUpdate validates an update of a
// ValidatingAdmissionPolicy's spec.
func ValidateValidatingAdmissionPolicyUpdate(p, old *admissionregistrationv1.ValidatingAdmissionPolicy) field.ErrorList {
	stored := storedExpressions{}
	for _, c := range old.Spec.MatchConditions {
		stored.add(exprMatchCondition, c.Expression)
	}
	for _, v := range old.Spec.Validations {
		stored.add(exprValidation, v.Expression)
		if v.MessageExpression != "" {
			stored.add(exprMessage, v.MessageExpression)
		}
	}
	for _, a := range old.Spec.AuditAnnotations {
		stored.add(exprAuditAnnotation, a.ValueExpression)
	}
	opts := policyOptions{
		ignoreMatchConditions: apiequality.Semantic.DeepEqual(p.Spec.ParamKind, old.Spec.ParamKind) && apiequality.Semantic.DeepEqual(p.Spec.MatchConditions, old.Spec.MatchConditions),
		stored:                stored,
	}
	allErrs := apivalidation.ValidateObjectMetaUpdate(&p.ObjectMeta, &old.ObjectMeta, metadataPath)
	return fielderrors.Dedupe(append(allErrs, validateValidatingAdmissionPolicy(p, opts)...))
}

// ValidateValidatingAdmissionPolicyStatusUpdate validates a write of a
// ValidatingAdmissionPolicy's status: the type checking's warnings and
// the conditions.
func ValidateValidatingAdmissionPolicyStatusUpdate(p, old *admissionregistrationv1.ValidatingAdmissionPolicy) field.ErrorList {
	allErrs := apivalidation.ValidateObjectMetaUpdate(&p.ObjectMeta, &old.ObjectMeta, metadataPath)
	if tc := p.Status.TypeChecking; tc != nil {
		for i, w := range tc.ExpressionWarnings {
			p := statusPath.Child("typeChecking", "expressionWarnings").Index(i)
			if w.Warning == "" {
				allErrs = append(allErrs, field.Required(p.Child("warning"), ""))
			}
			allErrs = append(allErrs, validateFieldRef(w.FieldRef, p.Child("fieldRef"))...)
		}
	}
	return append(allErrs, metav1validation.ValidateConditions(p.Status.Conditions, statusPath.Child("conditions"))...)
}

func validateFieldRef(ref string, fldPath *field.Path) field.ErrorList {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	if err := jsonpath.New("spec").Parse("{" + ref + "}"); err != nil {
		return field.ErrorList{field.Invalid(fldPath, ref, fmt.Sprintf("invalid JSONPath: %v", err))}
	}
	return nil
}

func validateValidatingAdmissionPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy, opts policyOptions) field.ErrorList {
	allErrs := apivalidation.ValidateObjectMeta(&p.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, metadataPath)
	spec := &p.Spec
	// Variables make the compiler compose: later expressions see
	// earlier variables' types as variables.<name>.
	c := newPolicyCompiler(len(spec.Variables) > 0, spec.ParamKind != nil, opts.stored)
	allErrs = append(allErrs, validatePolicyCommon(spec.FailurePolicy, spec.ParamKind, spec.MatchConstraints)...)
	allErrs = append(allErrs, validateMatchConditionsOf(spec.MatchConditions, opts, c)...)
	allErrs = append(allErrs, validateVariables(spec.Variables, c)...)
	if len(spec.Validations) == 0 && len(spec.AuditAnnotations) == 0 {
		const msg = "validations or auditAnnotations must contain at least one item"
		return append(allErrs, field.Required(specPath.Child("validations"), msg), field.Required(specPath.Child("auditAnnotations"), msg))
	}
	for i := range spec.Validations {
		allErrs = append(allErrs, validateValidation(&spec.Validations[i], c, specPath.Child("validations").Index(i))...)
	}
	if spec.AuditAnnotations != nil {
		if len(spec.AuditAnnotations) > maxAuditAnnotations {
			allErrs = append(allErrs, field.Invalid(specPath.Child("auditAnnotations"), internalAuditAnnotations(spec.AuditAnnotations), fmt.Sprintf("must not have more than %d auditAnnotations", maxAuditAnnotations)))
		}
		keys := sets.New[string]()
		for i := range spec.AuditAnnotations {
			a := &spec.AuditAnnotations[i]
			ap := specPath.Child("auditAnnotations").Index(i)
			allErrs = append(allErrs, validateAuditAnnotation(p.Name, a, c, ap)...)
			if keys.Has(a.Key) {
				allErrs = append(allErrs, field.Duplicate(ap.Child("key"), a.Key))
			}
			keys.Insert(a.Key)
		}
	}
	return allErrs
}

// validatePolicyCommon validates what both kinds of policy have: the
// failure policy, the param kind and the match constraints.
func validatePolicyCommon(failure *admissionregistrationv1.FailurePolicyType, paramKind *admissionregistrationv1.ParamKind, match *admissionregistrationv1.MatchResources) field.ErrorList {
	var allErrs field.ErrorList
	if failure == nil {
		allErrs = append(allErrs, field.Required(specPath.Child("failurePolicy"), ""))
	} else if !slices.Contains(failurePolicies, string(*failure)) {
		allErrs = append(allErrs, field.NotSupported(specPath.Child("failurePolicy"), *failure, failurePolicies))
	}
	if paramKind != nil {
		allErrs = append(allErrs, validateParamKind(paramKind, specPath.Child("paramKind"))...)
	}
	if match == nil {
		allErrs = append(allErrs, field.Required(specPath.Child("matchConstraints"), ""))
	} else {
		allErrs = append(allErrs, validateMatchResources(match, specPath.Child("matchConstraints"))...)
		// The resource rules give the expressions their types.
		if len(match.ResourceRules) == 0 {
			allErrs = append(allErrs, field.Required(specPath.Child("matchConstraints", "resourceRules"), ""))
		}
	}
	return allErrs
}

func validateMatchConditionsOf(conditions []admissionregistrationv1.MatchCondition, opts policyOptions, c *policyCompiler) field.ErrorList {
	if opts.ignoreMatchConditions {
		return nil
	}
	compile := func(expr string, p *field.Path) field.ErrorList {
		return c.compile(expr, exprMatchCondition, p)
	}
	return validateMatchConditions(conditions, compile, specPath.Child("matchConditions"))
}

func validateParamKind(k *admissionregistrationv1.ParamKind, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch group, version, err := parseGroupVersion(k.APIVersion); {
	case k.APIVersion == "":
		allErrs = append(allErrs, field.Required(fldPath.Child("apiVersion"), ""))
	case err != nil:
		allErrs = append(allErrs, field.Invalid(fldPath.Child("apiVersion"), k.APIVersion, err.Error()))
	default:
		if group != "" {
			if errs := validation.IsDNS1123Subdomain(group); len(errs) > 0 {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("apiVersion"), group, strings.Join(errs, ",")))
			}
		}
		if version == "" {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("apiVersion"), k.APIVersion, "version must be specified"))
		} else if errs := validation.IsDNS1035Label(version); len(errs) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("apiVersion"), version, strings.Join(errs, ",")))
		}
	}
	if k.Kind == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("kind"), ""))
	} else if errs := validation.IsDNS1035Label(strings.ToLower(k.Kind)); len(errs) > 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("kind"), k.Kind, "may have mixed case, but should otherwise match: "+strings.Join(errs, ",")))
	}
	return allErrs
}

// parseGroupVersion splits "group/version" (or "version", or "/").
func parseGroupVersion(gv string) (group, version string, err error) {
	if gv == "" || gv == "/" {
		return "", "", nil
	}
	switch strings.Count(gv, "/") {
	case 0:
		return "", gv, nil
	case 1:
		group, version, _ = strings.Cut(gv, "/")
		return group, version, nil
	default:
		return "", "", fmt.Errorf("unexpected GroupVersion string: %v", gv)
	}
}

func validateVariables(vars []admissionregistrationv1.Variable, c *policyCompiler) field.ErrorList {
	var allErrs field.ErrorList
	for i, v := range vars {
		p := specPath.Child("variables").Index(i)
		if strings.TrimSpace(v.Name) == "" {
			allErrs = append(allErrs, field.Required(p.Child("name"), "name is not specified"))
		} else if !celIdentifier.MatchString(v.Name) || celReservedIdents.Has(v.Name) {
			allErrs = append(allErrs, field.Invalid(p.Child("name"), v.Name, "must be a valid CEL identifier"))
		}
		if strings.TrimSpace(v.Expression) == "" {
			allErrs = append(allErrs, field.Required(p.Child("expression"), "expression is not specified"))
		} else {
			allErrs = append(allErrs, c.compileVariable(v.Name, v.Expression, p.Child("expression"))...)
		}
	}
	return allErrs
}

func validateValidation(v *admissionregistrationv1.Validation, c *policyCompiler, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if strings.TrimSpace(v.Expression) == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("expression"), "expression is not specified"))
	} else {
		allErrs = append(allErrs, c.compile(v.Expression, exprValidation, fldPath.Child("expression"))...)
	}
	if v.MessageExpression != "" && strings.TrimSpace(v.MessageExpression) == "" {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("messageExpression"), v.MessageExpression, "must be non-empty if specified"))
	} else if strings.TrimSpace(v.MessageExpression) != "" {
		// Compiled as written, so that errors point at the right column.
		allErrs = append(allErrs, c.compile(v.MessageExpression, exprMessage, fldPath.Child("messageExpression"))...)
	}
	if msg := strings.TrimSpace(v.Message); v.Message != "" && msg == "" {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("message"), v.Message, "must be non-empty if specified"))
	} else if newlines.MatchString(msg) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("message"), v.Message, "must not contain line breaks"))
	}
	if v.Reason != nil && !slices.Contains(validationReasons, string(*v.Reason)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("reason"), *v.Reason, validationReasons))
	}
	return allErrs
}

// validateAuditAnnotation: the key, prefixed with the policy's name,
// must be a qualified name.
func validateAuditAnnotation(policyName string, a *admissionregistrationv1.AuditAnnotation, c *policyCompiler, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	keyPath := fldPath.Child("key")
	if name := policyName; name != "" {
		allErrs = append(allErrs, core.ValidateQualifiedName(name+"/"+a.Key, keyPath)...)
	} else {
		allErrs = append(allErrs, field.Invalid(keyPath, a.Key, "requires metadata.name be non-empty"))
	}
	switch expr := strings.TrimSpace(a.ValueExpression); {
	case expr == "":
		allErrs = append(allErrs, field.Required(fldPath.Child("valueExpression"), "valueExpression is not specified"))
	case len(expr) > maxAuditAnnotationValueExpressionLength:
		allErrs = append(allErrs, field.Required(fldPath.Child("valueExpression"), fmt.Sprintf("must not exceed %d bytes in length", maxAuditAnnotationValueExpressionLength)))
	default:
		// Compiled trimmed, but reported as written.
		allErrs = append(allErrs, c.compileAs(expr, a.ValueExpression, exprAuditAnnotation, fldPath.Child("valueExpression"))...)
	}
	return allErrs
}

// ValidateValidatingAdmissionPolicyBinding validates a new binding.
func ValidateValidatingAdmissionPolicyBinding(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) field.ErrorList {
	return validateValidatingAdmissionPolicyBinding(b, nil)
}

// ValidateValidatingAdmissionPolicyBindingUpdate validates an update.
func ValidateValidatingAdmissionPolicyBindingUpdate(b, old *admissionregistrationv1.ValidatingAdmissionPolicyBinding) field.ErrorList {
	allErrs := apivalidation.ValidateObjectMetaUpdate(&b.ObjectMeta, &old.ObjectMeta, metadataPath)
	return fielderrors.Dedupe(append(allErrs, validateValidatingAdmissionPolicyBinding(b, old)...))
}

// validateValidatingAdmissionPolicyBinding: in kube-apiserver 1.37 a
// declarative rule requires the policy name and the validation actions
// (its errors, "Required value", come last and replace the hand-written
// ones); an update that leaves a field as it was does not check it again.
func validateValidatingAdmissionPolicyBinding(b, old *admissionregistrationv1.ValidatingAdmissionPolicyBinding) field.ErrorList {
	written := apivalidation.ValidateObjectMeta(&b.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, metadataPath)
	spec := &b.Spec
	written = append(written, validatePolicyName(spec.PolicyName)...)
	written = append(written, validateParamRef(spec.ParamRef, specPath.Child("paramRef"))...)
	written = append(written, validateMatchResources(spec.MatchResources, specPath.Child("matchResources"))...)
	written = append(written, validateValidationActions(spec.ValidationActions, specPath.Child("validationActions"))...)
	var declared field.ErrorList
	if spec.PolicyName == "" && (old == nil || old.Spec.PolicyName != "") {
		declared = append(declared, field.Required(specPath.Child("policyName"), ""))
	}
	if len(spec.ValidationActions) == 0 && (old == nil || !apiequality.Semantic.DeepEqual(spec.ValidationActions, old.Spec.ValidationActions)) {
		declared = append(declared, field.Required(specPath.Child("validationActions"), ""))
	}
	return declarative.Join(written, declared)
}

func validatePolicyName(name string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(specPath.Child("policyName"), "").MarkCoveredByDeclarative()}
	}
	var allErrs field.ErrorList
	for _, msg := range apivalidation.NameIsDNSSubdomain(name, false) {
		allErrs = append(allErrs, field.Invalid(specPath.Child("policyName"), name, msg))
	}
	return allErrs
}

func validateParamRef(r *admissionregistrationv1.ParamRef, fldPath *field.Path) field.ErrorList {
	if r == nil {
		return nil
	}
	var allErrs field.ErrorList
	const exclusive = "name and selector are mutually exclusive"
	if r.Name != "" {
		for _, msg := range content.IsPathSegmentName(r.Name) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("name"), r.Name, msg))
		}
		if r.Selector != nil {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("name"), exclusive))
		}
	}
	if r.Selector != nil {
		allErrs = append(allErrs, validateLabelSelector(r.Selector, false, fldPath.Child("selector"))...)
		if r.Name != "" {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("selector"), exclusive))
		}
	}
	if r.Name == "" && r.Selector == nil {
		allErrs = append(allErrs, field.Required(fldPath, "one of name or selector must be specified"))
	}
	if a := r.ParameterNotFoundAction; a == nil || *a == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("parameterNotFoundAction"), ""))
	} else if !slices.Contains(notFoundActions, string(*a)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("parameterNotFoundAction"), a, notFoundActions))
	}
	return allErrs
}

func validateValidationActions(actions []admissionregistrationv1.ValidationAction, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := sets.New[admissionregistrationv1.ValidationAction]()
	for i, a := range actions {
		if !slices.Contains(validationActions, string(a)) {
			allErrs = append(allErrs, field.NotSupported(fldPath.Index(i), a, validationActions))
		}
		if seen.Has(a) {
			allErrs = append(allErrs, field.Duplicate(fldPath.Index(i), a))
		}
		seen.Insert(a)
	}
	if seen.Has(admissionregistrationv1.Deny) && seen.Has(admissionregistrationv1.Warn) {
		allErrs = append(allErrs, field.Invalid(fldPath, actions, "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	if len(seen) == 0 {
		allErrs = append(allErrs, field.Required(fldPath, "at least one validation action is required").MarkCoveredByDeclarative())
	}
	return allErrs
}

// ValidateMutatingAdmissionPolicy validates a new MutatingAdmissionPolicy.
func ValidateMutatingAdmissionPolicy(p *admissionregistrationv1.MutatingAdmissionPolicy) field.ErrorList {
	return validateMutatingAdmissionPolicy(p, policyOptions{})
}

// ValidateMutatingAdmissionPolicyUpdate validates an update.
func ValidateMutatingAdmissionPolicyUpdate(p, old *admissionregistrationv1.MutatingAdmissionPolicy) field.ErrorList {
	stored := storedExpressions{}
	for _, c := range old.Spec.MatchConditions {
		stored.add(exprMatchCondition, c.Expression)
	}
	for _, m := range old.Spec.Mutations {
		if m.ApplyConfiguration != nil {
			stored.add(exprApplyConfiguration, m.ApplyConfiguration.Expression)
		}
		if m.JSONPatch != nil {
			stored.add(exprJSONPatch, m.JSONPatch.Expression)
		}
	}
	opts := policyOptions{
		ignoreMatchConditions: apiequality.Semantic.DeepEqual(p.Spec.ParamKind, old.Spec.ParamKind) && apiequality.Semantic.DeepEqual(p.Spec.MatchConditions, old.Spec.MatchConditions),
		stored:                stored,
	}
	allErrs := apivalidation.ValidateObjectMetaUpdate(&p.ObjectMeta, &old.ObjectMeta, metadataPath)
	return fielderrors.Dedupe(append(allErrs, validateMutatingAdmissionPolicy(p, opts)...))
}

func validateMutatingAdmissionPolicy(p *admissionregistrationv1.MutatingAdmissionPolicy, opts policyOptions) field.ErrorList {
	allErrs := apivalidation.ValidateObjectMeta(&p.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, metadataPath)
	spec := &p.Spec
	c := newPolicyCompiler(true, spec.ParamKind != nil, opts.stored)
	allErrs = append(allErrs, validatePolicyCommon(spec.FailurePolicy, spec.ParamKind, spec.MatchConstraints)...)
	if spec.MatchConstraints != nil {
		allErrs = append(allErrs, validateMutatingOperations(spec.MatchConstraints, specPath.Child("matchConstraints", "resourceRules", "operations"))...)
	}
	allErrs = append(allErrs, validateMatchConditionsOf(spec.MatchConditions, opts, c)...)
	allErrs = append(allErrs, validateVariables(spec.Variables, c)...)
	if len(spec.Mutations) == 0 {
		allErrs = append(allErrs, field.Required(specPath.Child("mutations"), "mutations must contain at least one item"))
	}
	for i := range spec.Mutations {
		allErrs = append(allErrs, validateMutation(&spec.Mutations[i], c, specPath.Child("mutations").Index(i))...)
	}
	if spec.ReinvocationPolicy == "" {
		allErrs = append(allErrs, field.Required(specPath.Child("reinvocationPolicy"), ""))
	} else if !slices.Contains(reinvocationPolicies, string(spec.ReinvocationPolicy)) {
		allErrs = append(allErrs, field.NotSupported(specPath.Child("reinvocationPolicy"), spec.ReinvocationPolicy, reinvocationPolicies))
	}
	return allErrs
}

// validateMutatingOperations: a policy cannot mutate a delete. Every
// error is reported at the same path, without the rule's index, and
// kube-apiserver reports each once.
func validateMutatingOperations(m *admissionregistrationv1.MatchResources, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := sets.New[admissionregistrationv1.OperationType]()
	for _, r := range m.ResourceRules {
		for _, op := range r.Operations {
			if !slices.Contains(mutatingOperations, string(op)) && !seen.Has(op) {
				seen.Insert(op)
				allErrs = append(allErrs, field.NotSupported(fldPath, op, mutatingOperations))
			}
		}
	}
	return allErrs
}

func validateMutation(m *admissionregistrationv1.Mutation, c *policyCompiler, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch m.PatchType {
	case "":
		allErrs = append(allErrs, field.Required(fldPath.Child("patchType"), ""))
	case admissionregistrationv1.PatchTypeJSONPatch:
		if m.JSONPatch == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("jsonPatch"), "must be specified when patchType is JSONPatch"))
		} else {
			allErrs = append(allErrs, validatePatchExpression(m.JSONPatch.Expression, exprJSONPatch, c, fldPath.Child("jsonPatch", "expression"))...)
		}
		if m.ApplyConfiguration != nil {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("applyConfiguration"), "{applyConfiguration}", "must not be specified when patchType is JSONPatch"))
		}
	case admissionregistrationv1.PatchTypeApplyConfiguration:
		if m.ApplyConfiguration == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("applyConfiguration"), "must be specified when patchType is ApplyConfiguration"))
		} else {
			allErrs = append(allErrs, validatePatchExpression(m.ApplyConfiguration.Expression, exprApplyConfiguration, c, fldPath.Child("applyConfiguration", "expression"))...)
		}
		if m.JSONPatch != nil {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("jsonPatch"), "{jsonPatch}", "must not be specified when patchType is ApplyConfiguration"))
		}
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("patchType"), m.PatchType, patchTypes))
	}
	return allErrs
}

func validatePatchExpression(expression string, kind exprKind, c *policyCompiler, fldPath *field.Path) field.ErrorList {
	expr := strings.TrimSpace(expression)
	if expr == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return c.compileAs(expr, expr, kind, fldPath)
}

// ValidateMutatingAdmissionPolicyBinding validates a new binding.
func ValidateMutatingAdmissionPolicyBinding(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) field.ErrorList {
	allErrs := apivalidation.ValidateObjectMeta(&b.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, metadataPath)
	spec := &b.Spec
	allErrs = append(allErrs, validatePolicyName(spec.PolicyName)...)
	allErrs = append(allErrs, validateParamRef(spec.ParamRef, specPath.Child("paramRef"))...)
	allErrs = append(allErrs, validateMatchResources(spec.MatchResources, specPath.Child("matchResources"))...)
	if spec.MatchResources != nil {
		allErrs = append(allErrs, validateMutatingOperations(spec.MatchResources, specPath.Child("matchResources", "resourceRules", "operations"))...)
	}
	return allErrs
}

// ValidateMutatingAdmissionPolicyBindingUpdate validates an update.
func ValidateMutatingAdmissionPolicyBindingUpdate(b, old *admissionregistrationv1.MutatingAdmissionPolicyBinding) field.ErrorList {
	allErrs := apivalidation.ValidateObjectMetaUpdate(&b.ObjectMeta, &old.ObjectMeta, metadataPath)
	return fielderrors.Dedupe(append(allErrs, ValidateMutatingAdmissionPolicyBinding(b)...))
}

// internalAuditAnnotation is an audit annotation as kube-apiserver's
// internal type, without JSON tags, shows it in an error's value.
type internalAuditAnnotation struct {
	Key             string
	ValueExpression string
}

func internalAuditAnnotations(as []admissionregistrationv1.AuditAnnotation) []internalAuditAnnotation {
	out := make([]internalAuditAnnotation, len(as))
	for i, a := range as {
		out[i] = internalAuditAnnotation(a)
	}
	return out
}
