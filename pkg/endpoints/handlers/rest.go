package handlers

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/endpoints/fieldmanager"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// GetResource serves GET of one object.
func GetResource(getter rest.Getter, s *RequestScope) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, name, err := s.requestContext(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		opts := &metav1.GetOptions{}
		if err := s.decodeParameters(r.URL.Query(), opts); err != nil {
			s.writeError(w, r, err)
			return
		}
		obj, err := getter.Get(ctx, name, opts)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		s.writeObject(ctx, w, r, http.StatusOK, obj, false)
	}
}

// ListResource serves GET of a collection, and watches when the request
// asks for one (forceWatch is the legacy /watch/ path).
func ListResource(lister rest.Lister, watcher rest.Watcher, s *RequestScope, forceWatch bool, minRequestTimeout time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, name, err := s.requestContext(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		opts := &metav1.ListOptions{}
		if err := s.decodeParameters(r.URL.Query(), opts); err != nil {
			s.writeError(w, r, err)
			return
		}
		if forceWatch && name != "" && opts.FieldSelector == "" {
			// The legacy /watch/<resource>/<name> path watches one object.
			opts.FieldSelector = "metadata.name=" + name
		}
		if errs := validateListOptions(opts); len(errs) > 0 {
			s.writeError(w, r, apierrors.NewInvalid(metav1.SchemeGroupVersion.WithKind("ListOptions").GroupKind(), "", errs))
			return
		}
		if opts.Watch || forceWatch {
			if watcher == nil {
				s.writeError(w, r, apierrors.NewMethodNotSupported(s.qualifiedResource(), "watch"))
				return
			}
			timeout := watchTimeout(opts, minRequestTimeout)
			serveWatch(w, r, s, watcher, opts, timeout)
			return
		}
		obj, err := lister.List(ctx, opts)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		s.writeObject(ctx, w, r, http.StatusOK, obj, true)
	}
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

// validateListOptions applies kube-apiserver's rules to list options.
func validateListOptions(o *metav1.ListOptions) field.ErrorList {
	var errs field.ErrorList
	if o.ResourceVersionMatch != "" {
		switch o.ResourceVersionMatch {
		case metav1.ResourceVersionMatchNotOlderThan, metav1.ResourceVersionMatchExact:
		default:
			errs = append(errs, field.NotSupported(field.NewPath("resourceVersionMatch"), o.ResourceVersionMatch,
				[]string{string(metav1.ResourceVersionMatchExact), string(metav1.ResourceVersionMatchNotOlderThan), ""}))
		}
		if o.Watch && o.SendInitialEvents == nil {
			errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"), "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
		}
		if o.ResourceVersion == "" {
			errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"), "resourceVersionMatch is forbidden unless resourceVersion is provided"))
		}
		if o.Continue != "" {
			errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"), "resourceVersionMatch is forbidden when continue is provided"))
		}
		if o.ResourceVersionMatch == metav1.ResourceVersionMatchExact && o.ResourceVersion == "0" {
			errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"), "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""))
		}
	}
	if o.SendInitialEvents != nil {
		if !o.Watch {
			errs = append(errs, field.Forbidden(field.NewPath("sendInitialEvents"), "sendInitialEvents is forbidden for list"))
		}
		if o.ResourceVersionMatch != metav1.ResourceVersionMatchNotOlderThan {
			errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"),
				fmt.Sprintf("sendInitialEvents requires setting resourceVersionMatch to %s", metav1.ResourceVersionMatchNotOlderThan)))
		}
	}
	if o.Limit < 0 {
		errs = append(errs, field.Invalid(field.NewPath("limit"), o.Limit, "must be greater than or equal to 0"))
	}
	return errs
}

// CreateResource serves POST to a collection.
func CreateResource(creater rest.Creater, s *RequestScope) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, name, err := s.requestContext(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		opts := &metav1.CreateOptions{}
		if err := s.decodeParameters(r.URL.Query(), opts); err != nil {
			s.writeError(w, r, err)
			return
		}
		if errs := metav1validation.ValidateCreateOptions(opts); len(errs) > 0 {
			s.writeError(w, r, apierrors.NewInvalid(metav1.SchemeGroupVersion.WithKind("CreateOptions").GroupKind(), "", errs))
			return
		}
		obj, err := s.decodeBody(ctx, r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if m, err := meta.Accessor(obj); err == nil && name == "" {
			name = m.GetName()
		}
		if obj, err = s.trackWrite(nil, obj, fieldmanager.ManagerName(opts.FieldManager, r.UserAgent())); err != nil {
			s.writeError(w, r, err)
			return
		}
		dryRun := len(opts.DryRun) > 0
		if err := s.admitWrite(ctx, s.admissionAttributes(ctx, name, admission.Create, obj, nil, dryRun)); err != nil {
			s.writeError(w, r, err)
			return
		}
		out, err := creater.Create(ctx, obj, s.validateCreate(name, dryRun), opts)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		s.writeObject(ctx, w, r, http.StatusCreated, out, false)
	}
}

// UpdateResource serves PUT of one object.
func UpdateResource(updater rest.Updater, s *RequestScope) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, name, err := s.requestContext(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		opts := &metav1.UpdateOptions{}
		if err := s.decodeParameters(r.URL.Query(), opts); err != nil {
			s.writeError(w, r, err)
			return
		}
		if errs := metav1validation.ValidateUpdateOptions(opts); len(errs) > 0 {
			s.writeError(w, r, apierrors.NewInvalid(metav1.SchemeGroupVersion.WithKind("UpdateOptions").GroupKind(), "", errs))
			return
		}
		obj, err := s.decodeBody(ctx, r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		dryRun := len(opts.DryRun) > 0
		tracked := &trackedUpdate{scope: s, manager: fieldmanager.ManagerName(opts.FieldManager, r.UserAgent()), next: rest.DefaultUpdatedObjectInfo(obj)}
		info := &admittedUpdate{scope: s, name: name, dryRun: dryRun, next: tracked}
		out, created, err := updater.Update(ctx, name, info, s.validateCreate(name, dryRun), s.validateUpdate(name, dryRun), false, opts)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		code := http.StatusOK
		if created {
			code = http.StatusCreated
		}
		s.writeObject(ctx, w, r, code, out, false)
	}
}

// DeleteResource serves DELETE of one object.
func DeleteResource(deleter rest.GracefulDeleter, s *RequestScope) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, name, err := s.requestContext(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		opts, err := s.deleteOptions(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		out, deleted, err := deleter.Delete(ctx, name, s.validateDelete(name, len(opts.DryRun) > 0), opts)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		code := http.StatusOK
		// kube-apiserver answers 202 only for a pending cascading delete
		// asked for with the deprecated orphanDependents=false.
		if !deleted && opts.OrphanDependents != nil && !*opts.OrphanDependents {
			code = http.StatusAccepted
		}
		if st, ok := out.(*metav1.Status); ok && st.Code == 0 {
			st.Code = http.StatusOK
		}
		s.writeObject(ctx, w, r, code, out, false)
	}
}

// DeleteCollection serves DELETE of a collection.
func DeleteCollection(deleter rest.CollectionDeleter, s *RequestScope) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, _, err := s.requestContext(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		listOpts := &metav1.ListOptions{}
		if err := s.decodeParameters(r.URL.Query(), listOpts); err != nil {
			s.writeError(w, r, err)
			return
		}
		opts, err := s.deleteOptions(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		out, err := deleter.DeleteCollection(ctx, s.validateDelete("", len(opts.DryRun) > 0), opts, listOpts)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		s.writeObject(ctx, w, r, http.StatusOK, out, true)
	}
}

// deleteOptions reads DeleteOptions from the body (if any) and the query.
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
	}
	if err := s.decodeParameters(r.URL.Query(), opts); err != nil {
		return nil, err
	}
	if errs := validateDryRun(opts.DryRun); len(errs) > 0 {
		return nil, apierrors.NewInvalid(deleteOptionsGVK.GroupKind(), "", errs)
	}
	return opts, nil
}

var deleteOptionsGVK = metav1.SchemeGroupVersion.WithKind("DeleteOptions")

func validateDryRun(dryRun []string) field.ErrorList {
	var errs field.ErrorList
	for i, d := range dryRun {
		if d != metav1.DryRunAll {
			errs = append(errs, field.NotSupported(field.NewPath("dryRun").Index(i), d, []string{metav1.DryRunAll}))
		}
	}
	return errs
}
