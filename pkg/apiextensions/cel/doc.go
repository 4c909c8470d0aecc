// Package cel implements the x-kubernetes-validations rules of CRD schemas:
// CEL expressions that validate custom resources, as kube-apiserver 1.37
// runs them.
//
// Two moments matter, as in kube-apiserver:
//
//   - When a CRD is created or updated, Compile checks every rule of a
//     version's schema: that it compiles, evaluates to a bool, that its
//     messageExpression evaluates to a string, that its reason and fieldPath
//     are sound, and that its estimated worst-case cost, multiplied by how
//     many times the rule can run in one object, stays within
//     StaticEstimatedCostLimit, and the total of the schema within
//     StaticEstimatedCRDCostLimit. Errors carry kube-apiserver's field paths
//     and messages.
//   - When a custom resource is written, a Validator (from NewValidator, or
//     the one Compile returns) evaluates the rules on the object, within a
//     runtime budget (RuntimeCELCostBudget per request, PerCallLimit per
//     evaluation), and reports failures as field errors.
//
// Inside a rule, self is the value at the rule's location in the schema,
// typed from the schema: objects with properties are CEL objects whose
// fields are the properties (names escaped, see Escape), objects with
// additionalProperties are maps, arrays are lists (x-kubernetes-list-type
// set and map lists compare regardless of order, and + merges them),
// int-or-string values are dyn, and strings of format duration, date,
// date-time and byte are durations, timestamps and bytes. At the root of
// the resource and of embedded resources, apiVersion, kind, metadata.name
// and metadata.generateName are visible. oldSelf, the value before an
// update, makes a rule a transition rule, which only runs on update where
// an old value exists (unless optionalOldSelf makes oldSelf optional).
//
// The environment has the CEL standard library, optional types, the
// strings (version 2), sets, lists (version 3) and two-variable
// comprehension extensions, and the Kubernetes libraries of package
// library.
package cel
