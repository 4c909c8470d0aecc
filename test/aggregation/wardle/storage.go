package wardle

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage/names"
)

var flunders = SchemeGroupVersion.WithResource("flunders").GroupResource()

// store keeps flunders in memory and implements the rest.Storage
// interfaces k8s.io/apiserver's handlers serve get, list, watch, create,
// update, patch (server-side apply included) and delete with. It keeps
// every change it made so that a watch can start at any resource version
// it handed out (a real server would keep a bounded window and answer
// 410 Gone before it).
type store struct {
	mu      sync.Mutex
	rv      uint64
	objects map[string]*Flunder // by namespace/name
	history []watch.Event       // every change, oldest first
	events  *watch.Broadcaster
}

func newStore() *store {
	return &store{
		objects: map[string]*Flunder{},
		events:  watch.NewLongQueueBroadcaster(100, watch.WaitIfChannelFull),
	}
}

var (
	_ rest.StandardStorage      = &store{}
	_ rest.Scoper               = &store{}
	_ rest.SingularNameProvider = &store{}
	_ rest.ShortNamesProvider   = &store{}
)

func (s *store) New() runtime.Object     { return &Flunder{} }
func (s *store) NewList() runtime.Object { return &FlunderList{} }
func (s *store) Destroy()                { s.events.Shutdown() }
func (s *store) NamespaceScoped() bool   { return true }
func (s *store) GetSingularName() string { return "flunder" }
func (s *store) ShortNames() []string    { return []string{"fl"} }
func key(namespace, name string) string  { return namespace + "/" + name }

func (s *store) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.objects[key(genericapirequest.NamespaceValue(ctx), name)]
	if !ok {
		return nil, apierrors.NewNotFound(flunders, name)
	}
	return f.DeepCopy(), nil
}

// matches says whether a flunder is in the request's namespace (all of
// them when it has none) and selected by its label and field selectors.
func matches(ctx context.Context, opts *metainternalversion.ListOptions, f *Flunder) bool {
	if ns := genericapirequest.NamespaceValue(ctx); ns != "" && f.Namespace != ns {
		return false
	}
	if opts == nil {
		return true
	}
	if opts.LabelSelector != nil && !opts.LabelSelector.Matches(labels.Set(f.Labels)) {
		return false
	}
	fieldSet := fields.Set{"metadata.name": f.Name, "metadata.namespace": f.Namespace}
	return opts.FieldSelector == nil || opts.FieldSelector.Matches(fieldSet)
}

func (s *store) List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := &FlunderList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.FormatUint(s.rv, 10)}}
	for _, f := range s.objects {
		if matches(ctx, opts, f) {
			list.Items = append(list.Items, *f.DeepCopy())
		}
	}
	sort.Slice(list.Items, func(i, j int) bool {
		return key(list.Items[i].Namespace, list.Items[i].Name) < key(list.Items[j].Namespace, list.Items[j].Name)
	})
	return list, nil
}

// Watch sends the changes after the resource version asked for; from
// "" or "0" it first sends what exists, as ADDED events. With
// sendInitialEvents (a watch-list), it ends those with a bookmark.
func (s *store) Watch(ctx context.Context, opts *metainternalversion.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var replay []watch.Event
	rv := opts.ResourceVersion
	initial := opts.SendInitialEvents != nil && *opts.SendInitialEvents
	if rv == "" || rv == "0" || initial {
		for _, f := range s.objects {
			replay = append(replay, watch.Event{Type: watch.Added, Object: f.DeepCopy()})
		}
		sort.Slice(replay, func(i, j int) bool {
			a, b := replay[i].Object.(*Flunder), replay[j].Object.(*Flunder)
			return key(a.Namespace, a.Name) < key(b.Namespace, b.Name)
		})
		if initial && opts.AllowWatchBookmarks {
			replay = append(replay, watch.Event{Type: watch.Bookmark, Object: &Flunder{ObjectMeta: metav1.ObjectMeta{
				ResourceVersion: strconv.FormatUint(s.rv, 10),
				Annotations:     map[string]string{metav1.InitialEventsAnnotationKey: "true"},
			}}})
		}
	} else {
		from, err := strconv.ParseUint(rv, 10, 64)
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid resource version %q", rv))
		}
		for _, e := range s.history {
			if resourceVersion(e.Object) > from {
				replay = append(replay, e)
			}
		}
	}
	// The broadcaster queues the watcher behind every change already
	// sent to it (all of them, since changes are sent under s.mu): the
	// watcher sees no change twice and misses none.
	w, err := s.events.WatchWithPrefix(replay)
	if err != nil {
		return nil, err
	}
	return watch.Filter(w, func(e watch.Event) (watch.Event, bool) {
		f, ok := e.Object.(*Flunder)
		return e, !ok || e.Type == watch.Bookmark || matches(ctx, opts, f)
	}), nil
}

func resourceVersion(obj runtime.Object) uint64 {
	rv, _ := strconv.ParseUint(obj.(*Flunder).ResourceVersion, 10, 64)
	return rv
}

// record stores a change under the next resource version and sends it to
// the watchers. The caller holds s.mu.
func (s *store) record(t watch.EventType, f *Flunder) *Flunder {
	s.rv++
	f.ResourceVersion = strconv.FormatUint(s.rv, 10)
	if t == watch.Deleted {
		delete(s.objects, key(f.Namespace, f.Name))
	} else {
		s.objects[key(f.Namespace, f.Name)] = f
	}
	e := watch.Event{Type: t, Object: f.DeepCopy()}
	s.history = append(s.history, e)
	_ = s.events.Action(e.Type, e.Object)
	return f.DeepCopy()
}

func validate(f *Flunder) error {
	errs := validation.ValidateObjectMeta(&f.ObjectMeta, true, path.ValidatePathSegmentName, field.NewPath("metadata"))
	if len(errs) > 0 {
		return apierrors.NewInvalid(SchemeGroupVersion.WithKind("Flunder").GroupKind(), f.Name, errs)
	}
	return nil
}

func (s *store) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
	f := obj.(*Flunder)
	f.Namespace = genericapirequest.NamespaceValue(ctx)
	if f.Name == "" && f.GenerateName != "" {
		f.Name = names.SimpleNameGenerator.GenerateName(f.GenerateName)
	}
	f.UID = uuid.NewUUID()
	f.CreationTimestamp = metav1.Now()
	f.Generation = 1
	f.ResourceVersion = ""
	if err := validate(f); err != nil {
		return nil, err
	}
	if createValidation != nil {
		if err := createValidation(ctx, f); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.objects[key(f.Namespace, f.Name)]; ok {
		return nil, apierrors.NewAlreadyExists(flunders, f.Name)
	}
	if len(opts.DryRun) > 0 {
		return f, nil
	}
	return s.record(watch.Added, f), nil
}

// Update replaces a flunder with what objInfo makes of it (the body of a
// PUT, or the result of a patch or an apply); forceAllowCreate (apply)
// creates it when it does not exist.
func (s *store) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	s.mu.Lock()
	old, exists := s.objects[key(genericapirequest.NamespaceValue(ctx), name)]
	s.mu.Unlock()
	if !exists {
		if !forceAllowCreate {
			return nil, false, apierrors.NewNotFound(flunders, name)
		}
		obj, err := objInfo.UpdatedObject(ctx, nil)
		if err != nil {
			return nil, false, err
		}
		created, err := s.Create(ctx, obj, createValidation, &metav1.CreateOptions{DryRun: opts.DryRun})
		return created, err == nil, err
	}
	obj, err := objInfo.UpdatedObject(ctx, old.DeepCopy())
	if err != nil {
		return nil, false, err
	}
	f := obj.(*Flunder)
	if f.ResourceVersion != "" && f.ResourceVersion != old.ResourceVersion {
		return nil, false, apierrors.NewConflict(flunders, name, fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
	}
	f.Namespace, f.UID, f.CreationTimestamp, f.Generation = old.Namespace, old.UID, old.CreationTimestamp, old.Generation
	if f.Spec != old.Spec {
		f.Generation++
	}
	if err := validate(f); err != nil {
		return nil, false, err
	}
	if updateValidation != nil {
		if err := updateValidation(ctx, f, old); err != nil {
			return nil, false, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if current, ok := s.objects[key(f.Namespace, name)]; !ok || current.ResourceVersion != old.ResourceVersion {
		return nil, false, apierrors.NewConflict(flunders, name, fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
	}
	if len(opts.DryRun) > 0 {
		return f, false, nil
	}
	return s.record(watch.Modified, f), false, nil
}

func (s *store) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.objects[key(genericapirequest.NamespaceValue(ctx), name)]
	if !ok {
		return nil, false, apierrors.NewNotFound(flunders, name)
	}
	if p := opts.Preconditions; p != nil {
		if (p.UID != nil && *p.UID != f.UID) || (p.ResourceVersion != nil && *p.ResourceVersion != f.ResourceVersion) {
			return nil, false, apierrors.NewConflict(flunders, name, fmt.Errorf("the precondition of the delete does not hold"))
		}
	}
	if deleteValidation != nil {
		if err := deleteValidation(ctx, f.DeepCopy()); err != nil {
			return nil, false, err
		}
	}
	if len(opts.DryRun) > 0 {
		return f.DeepCopy(), true, nil
	}
	return s.record(watch.Deleted, f.DeepCopy()), true, nil
}

// DeleteCollection deletes the flunders the list options select.
func (s *store) DeleteCollection(ctx context.Context, deleteValidation rest.ValidateObjectFunc, opts *metav1.DeleteOptions, listOpts *metainternalversion.ListOptions) (runtime.Object, error) {
	list, err := s.List(ctx, listOpts)
	if err != nil {
		return nil, err
	}
	deleted := &FlunderList{}
	for _, f := range list.(*FlunderList).Items {
		obj, _, err := s.Delete(ctx, f.Name, deleteValidation, opts)
		if apierrors.IsNotFound(err) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		deleted.Items = append(deleted.Items, *obj.(*Flunder))
	}
	return deleted, nil
}

// ConvertToTable gives kubectl get its columns.
func (s *store) ConvertToTable(_ context.Context, obj runtime.Object, _ runtime.Object) (*metav1.Table, error) {
	table := &metav1.Table{ColumnDefinitions: []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name", Description: "Name of the flunder"},
		{Name: "Reference", Type: "string", Description: "The flunder it refers to"},
		{Name: "Age", Type: "string", Description: "Time since creation"},
	}}
	add := func(f *Flunder) {
		table.Rows = append(table.Rows, metav1.TableRow{
			Cells:  []any{f.Name, f.Spec.Reference, duration.HumanDuration(time.Since(f.CreationTimestamp.Time))},
			Object: runtime.RawExtension{Object: f},
		})
	}
	switch o := obj.(type) {
	case *Flunder:
		table.ResourceVersion = o.ResourceVersion
		add(o)
	case *FlunderList:
		table.ResourceVersion, table.Continue = o.ResourceVersion, o.Continue
		for i := range o.Items {
			add(&o.Items[i])
		}
	default:
		return nil, fmt.Errorf("cannot make a table of %T", obj)
	}
	return table, nil
}
