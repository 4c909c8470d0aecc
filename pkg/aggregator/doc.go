// Package aggregator is the aggregator server: the outermost link of the
// delegation chain, as kube-apiserver's kube-aggregator. It serves
// apiregistration.k8s.io/v1 apiservices (first in discovery, as in
// kube-apiserver) and decides, for every group version an APIService
// names, who answers it: the rest of the chain for a local APIService
// (spec.service unset), an extension API server for a remote one.
//
// # How the other aggregator packages plug in
//
// New builds the server and hands back a *Server. Everything the other
// packages of the aggregator need is on it, built before the server
// serves (nothing is filled in later):
//
//   - APIServices, a shared informer of the APIServices read straight
//     from storage (not through the loopback client), started by the
//     post-start hook start-kube-aggregator-informers, and
//     APIServiceLister, its lister. The Available condition written by
//     the availability controllers (pkg/aggregator/availability) is
//     what discovery, OpenAPI and the proxy read from it.
//   - Config.Remote, the RemoteHandlers that serve remote group versions:
//     the proxy (pkg/aggregator/proxy) implements it. The server watches
//     the APIServices and, for every remote one, installs the handler
//     Remote returns for its group version in front of the rest of the
//     chain; when the APIService is deleted, or becomes local, the group
//     version goes back to the chain. The server is ready once the
//     APIServices stored at start are registered so (the post-start hook
//     apiservice-registration-controller). Without Remote, a remote
//     APIService's group version is left to the chain (as if local).
//   - The discovery registry the chain shares (Discovery()), into which
//     pkg/aggregator/discovery adds the remote group versions, and the
//     usual hooks and health checks of a server, to which the
//     controllers of those packages add theirs.
//
// Autoregistration (pkg/aggregator/autoregister) keeps the local
// APIServices of the chain's own group versions and of the CRDs.
package aggregator
