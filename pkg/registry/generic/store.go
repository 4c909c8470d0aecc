package generic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
	"github.com/kapi-dev/kapi/pkg/storage"
)

// Store is the REST storage of one resource, backed by a storage.Interface.
// Resources configure it; they do not subclass it: behaviour that differs
// between resources lives in the strategies.
type Store struct {
	// NewFunc and NewListFunc return empty objects of the resource's kind
	// and list kind.
	NewFunc     func() runtime.Object
	NewListFunc func() runtime.Object

	// DefaultQualifiedResource is the plural resource, named in errors.
	DefaultQualifiedResource schema.GroupResource
	// SingularQualifiedResource is the singular name, for discovery.
	SingularQualifiedResource schema.GroupResource
	// CountedResource, if set, is the resource the objects are counted
	// as (RESTOptions.ObjectCounts) when another resource's store keeps
	// the same objects: events.k8s.io's events are core's, counted once
	// as core events, as in kube-apiserver. Zero means
	// DefaultQualifiedResource.
	CountedResource schema.GroupResource

	// StorageVersionKind, if set, is the kind objects are stored as when
	// the store serves another version (custom resources).
	StorageVersionKind schema.GroupVersionKind

	// KeyPrefix is the storage key of the resource below the storage
	// prefix, e.g. "/configmaps" or "/services/specs".
	KeyPrefix string
	// StorageMediaType is how the objects are encoded in storage: ""
	// for protobuf, as kube-apiserver stores the built-in kinds, or
	// runtime.ContentTypeJSON for the kinds it keeps as JSON (the
	// aggregator's APIServices).
	StorageMediaType string

	// SelectableFields names the fields, beyond metadata.name and
	// metadata.namespace, a list or watch may select on; FieldsFunc
	// returns their values for an object. Nil means the fields FieldsFunc
	// returns for an empty object, so a resource names them once.
	SelectableFields []string
	FieldsFunc       FieldsFunc
	// UnknownFieldSelector, if set, is the error for a selector on a field
	// that is not selectable, in place of kube-apiserver's for built-in
	// resources (see fieldSelectorRule).
	UnknownFieldSelector func(field string) error
	// NamespaceNotSelectable refuses metadata.namespace in a field
	// selector of a namespaced resource with fields of its own, as
	// kube-apiserver does for podcertificaterequests.
	NamespaceNotSelectable bool
	// IndexedFields are selectable fields that clients commonly pin to one
	// value (the pods' spec.nodeName): the watch cache indexes them.
	IndexedFields []string

	CreateStrategy rest.CreateStrategy
	UpdateStrategy rest.UpdateStrategy
	DeleteStrategy rest.DeleteStrategy

	// FinalizersOnDelete are added to an object when it is first deleted,
	// for the server's own cleanup before it goes (the CRDs'
	// customresourcecleanup finalizer).
	FinalizersOnDelete []string

	// ReturnDeletedObject makes a delete answer with the deleted object
	// rather than a Success Status.
	ReturnDeletedObject bool

	TableConvertor rest.TableConvertor

	// Deprecation, when set, is the warning every request of the resource
	// gets.
	Deprecation string

	// ShortNamesList and CategoriesList are advertised in discovery.
	ShortNamesList []string
	CategoriesList []string

	Storage storage.Interface
	// DestroyFunc, if set, releases what Storage holds (a watch cache).
	DestroyFunc func()

	// HoldsDeletion reports whether something beyond metadata.finalizers
	// still holds the deletion of an object with a deletionTimestamp (for
	// namespaces, spec.finalizers). An update that leaves nothing holding
	// the object deletes it.
	HoldsDeletion func(obj runtime.Object) bool

	// AfterDelete runs once an object is removed from storage.
	AfterDelete func(ctx context.Context, obj runtime.Object)

	// Now is the clock for timestamps; nil means time.Now.
	Now func() time.Time

	// NameGenerator makes a name from metadata.generateName; nil means
	// GenerateName, a random suffix.
	NameGenerator func(base string) string
}

func (s *Store) generateName(base string) string {
	if s.NameGenerator != nil {
		return s.NameGenerator(base)
	}
	return GenerateName(base)
}

var (
	_ rest.Storage           = &Store{}
	_ rest.Getter            = &Store{}
	_ rest.Lister            = &Store{}
	_ rest.Watcher           = &Store{}
	_ rest.Creater           = &Store{}
	_ rest.Updater           = &Store{}
	_ rest.GracefulDeleter   = &Store{}
	_ rest.CollectionDeleter = &Store{}
)

func (s *Store) New() runtime.Object     { return s.NewFunc() }
func (s *Store) NewList() runtime.Object { return s.NewListFunc() }

// Destroy releases the store's storage.
func (s *Store) Destroy() {
	if s.DestroyFunc != nil {
		s.DestroyFunc()
	}
}

// NamespaceScoped reports whether the resource lives in namespaces.
func (s *Store) NamespaceScoped() bool { return s.CreateStrategy.NamespaceScoped() }

func (s *Store) ShortNames() []string { return s.ShortNamesList }
func (s *Store) Categories() []string { return s.CategoriesList }

func (s *Store) GetSingularName() string { return s.SingularQualifiedResource.Resource }

// StorageKeyPrefix is the key below which the objects are kept.
func (s *Store) StorageKeyPrefix() string { return s.KeyPrefix }

// StorageKind is the kind objects are stored as.
func (s *Store) StorageKind() schema.GroupVersionKind {
	if !s.StorageVersionKind.Empty() {
		return s.StorageVersionKind
	}
	gvks, _, err := schemeTyper.ObjectKinds(s.NewFunc())
	if err != nil || len(gvks) == 0 {
		return schema.GroupVersionKind{}
	}
	return gvks[0]
}

func (s *Store) now() metav1.Time {
	if s.Now != nil {
		return metav1.NewTime(s.Now().Truncate(time.Second))
	}
	return metav1.NewTime(time.Now().Truncate(time.Second))
}

// ConvertToTable renders objects with the resource's table convertor.
func (s *Store) ConvertToTable(ctx context.Context, obj runtime.Object, opts runtime.Object) (*metav1.Table, error) {
	if s.TableConvertor == nil {
		return nil, apierrors.NewGenericServerResponse(http.StatusNotAcceptable, "get", s.DefaultQualifiedResource, "",
			"table output is not supported for "+s.DefaultQualifiedResource.String(), 0, false)
	}
	return s.TableConvertor.ConvertToTable(ctx, obj, opts)
}

// keyRoot is the key below which the objects of the request's namespace
// (or of all namespaces) live.
func (s *Store) keyRoot(ctx context.Context) string {
	ns := request.NamespaceValue(ctx)
	if s.NamespaceScoped() && ns != "" {
		return s.KeyPrefix + "/" + ns
	}
	return s.KeyPrefix
}

// Key is the storage key of the named object in the request's namespace,
// for storage that writes objects of its resource itself (a pod's
// binding, a namespace's finalization).
func (s *Store) Key(ctx context.Context, name string) (string, error) { return s.key(ctx, name) }

// key is the storage key of the named object in the request's namespace.
func (s *Store) key(ctx context.Context, name string) (string, error) {
	if msgs := validatePathSegmentName(name); len(msgs) > 0 {
		return "", apierrors.NewBadRequest(fmt.Sprintf("Name parameter invalid: %q: %s", name, strings.Join(msgs, ";")))
	}
	if !s.NamespaceScoped() {
		return s.KeyPrefix + "/" + name, nil
	}
	ns := request.NamespaceValue(ctx)
	if ns == "" {
		return "", apierrors.NewBadRequest("Namespace parameter required.")
	}
	return s.KeyPrefix + "/" + ns + "/" + name, nil
}

// validatePathSegmentName rejects names that would escape their key, the
// same rule kube-apiserver applies to every name in a URL path.
func validatePathSegmentName(name string) []string {
	switch name {
	case "":
		return []string{"name is required"}
	case ".", "..":
		return []string{fmt.Sprintf("may not be '%s'", name)}
	}
	var msgs []string
	for _, illegal := range []string{"/", "%"} {
		if strings.Contains(name, illegal) {
			msgs = append(msgs, fmt.Sprintf("may not contain '%s'", illegal))
		}
	}
	return msgs
}

// Get returns the named object.
func (s *Store) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	key, err := s.key(ctx, name)
	if err != nil {
		return nil, err
	}
	obj := s.NewFunc()
	if err := s.Storage.Get(ctx, key, storage.GetOptions{ResourceVersion: opts.ResourceVersion}, obj); err != nil {
		return nil, s.interpretError(err, name)
	}
	return obj, nil
}

// predicate builds the selection of a list or watch, rejecting fields the
// resource cannot be selected by.
func (s *Store) predicate(opts *metav1.ListOptions) (storage.SelectionPredicate, error) {
	p := storage.SelectionPredicate{
		Label:    labels.Everything(),
		Field:    fields.Everything(),
		GetAttrs: attrFunc(s.NamespaceScoped(), s.FieldsFunc),
		Limit:    opts.Limit,
		Continue: opts.Continue,
	}
	if opts.LabelSelector != "" {
		sel, err := labels.Parse(opts.LabelSelector)
		if err != nil {
			return p, apierrors.NewBadRequest(err.Error())
		}
		p.Label = sel
	}
	if opts.FieldSelector != "" {
		sel, err := fields.ParseSelector(opts.FieldSelector)
		if err != nil {
			return p, apierrors.NewBadRequest(err.Error())
		}
		allowed, unknown := s.fieldSelectorRule()
		if err := validateFieldSelector(sel, allowed, unknown); err != nil {
			return p, err
		}
		p.Field = sel
	}
	return p, nil
}

// List returns the objects the options select.
func (s *Store) List(ctx context.Context, opts *metav1.ListOptions) (runtime.Object, error) {
	p, err := s.predicate(opts)
	if err != nil {
		return nil, err
	}
	list := s.NewListFunc()
	sopts := storage.ListOptions{
		ResourceVersion:      opts.ResourceVersion,
		ResourceVersionMatch: string(opts.ResourceVersionMatch),
		Predicate:            p,
		Recursive:            true,
	}
	key := s.keyRoot(ctx)
	// A metadata.name selector names one object: read its key, not the
	// whole range.
	if name, ok := p.MatchesSingle(); ok && (!s.NamespaceScoped() || request.NamespaceValue(ctx) != "") {
		if k, err := s.key(ctx, name); err == nil {
			key, sopts.Recursive = k, false
		}
	}
	if err := s.Storage.GetList(ctx, key, sopts, list); err != nil {
		return nil, s.interpretError(err, "")
	}
	return list, nil
}

// Watch streams changes to the objects the options select.
func (s *Store) Watch(ctx context.Context, opts *metav1.ListOptions) (watch.Interface, error) {
	p, err := s.predicate(opts)
	if err != nil {
		return nil, err
	}
	p.Limit, p.Continue = 0, ""
	sopts := storage.ListOptions{
		ResourceVersion:      opts.ResourceVersion,
		ResourceVersionMatch: string(opts.ResourceVersionMatch),
		Predicate:            p,
		Recursive:            true,
		ProgressNotify:       opts.AllowWatchBookmarks,
		SendInitialEvents:    opts.SendInitialEvents,
	}
	key := s.keyRoot(ctx)
	if name, ok := p.MatchesSingle(); ok && (!s.NamespaceScoped() || request.NamespaceValue(ctx) != "") {
		if k, err := s.key(ctx, name); err == nil {
			key, sopts.Recursive = k, false
		}
	}
	w, err := s.Storage.Watch(ctx, key, sopts)
	if err != nil {
		return nil, s.interpretError(err, "")
	}
	return w, nil
}

// Create validates and stores a new object. An object created with a
// generateName gets its name before it is validated and admitted, as on
// kube-apiserver; if the name is taken, a fresh one is picked and
// admitted again, a few times before giving up.
func (s *Store) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
	generated, err := s.beforeCreate(ctx, obj)
	if err != nil {
		return nil, err
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	attempts := 1
	if generated {
		attempts = 8
	}
	for i := 0; ; i++ {
		if i > 0 {
			m.SetName(s.generateName(m.GetGenerateName()))
		}
		if createValidation != nil {
			if err := createValidation(ctx, obj.DeepCopyObject()); err != nil {
				return nil, err
			}
		}
		out, err := s.createOnce(ctx, obj, m.GetName(), isDryRun(opts.DryRun))
		if err == nil || !storage.IsExist(err) || i+1 >= attempts {
			if err != nil {
				return nil, s.interpretCreateError(err, m.GetName(), generated)
			}
			return out, nil
		}
	}
}

func (s *Store) createOnce(ctx context.Context, obj runtime.Object, name string, dryRun bool) (runtime.Object, error) {
	key, err := s.key(ctx, name)
	if err != nil {
		return nil, err
	}
	if dryRun {
		// A dry run still answers AlreadyExists for a taken name.
		existing := s.NewFunc()
		err := s.Storage.Get(ctx, key, storage.GetOptions{IgnoreNotFound: true}, existing)
		if err != nil {
			return nil, err
		}
		if m, _ := meta.Accessor(existing); m != nil && m.GetResourceVersion() != "" {
			return nil, storage.NewError(storage.ErrCodeKeyExists, key, 0, "")
		}
		return obj, nil
	}
	out := s.NewFunc()
	if err := s.Storage.Create(ctx, key, obj, out); err != nil {
		return nil, err
	}
	return out, nil
}

// beforeCreate fills in what the server owns, the name of an object
// created with a generateName included (generated says so), and
// validates the object.
func (s *Store) beforeCreate(ctx context.Context, obj runtime.Object) (generated bool, err error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return false, apierrors.NewInternalError(err)
	}
	if err := s.checkNamespace(ctx, m); err != nil {
		return false, err
	}
	m.SetDeletionTimestamp(nil)
	m.SetDeletionGracePeriodSeconds(nil)
	m.SetUID(types.UID(uuid.NewUUID()))
	m.SetCreationTimestamp(s.now())
	m.SetResourceVersion("")
	m.SetSelfLink("")
	if m.GetName() == "" && m.GetGenerateName() != "" {
		m.SetName(s.generateName(m.GetGenerateName()))
		generated = true
	}
	s.CreateStrategy.PrepareForCreate(ctx, obj)
	if errs := s.CreateStrategy.Validate(ctx, obj); len(errs) > 0 {
		return false, s.invalid(m.GetName(), errs)
	}
	for _, w := range s.CreateStrategy.WarningsOnCreate(ctx, obj) {
		addWarning(ctx, w)
	}
	s.CreateStrategy.Canonicalize(obj)
	return generated, nil
}

// checkNamespace makes the object's namespace that of the request, or
// rejects a mismatch as kube-apiserver does.
func (s *Store) checkNamespace(ctx context.Context, m metav1.Object) error {
	ns := request.NamespaceValue(ctx)
	if !s.NamespaceScoped() {
		m.SetNamespace("")
		return nil
	}
	switch {
	case m.GetNamespace() == "":
		m.SetNamespace(ns)
	case ns != "" && m.GetNamespace() != ns:
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// Update replaces the object with the one objInfo computes from it.
func (s *Store) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	key, err := s.key(ctx, name)
	if err != nil {
		return nil, false, err
	}
	dryRun := isDryRun(opts.DryRun)
	var (
		created     bool
		deleteAfter bool
		result      runtime.Object
	)
	out := s.NewFunc()
	err = s.Storage.GuaranteedUpdate(ctx, key, out, true, nil, func(existing runtime.Object, res storage.ResponseMeta) (runtime.Object, error) {
		created, deleteAfter, result = false, false, nil
		exists := res.ResourceVersion != 0
		var old runtime.Object
		if exists {
			old = existing
		} else if !s.UpdateStrategy.AllowCreateOnUpdate() && !forceAllowCreate {
			// As kube-apiserver, before the object is computed and
			// admitted: admission never sees a write that cannot be.
			return nil, apierrors.NewNotFound(s.DefaultQualifiedResource, name)
		}
		obj, err := objInfo.UpdatedObject(ctx, old)
		if err != nil {
			return nil, err
		}
		m, err := meta.Accessor(obj)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		if !exists {
			if !s.UpdateStrategy.AllowCreateOnUpdate() && !forceAllowCreate {
				return nil, apierrors.NewNotFound(s.DefaultQualifiedResource, name)
			}
			// The key is the URL's name: the object must carry it.
			if err := rest.CheckNameMatches(obj, name); err != nil {
				return nil, err
			}
			created = true
			if _, err := s.beforeCreate(ctx, obj); err != nil {
				return nil, err
			}
			if createValidation != nil {
				if err := createValidation(ctx, obj.DeepCopyObject()); err != nil {
					return nil, err
				}
			}
			result = obj
			if dryRun {
				// Nothing to write: stop the update before it creates.
				return nil, errDryRunCreate
			}
			return obj, nil
		}
		if err := s.checkResourceVersion(m, res.ResourceVersion, name); err != nil {
			return nil, err
		}
		// A mutating admission plugin may have renamed the object: as in
		// kube-apiserver, the update's validation refuses that (the name
		// is immutable); the key is the URL's name, whatever validates.
		if err := s.beforeUpdate(ctx, obj, existing); err != nil {
			return nil, err
		}
		if err := rest.CheckNameMatches(obj, name); err != nil {
			return nil, err
		}
		if updateValidation != nil {
			if err := updateValidation(ctx, obj.DeepCopyObject(), existing.DeepCopyObject()); err != nil {
				return nil, err
			}
		}
		// An object whose deletion waits only on finalizers goes once the
		// last finalizer is removed.
		if m.GetDeletionTimestamp() != nil && len(m.GetFinalizers()) == 0 && (s.HoldsDeletion == nil || !s.HoldsDeletion(obj)) {
			deleteAfter = true
		}
		result = obj
		if dryRun {
			// Leave storage untouched: returning the current object is a
			// no-op write.
			return existing, nil
		}
		return obj, nil
	})
	if errors.Is(err, errDryRunCreate) {
		return result, true, nil
	}
	if err != nil {
		return nil, false, s.interpretError(err, name)
	}
	if dryRun {
		if result == nil {
			result = out
		}
		return result, created, nil
	}
	if deleteAfter {
		// The update answers the object as it was deleted, as
		// kube-apiserver does, not the Status of a delete.
		deleted, err := s.removeFromStorage(ctx, key, name, nil)
		if err != nil && !apierrors.IsNotFound(err) {
			return nil, false, err
		}
		if deleted != nil {
			return deleted, false, nil
		}
	}
	return out, created, nil
}

// errDryRunCreate stops the storage update of a dry run that would create
// the object (a PUT or an apply of a missing object).
var errDryRunCreate = errors.New("dry run: not creating")

// checkResourceVersion enforces optimistic concurrency: an update names
// the version it was computed from, or the resource must allow
// unconditional updates.
func (s *Store) checkResourceVersion(m metav1.Object, current uint64, name string) error {
	rv := m.GetResourceVersion()
	if rv == "" {
		if !s.UpdateStrategy.AllowUnconditionalUpdate() {
			// kube-apiserver names the resource, not the kind, here, and
			// the missing version as the number 0.
			resource := schema.GroupKind{Group: s.DefaultQualifiedResource.Group, Kind: s.DefaultQualifiedResource.Resource}
			return apierrors.NewInvalid(resource, name, field.ErrorList{
				field.Invalid(field.NewPath("metadata", "resourceVersion"), uint64(0), "must be specified for an update")})
		}
		// An unconditional update is an update of the current version.
		m.SetResourceVersion(strconv.FormatUint(current, 10))
		return nil
	}
	v, err := storage.ParseResourceVersion(rv)
	if err != nil {
		return s.invalid(name, field.ErrorList{field.Invalid(field.NewPath("metadata", "resourceVersion"), rv, err.Error())})
	}
	if v != current {
		return apierrors.NewConflict(s.DefaultQualifiedResource, name,
			fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
	}
	return nil
}

// beforeUpdate carries over what clients may not change and validates.
func (s *Store) beforeUpdate(ctx context.Context, obj, old runtime.Object) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	om, err := meta.Accessor(old)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	if err := s.checkNamespace(ctx, m); err != nil {
		return err
	}
	// Fields owned by the server survive every update.
	m.SetUID(om.GetUID())
	m.SetCreationTimestamp(om.GetCreationTimestamp())
	m.SetSelfLink("")
	// metadata.generation is the server's: strategies bump it.
	m.SetGeneration(om.GetGeneration())
	// As in kube-apiserver, an update never removes or moves a deletion
	// timestamp, and a grace period left out is kept; a deletion
	// timestamp or grace period set or changed otherwise is the
	// validation's immutable-field error (422).
	if om.GetDeletionTimestamp() != nil {
		m.SetDeletionTimestamp(om.GetDeletionTimestamp())
	}
	if om.GetDeletionGracePeriodSeconds() != nil && m.GetDeletionGracePeriodSeconds() == nil {
		m.SetDeletionGracePeriodSeconds(om.GetDeletionGracePeriodSeconds())
	}
	s.UpdateStrategy.PrepareForUpdate(ctx, obj, old)
	if errs := s.UpdateStrategy.ValidateUpdate(ctx, obj, old); len(errs) > 0 {
		return s.invalid(m.GetName(), errs)
	}
	for _, w := range s.UpdateStrategy.WarningsOnUpdate(ctx, obj, old) {
		addWarning(ctx, w)
	}
	s.UpdateStrategy.Canonicalize(obj)
	return nil
}

func isDryRun(dryRun []string) bool { return len(dryRun) > 0 }

// invalid is the 422 Invalid error for the resource's kind.
func (s *Store) invalid(name string, errs field.ErrorList) error {
	return apierrors.NewInvalid(s.kind(), name, errs)
}

// kind is the GroupKind named in Invalid errors.
func (s *Store) kind() schema.GroupKind {
	gvks, _, err := schemeTyper.ObjectKinds(s.NewFunc())
	if err != nil || len(gvks) == 0 {
		return schema.GroupKind{Group: s.DefaultQualifiedResource.Group, Kind: s.DefaultQualifiedResource.Resource}
	}
	return gvks[0].GroupKind()
}

// interpretError maps storage errors to the API errors clients see.
func (s *Store) interpretError(err error, name string) error {
	var se *storage.Error
	if !asStorageError(err, &se) {
		return err
	}
	switch se.Code {
	case storage.ErrCodeKeyNotFound:
		return apierrors.NewNotFound(s.DefaultQualifiedResource, name)
	case storage.ErrCodeKeyExists:
		return apierrors.NewAlreadyExists(s.DefaultQualifiedResource, name)
	case storage.ErrCodeResourceVersionConflicts:
		return apierrors.NewConflict(s.DefaultQualifiedResource, name,
			fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
	case storage.ErrCodeInvalidResourceVersion:
		return apierrors.NewBadRequest(se.Detail)
	case storage.ErrCodeExpired:
		expired := apierrors.NewResourceExpired(se.Detail)
		// A compacted continue token comes with a fresh one to go on from
		// the current state, as kube-apiserver gives it.
		expired.ErrStatus.ListMeta.Continue = se.Continue
		return expired
	case storage.ErrCodeTooLargeResourceVersion:
		return newTooLargeResourceVersionError(se)
	case storage.ErrCodeUnreachable:
		return apierrors.NewServiceUnavailable(se.Error())
	}
	return apierrors.NewInternalError(err)
}

func (s *Store) interpretCreateError(err error, name string, generated bool) error {
	if storage.IsExist(err) && generated {
		return apierrors.NewAlreadyExists(s.DefaultQualifiedResource, name)
	}
	return s.interpretError(err, name)
}

// newTooLargeResourceVersionError is kube-apiserver's 504 for a read at a
// revision the server has not reached.
func newTooLargeResourceVersionError(se *storage.Error) error {
	err := apierrors.NewTimeoutError(se.Detail, 1)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{
		Type:    metav1.CauseTypeResourceVersionTooLarge,
		Message: "Too large resource version",
	}}
	return err
}

// ReturnsDeletedObject tells whether a delete answers with the object.
func (s *Store) ReturnsDeletedObject() bool { return s.ReturnDeletedObject }

// DeprecationWarning is the warning of a deprecated resource, or "".
func (s *Store) DeprecationWarning() string { return s.Deprecation }
