package handlers

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
	"github.com/kapi-dev/kapi/pkg/endpoints/fieldmanager"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// verbFunc does the work of one verb: it gets the request's context (with
// its namespace) and the name the path addresses, and returns the object
// to answer with and its status code, or the error to answer with. A verb
// that writes its own response (a watch, once it streams) returns a nil
// object and a nil error.
type verbFunc func(ctx context.Context, name string, w http.ResponseWriter, r *http.Request) (runtime.Object, int, error)

// serve is the one error ladder of the verb handlers: every failure of a
// verb, wherever it happens, is written as a negotiated Status, and
// every result in the negotiated encoding. list tells a collection's
// response (tables and metadata of lists) from an object's.
func (s *RequestScope) serve(list bool, verb verbFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, name, err := s.requestContext(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		obj, code, err := verb(ctx, name, w, r)
		switch {
		case err != nil:
			s.writeError(w, r, err)
		case obj != nil:
			s.writeObject(ctx, w, r, code, obj, list)
		}
	}
}

// GetResource serves GET of one object.
func GetResource(getter rest.Getter, s *RequestScope) http.HandlerFunc {
	return s.serve(false, func(ctx context.Context, name string, _ http.ResponseWriter, r *http.Request) (runtime.Object, int, error) {
		opts := &metav1.GetOptions{}
		if err := s.decodeParameters(r.URL.Query(), opts); err != nil {
			return nil, 0, err
		}
		obj, err := getter.Get(ctx, name, opts)
		return obj, http.StatusOK, err
	})
}

// ListResource serves GET of a collection: a list, or a watch when the
// request's verb is watch. Whether a request watches is decided once, when
// its RequestInfo is made (?watch=1, or the legacy /watch/ prefix); the
// handler asks the RequestInfo.
func ListResource(lister rest.Lister, watcher rest.Watcher, s *RequestScope, minRequestTimeout time.Duration) http.HandlerFunc {
	return s.serve(true, func(ctx context.Context, name string, w http.ResponseWriter, r *http.Request) (runtime.Object, int, error) {
		info, _ := request.RequestInfoFrom(ctx)
		watching := info.Verb == "watch"
		opts := &metav1.ListOptions{}
		if err := s.decodeParameters(r.URL.Query(), opts); err != nil {
			return nil, 0, err
		}
		if watching && len(info.Parts) >= 2 && opts.FieldSelector == "" {
			// The legacy /watch/<resource>/<name> path watches one object.
			opts.FieldSelector = "metadata.name=" + name
		}
		// The legacy /watch/ path watches without saying so in the query.
		opts.Watch = watching
		if errs := validateListOptions(opts); len(errs) > 0 {
			return nil, 0, apierrors.NewInvalid(metav1.SchemeGroupVersion.WithKind("ListOptions").GroupKind(), "", errs)
		}
		if watching {
			if watcher == nil {
				return nil, 0, apierrors.NewMethodNotSupported(s.qualifiedResource(), "watch")
			}
			return nil, 0, serveWatch(ctx, w, r, s, watcher, opts, watchTimeout(opts, minRequestTimeout))
		}
		obj, err := lister.List(ctx, opts)
		return obj, http.StatusOK, err
	})
}

// watchTimeout is the timeoutSeconds the client asked for, or a random
// duration between one and two times the minimum request timeout, so that
// watches of many clients do not all end together.
func watchTimeout(opts *metav1.ListOptions, minRequestTimeout time.Duration) time.Duration {
	if opts.TimeoutSeconds != nil {
		return time.Duration(*opts.TimeoutSeconds) * time.Second
	}
	if minRequestTimeout <= 0 {
		return 0
	}
	return time.Duration(float64(minRequestTimeout) * (rand.Float64() + 1.0))
}

// validateListOptions applies kube-apiserver's rules to the options of a
// list or a watch; the two have rules of their own, reported in
// kube-apiserver's order.
func validateListOptions(o *metav1.ListOptions) field.ErrorList {
	var errs field.ErrorList
	if o.Watch {
		errs = validateWatchOptions(o)
	} else {
		if match := o.ResourceVersionMatch; match != "" {
			if o.ResourceVersion == "" {
				errs = append(errs, field.Forbidden(rvMatchPath, "resourceVersionMatch is forbidden unless resourceVersion is provided"))
			}
			if o.Continue != "" {
				errs = append(errs, field.Forbidden(rvMatchPath, "resourceVersionMatch is forbidden when continue is provided"))
			}
			if match != metav1.ResourceVersionMatchExact && match != metav1.ResourceVersionMatchNotOlderThan {
				errs = append(errs, field.NotSupported(rvMatchPath, match,
					[]string{string(metav1.ResourceVersionMatchExact), string(metav1.ResourceVersionMatchNotOlderThan), ""}))
			}
			if match == metav1.ResourceVersionMatchExact && o.ResourceVersion == "0" {
				errs = append(errs, field.Forbidden(rvMatchPath, "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""))
			}
		}
		if o.SendInitialEvents != nil {
			errs = append(errs, field.Forbidden(field.NewPath("sendInitialEvents"), "sendInitialEvents is forbidden for list"))
		}
	}
	if o.Limit < 0 {
		errs = append(errs, field.Invalid(field.NewPath("limit"), o.Limit, "must be greater than or equal to 0"))
	}
	return errs
}

var rvMatchPath = field.NewPath("resourceVersionMatch")

// validateWatchOptions: a watch takes resourceVersionMatch only with
// sendInitialEvents (a watch-list), and then only NotOlderThan, with or
// without a resourceVersion (none asks for a consistent start).
func validateWatchOptions(o *metav1.ListOptions) field.ErrorList {
	var errs field.ErrorList
	match, sendInitialEvents := o.ResourceVersionMatch, o.SendInitialEvents != nil
	if !sendInitialEvents && match == "" && (o.ResourceVersion == "" || o.ResourceVersion == "0") {
		// kube-apiserver takes a watch from "" or "0" that says nothing
		// more for a watch-list (which is what it does: initial events,
		// then changes) and validates it as one. Only validation needs
		// the distinction: the watch is served the same either way.
		match, sendInitialEvents = metav1.ResourceVersionMatchNotOlderThan, true
	}
	if sendInitialEvents && match != metav1.ResourceVersionMatchNotOlderThan {
		errs = append(errs, field.Forbidden(rvMatchPath,
			fmt.Sprintf("sendInitialEvents requires setting resourceVersionMatch to %s", metav1.ResourceVersionMatchNotOlderThan)))
	}
	if match != "" {
		if !sendInitialEvents {
			errs = append(errs, field.Forbidden(rvMatchPath, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
		}
		if match != metav1.ResourceVersionMatchNotOlderThan {
			errs = append(errs, field.NotSupported(rvMatchPath, match, []string{string(metav1.ResourceVersionMatchNotOlderThan)}))
		}
		if o.Continue != "" {
			errs = append(errs, field.Forbidden(rvMatchPath, "resourceVersionMatch is forbidden when continue is provided"))
		}
	}
	return errs
}

// CreateResource serves POST to a collection.
func CreateResource(creater rest.Creater, s *RequestScope) http.HandlerFunc {
	return s.serve(false, func(ctx context.Context, name string, _ http.ResponseWriter, r *http.Request) (runtime.Object, int, error) {
		opts := &metav1.CreateOptions{}
		if err := s.queryOptions(r, opts, func() field.ErrorList { return metav1validation.ValidateCreateOptions(opts) }); err != nil {
			return nil, 0, err
		}
		obj, err := s.decodeBody(ctx, r)
		if err != nil {
			return nil, 0, err
		}
		if m, err := meta.Accessor(obj); err == nil {
			if name == "" {
				name = m.GetName()
			}
			// As kube-apiserver, the object has the request's namespace
			// before admission sees it (a conflicting one is refused by
			// the store).
			if s.Namespaced && m.GetNamespace() == "" {
				m.SetNamespace(request.NamespaceValue(ctx))
			}
		}
		if obj, err = s.trackWrite(nil, obj, fieldmanager.ManagerName(opts.FieldManager, r.UserAgent())); err != nil {
			return nil, 0, err
		}
		dryRun := len(opts.DryRun) > 0
		opts.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("CreateOptions"))
		if err := s.admitWrite(ctx, s.admissionAttributes(ctx, name, admission.Create, obj, nil, opts, dryRun)); err != nil {
			return nil, 0, err
		}
		out, err := creater.Create(ctx, obj, s.validateCreate(name, opts, dryRun), opts)
		// A create that answers with a Status (an eviction) says 201 in
		// it, as kube-apiserver's does.
		if status, ok := out.(*metav1.Status); ok && err == nil && status.Code == 0 {
			status.Code = http.StatusCreated
		}
		return out, http.StatusCreated, err
	})
}

// UpdateResource serves PUT of one object.
func UpdateResource(updater rest.Updater, s *RequestScope) http.HandlerFunc {
	return s.serve(false, func(ctx context.Context, name string, _ http.ResponseWriter, r *http.Request) (runtime.Object, int, error) {
		opts := &metav1.UpdateOptions{}
		if err := s.queryOptions(r, opts, func() field.ErrorList { return metav1validation.ValidateUpdateOptions(opts) }); err != nil {
			return nil, 0, err
		}
		obj, err := s.decodeBody(ctx, r)
		if err != nil {
			return nil, 0, err
		}
		dryRun := len(opts.DryRun) > 0
		tracked := &trackedUpdate{scope: s, manager: fieldmanager.ManagerName(opts.FieldManager, r.UserAgent()), next: rest.DefaultUpdatedObjectInfo(obj)}
		wo := updateWriteOptions(opts)
		info := &admittedUpdate{scope: s, name: name, opts: wo, next: tracked}
		out, created, err := updater.Update(ctx, name, info, s.validateCreate(name, wo.create, dryRun), s.validateUpdate(name, wo.update, dryRun), false, opts)
		return out, createdOrOK(created), err
	})
}

// createdOrOK is the status of a write that may have created its object.
func createdOrOK(created bool) int {
	if created {
		return http.StatusCreated
	}
	return http.StatusOK
}

// DeleteResource serves DELETE of one object.
func DeleteResource(deleter rest.GracefulDeleter, s *RequestScope) http.HandlerFunc {
	return s.serve(false, func(ctx context.Context, name string, _ http.ResponseWriter, r *http.Request) (runtime.Object, int, error) {
		opts, err := s.deleteOptions(r)
		if err != nil {
			return nil, 0, err
		}
		out, deleted, err := deleter.Delete(ctx, name, s.validateDelete(name, opts), opts)
		if err != nil {
			return nil, 0, err
		}
		code := http.StatusOK
		// kube-apiserver answers 202 only for a pending cascading delete
		// asked for with the deprecated orphanDependents=false.
		if !deleted && opts.OrphanDependents != nil && !*opts.OrphanDependents {
			code = http.StatusAccepted
		}
		// The registry's Success Status goes out as it is: kube-apiserver
		// leaves its code out of the body.
		return out, code, nil
	})
}

// DeleteCollection serves DELETE of a collection. The objects are
// selected by the query's list options; how to delete them, by the
// DeleteOptions (see deleteOptions).
func DeleteCollection(deleter rest.CollectionDeleter, s *RequestScope) http.HandlerFunc {
	return s.serve(true, func(ctx context.Context, _ string, _ http.ResponseWriter, r *http.Request) (runtime.Object, int, error) {
		listOpts := &metav1.ListOptions{}
		if err := s.decodeParameters(r.URL.Query(), listOpts); err != nil {
			return nil, 0, err
		}
		opts, err := s.deleteOptions(r)
		if err != nil {
			return nil, 0, err
		}
		out, err := deleter.DeleteCollection(ctx, s.validateDelete("", opts), opts, listOpts)
		return out, http.StatusOK, err
	})
}

// queryOptions decodes the options of a create, update or patch from the
// query (their body is the object or the patch) and validates them with
// validate, which reads opts once they are decoded.
func (s *RequestScope) queryOptions(r *http.Request, opts runtime.Object, validate func() field.ErrorList) error {
	if err := s.decodeParameters(r.URL.Query(), opts); err != nil {
		return err
	}
	if errs := validate(); len(errs) > 0 {
		kind := reflect.TypeOf(opts).Elem().Name()
		return apierrors.NewInvalid(metav1.SchemeGroupVersion.WithKind(kind).GroupKind(), "", errs)
	}
	return nil
}

// deleteOptions reads the DeleteOptions of a delete or deletecollection
// as kube-apiserver does: from the body when there is one, and only
// otherwise from the query. The two are never merged: kubectl sends its
// options (dryRun among them) in the body and other parameters, such as
// timeout, in the query; reading the query over the body would turn a
// dry run into a delete.
func (s *RequestScope) deleteOptions(r *http.Request) (*metav1.DeleteOptions, error) {
	opts := &metav1.DeleteOptions{}
	body, err := s.readBody(r)
	if err != nil {
		return nil, err
	}
	if len(body) > 0 {
		info, err := negotiationInputForOptions(r, s)
		if err != nil {
			return nil, err
		}
		obj, gvk, err := s.Serializer.DecoderToVersion(info.Serializer, metav1.SchemeGroupVersion).Decode(body, &deleteOptionsGVK, opts)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		if obj != opts {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("decoded object of type %v is not DeleteOptions", gvk))
		}
		auditcontext.LogRequestObject(r.Context(), opts, s.Resource, s.Subresource, encodeInternalDeleteOptions)
	} else if err := s.decodeParameters(r.URL.Query(), opts); err != nil {
		return nil, err
	}
	if errs := metav1validation.ValidateDeleteOptions(opts); len(errs) > 0 {
		return nil, apierrors.NewInvalid(deleteOptionsGVK.GroupKind(), "", errs)
	}
	return opts, nil
}

var deleteOptionsGVK = metav1.SchemeGroupVersion.WithKind("DeleteOptions")
