package flowcontrol

import (
	"fmt"
	"math"
	"strings"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/apis/internal/declarative"
	"github.com/kapi-dev/kapi/pkg/apis/internal/fielderrors"
	"github.com/kapi-dev/kapi/pkg/apis/internal/gofields"
)

var (
	metadataPath = field.NewPath("metadata")
	specPath     = field.NewPath("spec")
	statusPath   = field.NewPath("status")
)

// The values kube-apiserver accepts, listed as its errors list them.
var (
	distinguisherMethods = []string{string(flowcontrolv1.FlowDistinguisherMethodByNamespaceType), string(flowcontrolv1.FlowDistinguisherMethodByUserType)}
	supportedVerbs       = sets.New("get", "list", "create", "update", "delete", "deletecollection", "patch", "watch", "proxy")
	subjectKinds         = []string{string(flowcontrolv1.SubjectKindGroup), string(flowcontrolv1.SubjectKindServiceAccount), string(flowcontrolv1.SubjectKindUser)}
	levelTypes           = []string{string(flowcontrolv1.PriorityLevelEnablementExempt), string(flowcontrolv1.PriorityLevelEnablementLimited)}
	limitResponseTypes   = []string{string(flowcontrolv1.LimitResponseTypeQueue), string(flowcontrolv1.LimitResponseTypeReject)}
)

const (
	// maxMatchingPrecedence is the largest precedence a schema may have.
	maxMatchingPrecedence = 10000
	// maxQueues bounds the queues of a level.
	maxQueues = 10 * 1000 * 1000
	// maxHashBits is the entropy shuffle sharding can draw hands from.
	maxHashBits = 60
)

// preserveZeroSharesAnnotation is how flowcontrol v1beta3 kept an explicit
// zero share count through conversion; it has no place on a stored
// object.
const preserveZeroSharesAnnotation = "flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares"

// ValidateFlowSchema validates a FlowSchema on create.
func ValidateFlowSchema(fs *flowcontrolv1.FlowSchema) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&fs.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, metadataPath)
	allErrs = append(allErrs, validateFlowSchemaSpec(fs.Name, &fs.Spec)...)
	if mandatory, ok := mandatoryFlowSchemaSpecs[fs.Name]; ok {
		if !apiequality.Semantic.DeepEqual(fs.Spec, mandatory) {
			allErrs = append(allErrs, field.Invalid(specPath, gofields.Value(fs.Spec), fmt.Sprintf("spec of '%s' must equal the fixed value", fs.Name)))
		}
	}
	return append(allErrs, validateFlowSchemaStatus(&fs.Status)...)
}

// ValidateFlowSchemaUpdate validates an update of a FlowSchema: every
// field may change, and the result must be a valid schema.
func ValidateFlowSchemaUpdate(fs, old *flowcontrolv1.FlowSchema) field.ErrorList {
	allErrs := metaUpdate(&fs.ObjectMeta, &old.ObjectMeta)
	return fielderrors.Dedupe(append(allErrs, ValidateFlowSchema(fs)...))
}

// ValidateFlowSchemaStatusUpdate validates a write of /status.
func ValidateFlowSchemaStatusUpdate(fs, old *flowcontrolv1.FlowSchema) field.ErrorList {
	allErrs := metaUpdate(&fs.ObjectMeta, &old.ObjectMeta)
	return fielderrors.Dedupe(append(allErrs, validateFlowSchemaStatus(&fs.Status)...))
}

// metaUpdate is what kube-apiserver checks of the metadata of every
// update before the resource's own rules.
func metaUpdate(meta, old *metav1.ObjectMeta) field.ErrorList {
	allErrs := apivalidation.ValidateObjectMeta(meta, false, apivalidation.NameIsDNSSubdomain, metadataPath)
	return append(allErrs, apivalidation.ValidateObjectMetaUpdate(meta, old, metadataPath)...)
}

func validateFlowSchemaSpec(name string, spec *flowcontrolv1.FlowSchemaSpec) field.ErrorList {
	var allErrs field.ErrorList
	precedence := specPath.Child("matchingPrecedence")
	if spec.MatchingPrecedence <= 0 {
		allErrs = append(allErrs, field.Invalid(precedence, spec.MatchingPrecedence, "must be a positive value"))
	}
	if spec.MatchingPrecedence > maxMatchingPrecedence {
		allErrs = append(allErrs, field.Invalid(precedence, spec.MatchingPrecedence, fmt.Sprintf("must not be greater than %v", maxMatchingPrecedence)))
	}
	if spec.MatchingPrecedence == 1 && name != flowcontrolv1.FlowSchemaNameExempt {
		allErrs = append(allErrs, field.Invalid(precedence, spec.MatchingPrecedence, "only the schema named 'exempt' may have matchingPrecedence 1"))
	}
	if m := spec.DistinguisherMethod; m != nil && !sets.New(distinguisherMethods...).Has(string(m.Type)) {
		// kube-apiserver reports the whole method as the bad value.
		allErrs = append(allErrs, field.NotSupported(specPath.Child("distinguisherMethod", "type"), gofields.Value(m), distinguisherMethods))
	}
	levelName := specPath.Child("priorityLevelConfiguration", "name")
	if spec.PriorityLevelConfiguration.Name == "" {
		allErrs = append(allErrs, field.Required(levelName, "must reference a priority level"))
	} else {
		for _, msg := range apivalidation.NameIsDNSSubdomain(spec.PriorityLevelConfiguration.Name, false) {
			allErrs = append(allErrs, field.Invalid(levelName, spec.PriorityLevelConfiguration.Name, msg))
		}
	}
	for i := range spec.Rules {
		allErrs = append(allErrs, validatePolicyRulesWithSubjects(&spec.Rules[i], specPath.Child("rules").Index(i))...)
	}
	return allErrs
}

func validatePolicyRulesWithSubjects(rule *flowcontrolv1.PolicyRulesWithSubjects, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(rule.Subjects) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("subjects"), "subjects must contain at least one value"))
	}
	for i := range rule.Subjects {
		allErrs = append(allErrs, validateSubject(&rule.Subjects[i], fldPath.Child("subjects").Index(i))...)
	}
	if len(rule.ResourceRules) == 0 && len(rule.NonResourceRules) == 0 {
		allErrs = append(allErrs, field.Required(fldPath, "at least one of resourceRules and nonResourceRules has to be non-empty"))
	}
	for i := range rule.ResourceRules {
		allErrs = append(allErrs, validateResourceRule(&rule.ResourceRules[i], fldPath.Child("resourceRules").Index(i))...)
	}
	for i := range rule.NonResourceRules {
		allErrs = append(allErrs, validateNonResourceRule(&rule.NonResourceRules[i], fldPath.Child("nonResourceRules").Index(i))...)
	}
	return allErrs
}

// validateSubject checks that a subject sets the member its kind names
// and no other.
func validateSubject(s *flowcontrolv1.Subject, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	forbidUser := func() {
		if s.User != nil {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("user"), "user is forbidden when subject kind is not 'User'"))
		}
	}
	forbidGroup := func() {
		if s.Group != nil {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("group"), "group is forbidden when subject kind is not 'Group'"))
		}
	}
	forbidServiceAccount := func() {
		if s.ServiceAccount != nil {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("serviceAccount"), "serviceAccount is forbidden when subject kind is not 'ServiceAccount'"))
		}
	}
	switch s.Kind {
	case flowcontrolv1.SubjectKindServiceAccount:
		allErrs = append(allErrs, validateServiceAccountSubject(s.ServiceAccount, fldPath.Child("serviceAccount"))...)
		forbidUser()
		forbidGroup()
	case flowcontrolv1.SubjectKindUser:
		if s.User == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("user"), "user is required when subject kind is 'User'"))
		} else if s.User.Name == "" {
			allErrs = append(allErrs, field.Required(fldPath.Child("user", "name"), ""))
		}
		forbidServiceAccount()
		forbidGroup()
	case flowcontrolv1.SubjectKindGroup:
		if s.Group == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("group"), "group is required when subject kind is 'Group'"))
		} else if s.Group.Name == "" {
			allErrs = append(allErrs, field.Required(fldPath.Child("group", "name"), ""))
		}
		forbidServiceAccount()
		forbidUser()
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("kind"), s.Kind, subjectKinds))
	}
	return allErrs
}

func validateServiceAccountSubject(sa *flowcontrolv1.ServiceAccountSubject, fldPath *field.Path) field.ErrorList {
	if sa == nil {
		return field.ErrorList{field.Required(fldPath, "serviceAccount is required when subject kind is 'ServiceAccount'")}
	}
	var allErrs field.ErrorList
	if sa.Name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	} else if sa.Name != flowcontrolv1.NameAll {
		for _, msg := range apivalidation.ValidateServiceAccountName(sa.Name, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("name"), sa.Name, msg))
		}
	}
	if sa.Namespace == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("namespace"), "must specify namespace for service account"))
	} else {
		for _, msg := range apivalidation.ValidateNamespaceName(sa.Namespace, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("namespace"), sa.Namespace, msg))
		}
	}
	return allErrs
}

// validateVerbs checks a rule's verbs: "*" alone, or verbs kube-apiserver
// knows.
func validateVerbs(verbs []string, fldPath *field.Path) field.ErrorList {
	switch {
	case len(verbs) == 0:
		return field.ErrorList{field.Required(fldPath, "verbs must contain at least one value")}
	case hasWildcard(verbs):
		if len(verbs) > 1 {
			return field.ErrorList{field.Invalid(fldPath, verbs, "if '*' is present, must not specify other verbs")}
		}
	case !supportedVerbs.HasAll(verbs...):
		return field.ErrorList{field.NotSupported(fldPath, verbs, sets.List(supportedVerbs))}
	}
	return nil
}

func validateNonResourceRule(rule *flowcontrolv1.NonResourcePolicyRule, fldPath *field.Path) field.ErrorList {
	allErrs := validateVerbs(rule.Verbs, fldPath.Child("verbs"))
	urls := fldPath.Child("nonResourceURLs")
	switch {
	case len(rule.NonResourceURLs) == 0:
		allErrs = append(allErrs, field.Required(urls, "nonResourceURLs must contain at least one value"))
	case hasWildcard(rule.NonResourceURLs):
		if len(rule.NonResourceURLs) > 1 {
			allErrs = append(allErrs, field.Invalid(urls, rule.NonResourceURLs, "if '*' is present, must not specify other non-resource URLs"))
		}
	default:
		for i, url := range rule.NonResourceURLs {
			if err := validateNonResourceURL(url, urls.Index(i)); err != nil {
				allErrs = append(allErrs, err)
			}
		}
	}
	return allErrs
}

// validateNonResourceURL accepts "/" and absolute paths without spaces
// or empty segments, with at most a trailing "/*".
func validateNonResourceURL(path string, fldPath *field.Path) *field.Error {
	switch {
	case path == "":
		return field.Invalid(fldPath, path, "must not be empty")
	case path == "/":
		return nil
	case !strings.HasPrefix(path, "/"):
		return field.Invalid(fldPath, path, "must start with slash")
	case strings.Contains(path, " "):
		return field.Invalid(fldPath, path, "must not contain white-space")
	case strings.Contains(path, "//"):
		return field.Invalid(fldPath, path, "must not contain double slash")
	}
	if n := strings.Count(path, "*"); n > 1 || (n == 1 && !strings.HasSuffix(path, "/*")) {
		return field.Invalid(fldPath, path, "wildcard can only do suffix matching")
	}
	return nil
}

func validateResourceRule(rule *flowcontrolv1.ResourcePolicyRule, fldPath *field.Path) field.ErrorList {
	allErrs := validateVerbs(rule.Verbs, fldPath.Child("verbs"))
	if len(rule.APIGroups) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("apiGroups"), "resource rules must supply at least one api group"))
	} else if len(rule.APIGroups) > 1 && hasWildcard(rule.APIGroups) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("apiGroups"), rule.APIGroups, "if '*' is present, must not specify other api groups"))
	}
	if len(rule.Resources) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("resources"), "resource rules must supply at least one resource"))
	} else if len(rule.Resources) > 1 && hasWildcard(rule.Resources) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("resources"), rule.Resources, "if '*' is present, must not specify other resources"))
	}
	namespaces := fldPath.Child("namespaces")
	switch {
	case len(rule.Namespaces) == 0 && !rule.ClusterScope:
		allErrs = append(allErrs, field.Required(namespaces, "resource rules that are not cluster scoped must supply at least one namespace"))
	case hasWildcard(rule.Namespaces):
		if len(rule.Namespaces) > 1 {
			allErrs = append(allErrs, field.Invalid(namespaces, rule.Namespaces, "if '*' is present, must not specify other namespaces"))
		}
	default:
		for i, ns := range rule.Namespaces {
			for _, msg := range apivalidation.ValidateNamespaceName(ns, false) {
				allErrs = append(allErrs, field.Invalid(namespaces.Index(i), ns, "each member of this list must be '*' or a DNS-1123 label; "+msg))
			}
		}
	}
	return allErrs
}

func validateFlowSchemaStatus(status *flowcontrolv1.FlowSchemaStatus) field.ErrorList {
	types := make([]flowcontrolv1.FlowSchemaConditionType, len(status.Conditions))
	for i, c := range status.Conditions {
		types[i] = c.Type
	}
	return validateConditionTypes(types)
}

// validateConditionTypes checks the types of a status's conditions, in
// order: each is set and appears once.
func validateConditionTypes[T ~string](types []T) field.ErrorList {
	var allErrs field.ErrorList
	seen := sets.New[T]()
	for i, t := range types {
		p := statusPath.Child("conditions").Index(i)
		if seen.Has(t) {
			allErrs = append(allErrs, field.Duplicate(p.Child("type"), t))
		}
		seen.Insert(t)
		if t == "" {
			allErrs = append(allErrs, field.Required(p.Child("type"), ""))
		}
	}
	return allErrs
}

// ValidatePriorityLevelConfiguration validates a level on create.
func ValidatePriorityLevelConfiguration(pl *flowcontrolv1.PriorityLevelConfiguration) field.ErrorList {
	return declarative.Join(validateLevel(pl), validateLevelDeclared(&pl.Spec, nil))
}

// ValidatePriorityLevelConfigurationUpdate validates an update of a level.
// Its declarative rules do not judge a spec again that did not change.
func ValidatePriorityLevelConfigurationUpdate(pl, old *flowcontrolv1.PriorityLevelConfiguration) field.ErrorList {
	written := fielderrors.Dedupe(append(metaUpdate(&pl.ObjectMeta, &old.ObjectMeta), validateLevel(pl)...))
	return declarative.Join(written, validateLevelDeclared(&pl.Spec, &old.Spec))
}

// ValidatePriorityLevelConfigurationStatusUpdate validates a write of
// /status.
func ValidatePriorityLevelConfigurationStatusUpdate(pl, old *flowcontrolv1.PriorityLevelConfiguration) field.ErrorList {
	allErrs := metaUpdate(&pl.ObjectMeta, &old.ObjectMeta)
	return fielderrors.Dedupe(append(allErrs, validateLevelStatus(&pl.Status)...))
}

// validateLevel is kube-apiserver's hand-written validation of a level;
// the errors its declarative rules took over are marked as covered.
func validateLevel(pl *flowcontrolv1.PriorityLevelConfiguration) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&pl.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, metadataPath)
	if _, ok := pl.Annotations[preserveZeroSharesAnnotation]; ok {
		allErrs = append(allErrs, field.Forbidden(metadataPath.Child("annotations"), fmt.Sprintf("annotation '%s' is forbidden", preserveZeroSharesAnnotation)))
	}
	allErrs = append(allErrs, validateLevelSpec(pl.Name, &pl.Spec)...)
	allErrs = append(allErrs, validateMandatoryLevel(pl)...)
	return append(allErrs, validateLevelStatus(&pl.Status)...)
}

func validateLevelSpec(name string, spec *flowcontrolv1.PriorityLevelConfigurationSpec) field.ErrorList {
	var allErrs field.ErrorList
	if (name == flowcontrolv1.PriorityLevelConfigurationNameExempt) != (spec.Type == flowcontrolv1.PriorityLevelEnablementExempt) {
		allErrs = append(allErrs, field.Invalid(specPath.Child("type"), spec.Type, "must be 'Exempt' if and only if `name` is 'exempt'"))
	}
	switch spec.Type {
	case flowcontrolv1.PriorityLevelEnablementExempt:
		if spec.Limited != nil {
			allErrs = append(allErrs, field.Forbidden(specPath.Child("limited"), "must be nil if the type is not Limited").MarkCoveredByDeclarative())
		}
		if e := spec.Exempt; e != nil {
			p := specPath.Child("exempt")
			if e.NominalConcurrencyShares != nil && *e.NominalConcurrencyShares < 0 {
				allErrs = append(allErrs, field.Invalid(p.Child("nominalConcurrencyShares"), *e.NominalConcurrencyShares, "must be a non-negative integer"))
			}
			if e.LendablePercent != nil && (*e.LendablePercent < 0 || *e.LendablePercent > 100) {
				allErrs = append(allErrs, field.Invalid(p.Child("lendablePercent"), *e.LendablePercent, "must be between 0 and 100, inclusive"))
			}
		}
	case flowcontrolv1.PriorityLevelEnablementLimited:
		if spec.Exempt != nil {
			allErrs = append(allErrs, field.Forbidden(specPath.Child("exempt"), "must be nil if the type is Limited").MarkCoveredByDeclarative())
		}
		if spec.Limited == nil {
			allErrs = append(allErrs, field.Required(specPath.Child("limited"), "must not be empty when type is Limited").MarkCoveredByDeclarative())
		} else {
			allErrs = append(allErrs, validateLimited(spec.Limited, specPath.Child("limited"))...)
		}
	case "":
		allErrs = append(allErrs, field.Required(specPath.Child("type"), "").MarkCoveredByDeclarative())
	default:
		allErrs = append(allErrs, field.NotSupported(specPath.Child("type"), spec.Type, levelTypes))
	}
	return allErrs
}

func validateLimited(l *flowcontrolv1.LimitedPriorityLevelConfiguration, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	// A missing share count is defaulted before validation.
	if l.NominalConcurrencyShares != nil && *l.NominalConcurrencyShares < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("nominalConcurrencyShares"), *l.NominalConcurrencyShares, "must be a non-negative integer"))
	}
	allErrs = append(allErrs, validateLimitResponse(&l.LimitResponse, fldPath.Child("limitResponse"))...)
	if l.LendablePercent != nil && (*l.LendablePercent < 0 || *l.LendablePercent > 100) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("lendablePercent"), *l.LendablePercent, "must be between 0 and 100, inclusive"))
	}
	if l.BorrowingLimitPercent != nil && *l.BorrowingLimitPercent < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("borrowingLimitPercent"), *l.BorrowingLimitPercent, "if specified, must be a non-negative integer"))
	}
	return allErrs
}

func validateLimitResponse(r *flowcontrolv1.LimitResponse, fldPath *field.Path) field.ErrorList {
	switch r.Type {
	case flowcontrolv1.LimitResponseTypeReject:
		if r.Queuing != nil {
			return field.ErrorList{field.Forbidden(fldPath.Child("queuing"), "must be nil if limited.limitResponse.type is not Limited").MarkCoveredByDeclarative()}
		}
	case flowcontrolv1.LimitResponseTypeQueue:
		if r.Queuing == nil {
			return field.ErrorList{field.Required(fldPath.Child("queuing"), "must not be empty if limited.limitResponse.type is Limited").MarkCoveredByDeclarative()}
		}
		return validateQueuing(r.Queuing, fldPath.Child("queuing"))
	case "":
		return field.ErrorList{field.Required(fldPath.Child("type"), "").MarkCoveredByDeclarative()}
	default:
		return field.ErrorList{field.NotSupported(fldPath.Child("type"), r.Type, limitResponseTypes)}
	}
	return nil
}

// validateQueuing checks the queues can be shuffle-sharded: a hand no
// larger than the deck, dealt from at most 60 bits of a hash.
func validateQueuing(q *flowcontrolv1.QueuingConfiguration, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if q.QueueLengthLimit <= 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("queueLengthLimit"), q.QueueLengthLimit, "must be positive"))
	}
	if q.Queues <= 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("queues"), q.Queues, "must be positive"))
	} else if q.Queues > maxQueues {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("queues"), q.Queues, fmt.Sprintf("must not be greater than %d", maxQueues)))
	}
	switch {
	case q.HandSize <= 0:
		allErrs = append(allErrs, field.Invalid(fldPath.Child("handSize"), q.HandSize, "must be positive"))
	case q.HandSize > q.Queues:
		allErrs = append(allErrs, field.Invalid(fldPath.Child("handSize"), q.HandSize, fmt.Sprintf("should not be greater than queues (%d)", q.Queues)))
	case int(math.Ceil(math.Log2(float64(q.Queues))*float64(q.HandSize))) > maxHashBits:
		allErrs = append(allErrs, field.Invalid(fldPath.Child("handSize"), q.HandSize,
			fmt.Sprintf("required entropy bits of deckSize %d and handSize %d should not be greater than %d", q.Queues, q.HandSize, maxHashBits)))
	}
	return allErrs
}

// validateMandatoryLevel holds the mandatory levels to their fixed spec;
// of exempt, only the exempt settings may change.
func validateMandatoryLevel(pl *flowcontrolv1.PriorityLevelConfiguration) field.ErrorList {
	want, ok := mandatoryLevelSpecs[pl.Name]
	if !ok {
		return nil
	}
	fixed := &flowcontrolv1.PriorityLevelConfiguration{Spec: *want.DeepCopy()}
	SetDefaultsPriorityLevelConfiguration(fixed)
	have := pl.Spec.DeepCopy()
	msg := fmt.Sprintf("spec of '%s' must equal the fixed value", pl.Name)
	if pl.Name == flowcontrolv1.PriorityLevelConfigurationNameExempt {
		have.Exempt = fixed.Spec.Exempt
		msg = fmt.Sprintf("spec of '%s' except the 'spec.exempt' field must equal the fixed value", pl.Name)
	}
	if !apiequality.Semantic.DeepEqual(&fixed.Spec, have) {
		return field.ErrorList{field.Invalid(specPath, gofields.Value(pl.Spec), msg)}
	}
	return nil
}

func validateLevelStatus(status *flowcontrolv1.PriorityLevelConfigurationStatus) field.ErrorList {
	types := make([]flowcontrolv1.PriorityLevelConfigurationConditionType, len(status.Conditions))
	for i, c := range status.Conditions {
		types[i] = c.Type
	}
	return validateConditionTypes(types)
}

// validateLevelDeclared is the declarative validation of a level's spec:
// which of exempt and limited its type allows, and which queuing the
// limit response's type allows. On update (old not nil) an unchanged
// part is not judged again.
func validateLevelDeclared(spec, old *flowcontrolv1.PriorityLevelConfigurationSpec) field.ErrorList {
	if old != nil && apiequality.Semantic.DeepEqual(spec, old) {
		return nil
	}
	var allErrs field.ErrorList
	unchanged := func(member func(*flowcontrolv1.PriorityLevelConfigurationSpec) any) bool {
		return old != nil && spec.Type == old.Type && apiequality.Semantic.DeepEqual(member(spec), member(old))
	}
	if !unchanged(func(s *flowcontrolv1.PriorityLevelConfigurationSpec) any { return s.Exempt }) {
		if spec.Type != flowcontrolv1.PriorityLevelEnablementExempt && spec.Exempt != nil {
			allErrs = append(allErrs, field.Forbidden(specPath.Child("exempt"), ""))
		}
	}
	if !unchanged(func(s *flowcontrolv1.PriorityLevelConfigurationSpec) any { return s.Limited }) {
		switch {
		case spec.Type == flowcontrolv1.PriorityLevelEnablementLimited && spec.Limited == nil:
			allErrs = append(allErrs, field.Required(specPath.Child("limited"), ""))
		case spec.Type != flowcontrolv1.PriorityLevelEnablementLimited && spec.Limited != nil:
			allErrs = append(allErrs, field.Forbidden(specPath.Child("limited"), ""))
		}
	}
	if spec.Type == "" && (old == nil || old.Type != "") {
		allErrs = append(allErrs, field.Required(specPath.Child("type"), ""))
	}
	if spec.Limited != nil {
		var oldResponse *flowcontrolv1.LimitResponse
		if old != nil && old.Limited != nil {
			oldResponse = &old.Limited.LimitResponse
		}
		allErrs = append(allErrs, validateLimitResponseDeclared(&spec.Limited.LimitResponse, oldResponse, specPath.Child("limited", "limitResponse"))...)
	}
	return allErrs
}

func validateLimitResponseDeclared(r, old *flowcontrolv1.LimitResponse, fldPath *field.Path) field.ErrorList {
	if old != nil && apiequality.Semantic.DeepEqual(r, old) {
		return nil
	}
	var allErrs field.ErrorList
	if old == nil || r.Type != old.Type || !apiequality.Semantic.DeepEqual(r.Queuing, old.Queuing) {
		switch {
		case r.Type == flowcontrolv1.LimitResponseTypeQueue && r.Queuing == nil:
			allErrs = append(allErrs, field.Required(fldPath.Child("queuing"), ""))
		case r.Type != flowcontrolv1.LimitResponseTypeQueue && r.Queuing != nil:
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("queuing"), ""))
		}
	}
	if r.Type == "" && (old == nil || old.Type != "") {
		allErrs = append(allErrs, field.Required(fldPath.Child("type"), ""))
	}
	return allErrs
}

func hasWildcard(list []string) bool {
	for _, s := range list {
		if s == "*" {
			return true
		}
	}
	return false
}
