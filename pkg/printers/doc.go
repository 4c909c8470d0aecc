// Package printers renders API objects as metav1.Table, the server-side
// tabular form a client asks for with
//
//	Accept: application/json;as=Table;v=v1;g=meta.k8s.io
//
// and that kubectl get prints. The columns, their types, formats,
// descriptions and priorities, and the cells (values and JSON types), are
// those of kube-apiserver 1.37: kubectl and other clients format them
// without knowing the kind, so any difference shows on their screens.
//
// Two convertors implement TableConvertor:
//
//   - New returns the convertor of the built-in kinds kapi serves. It
//     renders the kinds it has a printer for and gives every other object
//     the default columns, as kube-apiserver does for resources without a
//     printer (Roles, LimitRanges, ...). The kinds with a printer are:
//     v1 Pods, Namespaces, ConfigMaps, Secrets, ServiceAccounts, Services,
//     Endpoints, Nodes, Events, ReplicationControllers, PodTemplates,
//     ResourceQuotas, PersistentVolumes and PersistentVolumeClaims;
//     apps/v1 Deployments, ReplicaSets, StatefulSets, DaemonSets and
//     ControllerRevisions; batch/v1 Jobs and CronJobs; autoscaling/v1
//     Scale; coordination.k8s.io/v1 Leases; events.k8s.io/v1 Events;
//     rbac.authorization.k8s.io/v1 RoleBindings and ClusterRoleBindings;
//     flowcontrol.apiserver.k8s.io/v1 FlowSchemas and
//     PriorityLevelConfigurations; scheduling.k8s.io/v1 PriorityClasses;
//     policy/v1 PodDisruptionBudgets; networking.k8s.io/v1 Ingresses,
//     IngressClasses and NetworkPolicies; discovery.k8s.io/v1
//     EndpointSlices; storage.k8s.io/v1 StorageClasses;
//     admissionregistration.k8s.io/v1 webhook configurations, admission
//     policies and their bindings; and
//     certificates.k8s.io/v1 CertificateSigningRequests. Objects must be
//     of these Go types (k8s.io/api); unstructured ones get the default
//     columns.
//   - NewDefaultTableConvertor returns the convertor of resources without
//     printers: columns Name and Created At, for typed and unstructured
//     objects alike.
//
// # The contract with the HTTP handler
//
// ConvertToTable accepts one object or a list of objects (anything
// meta.EachListItem iterates). The Table it returns has:
//
//   - ListMeta copied from the list (resourceVersion, continue,
//     remainingItemCount) or, for a single object, the object's
//     resourceVersion.
//   - ColumnDefinitions, unless tableOptions is a *metav1.TableOptions with
//     NoHeaders set. Priority-1 columns (kubectl get -o wide) are always
//     included, with their cells: the server always renders the wide form
//     and the client picks the columns it shows.
//   - One row per object, in the order of the list (FlowSchemas excepted:
//     they come in matching order, as kube-apiserver lists them). A row's
//     Object is runtime.RawExtension{Object: obj}, Raw unset, obj being
//     the object given or the list's item, not a copy: the table aliases
//     its input, which must not change while the table is in use. Rows
//     of Succeeded and Failed pods also carry a Completed condition.
//   - No TypeMeta: the encoder sets kind Table and apiVersion
//     meta.k8s.io/v1 (or v1beta1, the same Go type) when it writes the
//     response. An empty list has Rows [] (JSON "rows": []), except with
//     the default columns, where kube-apiserver writes "rows": null.
//
// The handler then applies the request's includeObject to every row, as
// kube-apiserver does: Metadata (the default) replaces the object with its
// metav1.PartialObjectMetadata (kind PartialObjectMetadata, apiVersion the
// Table's), Object converts it to the requested version with its kind and
// apiVersion set, and None drops it. This package does none of that.
//
// Errors: an object without metadata gets a 406 NotAcceptable status error
// (the resource named from the request info of the context), and table
// options of a type other than *metav1.TableOptions a plain error, as
// from kube-apiserver.
//
// Ages ("5s", "3d4h", "3 (5m ago)") are computed against one reading of the
// convertor's clock per call, time.Now unless WithClock says otherwise, and
// are formatted by k8s.io/apimachinery/pkg/util/duration.HumanDuration.
package printers
