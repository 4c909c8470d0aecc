// Package registry is where kapi's built-in resources are declared, and
// this package holds the two shapes every declaration takes.
//
// # A resource
//
// A resource lives in its own package, pkg/registry/<group>/<resource>,
// which exports the same three things whatever the resource:
//
//   - Storage, a struct with the resource's storage (usually a
//     *generic.Store configured with the resource's strategies) and one
//     field per subresource;
//   - NewStorage(opts generic.RESTOptions, ...) (*Storage, error), which
//     builds it; what a resource needs beyond RESTOptions (the service
//     ranges of services) comes as further arguments;
//   - (*Storage).Map(), the storage by the path it is served at:
//     "pods", "pods/status", "pods/binding". Map is the Resource
//     interface of this package.
//
// The generic.Store of a resource is its declaration: its kind (NewFunc),
// plural and singular names, short names and categories, key prefix in
// storage and encoding there (protobuf, or JSON for the kinds
// kube-apiserver keeps as JSON: StorageMediaType), selectable fields
// (FieldsFunc), strategies, and the table convertor of RESTOptions, which
// renders the kind's Go type.
// pkg/registry/customresource has the same shape for custom resources.
//
// # A group
//
// Each built-in API group has one StorageProvider, in
// pkg/registry/<group>/rest: its name, its priority in discovery
// (kube-apiserver's value), and NewRESTStorage, which builds the storage of
// the versions the --runtime-config serves, one line per resource:
//
//	func (StorageProvider) NewRESTStorage(opts generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
//		var g registry.GroupStorage
//		if served("v1") {
//			v1 := g.Version("v1")
//			v1.Add(deployment.NewStorage(opts))
//		}
//		return g.Result()
//	}
//
// The kube server (pkg/controlplane) lists the providers and installs
// them in a loop. Everything clients see of a resource follows from its
// storage, through the capability interfaces of package rest that the
// installer (pkg/endpoints) looks for: the verbs (Getter, Lister,
// Creater, ...), the scope (Scoper), the discovery entry (singular name,
// short names, categories, the storage version hash from the stored
// kind), the OpenAPI paths and schemas (from the discovery entries), the
// table columns (TableConvertor), the fields a list may select on, and
// the keys in etcd. There is no second list to keep in step.
//
// # Adding a resource
//
// To serve, say, apps/v1 replicasets, write the package
// pkg/registry/apps/replicaset with the resource's strategies and its
// storage. A kind split into a spec and a status written through /status
// states what differs in generic.SpecStrategy and generic.StatusStrategy;
// plain data takes generic.ValidatingStrategy:
//
//	// Strategy is the behaviour of replicasets: metadata.generation
//	// counts changes of the spec, and the status is written only
//	// through /status.
//	var Strategy = generic.SpecStrategy[*appsv1.ReplicaSet]{
//		DefaultStrategy:    generic.DefaultStrategy{Namespaced: true},
//		APIVersions:        []string{"apps/v1"},
//		Spec:               generic.FieldPart(func(rs *appsv1.ReplicaSet) *appsv1.ReplicaSetSpec { return &rs.Spec }),
//		Status:             generic.FieldPart(func(rs *appsv1.ReplicaSet) *appsv1.ReplicaSetStatus { return &rs.Status }),
//		CountGenerations:   true,
//		ValidateFunc:       apps.ValidateReplicaSet,
//		ValidateUpdateFunc: apps.ValidateReplicaSetUpdate,
//	}
//
//	var statusStrategy = generic.StatusStrategy[*appsv1.ReplicaSet]{
//		SpecStrategy:             Strategy,
//		ValidateStatusUpdateFunc: apps.ValidateReplicaSetStatusUpdate,
//	}
//
//	// Storage is the REST storage of replicasets and their /status.
//	type Storage struct {
//		ReplicaSet *generic.Store
//		Status     *generic.SubresourceREST
//	}
//
//	// NewStorage returns the storage of replicasets.
//	func NewStorage(opts generic.RESTOptions) (*Storage, error) {
//		s := &generic.Store{
//			NewFunc:                   func() runtime.Object { return &appsv1.ReplicaSet{} },
//			NewListFunc:               func() runtime.Object { return &appsv1.ReplicaSetList{} },
//			DefaultQualifiedResource:  appsv1.Resource("replicasets"),
//			SingularQualifiedResource: appsv1.Resource("replicaset"),
//			KeyPrefix:                 "/replicasets",
//			CreateStrategy:            Strategy,
//			UpdateStrategy:            Strategy,
//			DeleteStrategy:            Strategy,
//			ShortNamesList:            []string{"rs"},
//			CategoriesList:            []string{"all"},
//		}
//		if err := opts.Complete(s, appsv1.SchemeGroupVersion); err != nil {
//			return nil, err
//		}
//		return &Storage{ReplicaSet: s, Status: generic.NewSubresourceREST(s, statusStrategy)}, nil
//	}
//
//	// Map returns the storage by path: "replicasets" and "replicasets/status".
//	func (s *Storage) Map() map[string]rest.Storage {
//		plural := s.ReplicaSet.DefaultQualifiedResource.Resource
//		return map[string]rest.Storage{plural: s.ReplicaSet, plural + "/status": s.Status}
//	}
//
// and add one line to the apps provider, pkg/registry/apps/rest:
//
//	v1.Add(replicaset.NewStorage(opts))
//
// The tests of pkg/controlplane then check the new resource's discovery
// entry, api-resources line and storage key against kube-apiserver's.
// A resource whose kind has a printer in pkg/printers gets its columns;
// one without gets kube-apiserver's default columns (Name, Created At).
// A new group is a new provider package, one line in the list of
// providers in pkg/controlplane, and its Go types (with their defaults,
// from pkg/apis/<group>) in the scheme of pkg/api/scheme.
package registry
