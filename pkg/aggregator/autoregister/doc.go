// Package autoregister keeps the local APIServices of the group versions
// the delegation chain serves itself, as kube-apiserver's autoregister and
// crdregistration controllers do:
//
//   - every built-in group version (apiregistration.k8s.io, the
//     aggregator's own, excepted) has an APIService labelled
//     kube-aggregator.kubernetes.io/automanaged=onstart, made or put
//     right once when the server starts: a user may then change or
//     delete it, and it stays so until the next start;
//   - every group version a CRD serves has one labelled
//     automanaged=true, kept continuously: created again when deleted,
//     its spec reset when changed, deleted when no CRD serves the
//     version any more.
//
// An APIService without the label is never touched, and one labelled
// onstart that was created after the start is left alone too. At start,
// an onstart or true APIService nobody wants any more (a group version
// no longer served) is deleted, once.
//
// The priorities are kube-apiserver's: the group priority of a built-in
// group version is the one its group is installed with in discovery (the
// providers' values, so that the two cannot disagree), its version
// priority kube-apiserver's (versionPriorities); a CRD's group version
// has groupPriorityMinimum 1000 and versionPriority 100.
//
// The status is not written here: a local APIService is created
// Available by the registry's strategy (pkg/registry/apiregistration/
// apiservice), as by kube-aggregator's.
package autoregister
