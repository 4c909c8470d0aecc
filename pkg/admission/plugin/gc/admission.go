// Package gc is the OwnerReferencesPermissionEnforcement admission
// plugin: owner references steer the garbage collector, so
//
//   - changing an object's owner references (on an update) needs the
//     right to delete the object;
//   - setting blockOwnerDeletion on a reference (newly, on a create or an
//     update) needs the right to update the finalizers of the owner, which
//     the reference's apiVersion and kind name through the REST mapper, or
//     the right to update every finalizer.
//
// A pod's status is exempt: the kubelet writes it.
package gc

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "OwnerReferencesPermissionEnforcement"

// Plugin is the admission plugin; it validates.
type Plugin struct {
	admission.Handler
	authz  authorizer.Authorizer
	mapper meta.RESTMapper
}

// New returns the plugin: authz answers who may delete and finalize,
// mapper finds the resources of an owner's kind.
func New(authz authorizer.Authorizer, mapper meta.RESTMapper) *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Create, admission.Update), authz: authz, mapper: mapper}
}

// Validate checks the rights a change of owner references needs.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Resource.Group == "" && a.Resource.Resource == "pods" && a.Subresource == "status" {
		return nil
	}
	if !ownerReferencesChange(a.Object, a.OldObject) {
		return nil
	}
	if a.Operation != admission.Create {
		decision, reason, err := p.authz.Authorize(ctx, authorizer.AttributesRecord{
			User: a.User, Verb: "delete", Namespace: a.Namespace,
			APIGroup: a.Resource.Group, APIVersion: a.Resource.Version, Resource: a.Resource.Resource,
			Subresource: a.Subresource, Name: a.Name, ResourceRequest: true,
		})
		if decision != authorizer.DecisionAllow {
			return admission.NewForbidden(a, fmt.Errorf("cannot set an ownerRef on a resource you can't delete: %v, %v", reason, err))
		}
	}
	refs := newBlockingRefs(a.Object, a.OldObject)
	if len(refs) == 0 {
		return nil
	}
	if decision, _, _ := p.authz.Authorize(ctx, finalizeAnything(a.User)); decision == authorizer.DecisionAllow {
		return nil
	}
	for _, ref := range refs {
		records, err := p.ownerFinalizerRecords(ref, a)
		if err != nil {
			return admission.NewForbidden(a, fmt.Errorf("cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion %s Kind %s: %v", ref.APIVersion, ref.Kind, err))
		}
		for _, r := range records {
			decision, reason, err := p.authz.Authorize(ctx, r)
			if decision != authorizer.DecisionAllow {
				return admission.NewForbidden(a, fmt.Errorf("cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: %v, %v", reason, err))
			}
		}
	}
	return nil
}

// ownerReferencesChange says whether obj's owner references differ from
// old's (a create changes them if it has any).
func ownerReferencesChange(obj, old runtime.Object) bool {
	m, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	if old == nil {
		return len(m.GetOwnerReferences()) > 0
	}
	o, err := meta.Accessor(old)
	if err != nil {
		return false
	}
	refs, oldRefs := m.GetOwnerReferences(), o.GetOwnerReferences()
	if len(refs) != len(oldRefs) {
		return true
	}
	for i := range refs {
		if !equality.Semantic.DeepEqual(refs[i], oldRefs[i]) {
			return true
		}
	}
	return false
}

func blocking(ref metav1.OwnerReference) bool {
	return ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion
}

// newBlockingRefs are obj's references that block their owner's deletion
// and did not in old (matched by uid).
func newBlockingRefs(obj, old runtime.Object) []metav1.OwnerReference {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil
	}
	var candidates []metav1.OwnerReference
	for _, ref := range m.GetOwnerReferences() {
		if blocking(ref) {
			candidates = append(candidates, ref)
		}
	}
	if len(candidates) == 0 || old == nil {
		return candidates
	}
	o, err := meta.Accessor(old)
	if err != nil {
		return candidates
	}
	before := map[types.UID]metav1.OwnerReference{}
	for _, ref := range o.GetOwnerReferences() {
		before[ref.UID] = ref
	}
	var out []metav1.OwnerReference
	for _, ref := range candidates {
		if prev, ok := before[ref.UID]; !ok || !blocking(prev) {
			out = append(out, ref)
		}
	}
	return out
}

// finalizeAnything asks whether the user may update every finalizer.
func finalizeAnything(u user.Info) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{
		User: u, Verb: "update", APIGroup: "*", APIVersion: "*", Resource: "*",
		Subresource: "finalizers", Name: "*", ResourceRequest: true,
	}
}

// ownerFinalizerRecords ask whether the user may update the finalizers of
// ref's owner, in every resource its kind maps to; a namespaced owner is
// in the object's namespace.
func (p *Plugin) ownerFinalizerRecords(ref metav1.OwnerReference, a *admission.Attributes) ([]authorizer.AttributesRecord, error) {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return nil, err
	}
	mappings, err := p.mapper.RESTMappings(schema.GroupKind{Group: gv.Group, Kind: ref.Kind}, gv.Version)
	if err != nil {
		return nil, err
	}
	var out []authorizer.AttributesRecord
	for _, m := range mappings {
		r := authorizer.AttributesRecord{
			User: a.User, Verb: "update", APIGroup: m.Resource.Group, APIVersion: m.Resource.Version,
			Resource: m.Resource.Resource, Subresource: "finalizers", Name: ref.Name, ResourceRequest: true,
		}
		if m.Scope.Name() == meta.RESTScopeNameNamespace {
			r.Namespace = a.Namespace
		}
		out = append(out, r)
	}
	return out, nil
}
