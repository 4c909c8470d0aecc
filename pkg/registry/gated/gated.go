// Package gated drops from built-in objects the fields of feature gates
// that are off, as kube-apiserver's registry strategies do before they
// validate a write (its dropDisabled* functions).
//
// A field that belongs to a feature (+featureGate= in k8s.io/api's types)
// is served only while its gate is on. With the gate off, a write loses
// the feature's fields silently: the object is stored as if the client
// had not sent them. Only if the object being updated already uses the
// feature (it was written while the gate was on) does the update keep
// the feature's fields, so that turning a gate off never loses data nor
// blocks updates. What "uses" means is kube-apiserver's, gate by gate:
// for most pod features any container or volume of the old pod spec
// having the field, for the pod's status fields the old status having
// them, for a Lease each of its two fields on its own.
//
// With kube-apiserver's default gates every feature here is off, so a
// default kapi drops these fields where kube-apiserver does. The fields
// of resource.k8s.io are listed by package resource/gatedfields, with
// this package's Feature and Drop.
//
// Every function takes the gates (handed to the storage when it is built)
// and the old object, nil on create. Defaulter adds the defaults of gated
// features to the scheme's (a Pod's HTTP probe protocol).
package gated

import "github.com/kapi-dev/kapi/pkg/features"

// Feature is the fields of one gated feature in objects of type T.
type Feature[T any] struct {
	// Gate is the feature gate that serves the fields; AlsoNeeds are
	// the other gates they need, if any (all must be on).
	Gate      string
	AlsoNeeds []string
	// Used reports whether an object has any of the fields; it is asked
	// of the object being updated.
	Used func(T) bool
	// Drop clears the fields.
	Drop func(T)
}

// Drop clears from obj the fields of each feature whose gate is off,
// unless old, the object being updated (nil on create), uses them.
func Drop[T any](g features.Gates, fs []Feature[*T], obj, old *T) {
	if obj == nil {
		return
	}
	for _, f := range fs {
		if f.enabled(g) || old != nil && f.Used(old) {
			continue
		}
		f.Drop(obj)
	}
}

func (f Feature[T]) enabled(g features.Gates) bool {
	for _, name := range f.AlsoNeeds {
		if !g.Enabled(name) {
			return false
		}
	}
	return g.Enabled(f.Gate)
}

// Gates names every gate this package asks about, for a test that each is
// one kube-apiserver knows and is off by default.
func Gates() []string {
	var names []string
	add := func(gates []string) { names = append(names, gates...) }
	add(gatesOf(podSpecFeatures))
	add(gatesOf(podStatusFeatures))
	add(gatesOf(nodeSpecFeatures))
	add(gatesOf(claimSpecFeatures))
	add(gatesOf(claimStatusFeatures))
	add(gatesOf(jobSpecFeatures))
	add(gatesOf(leaseSpecFeatures))
	add(gatesOf(csiNodeStatusFeatures))
	return names
}

func gatesOf[T any](fs []Feature[T]) []string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Gate
	}
	return names
}
