package autoregister

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// WatchCRDs keeps an APIService for every group version a CRD of
// informer serves, except those of builtIn (a CRD cannot take a built-in
// group version's APIService). The returned registration has synced once
// every CRD of the informer's initial list has been seen: the controller
// should not run before, or it would delete the stored APIServices of
// CRDs not yet seen.
func (c *Controller) WatchCRDs(informer cache.SharedIndexInformer, builtIn func(schema.GroupVersion) bool) (cache.ResourceEventHandlerRegistration, error) {
	w := &crdWatch{c: c, crds: informer.GetIndexer(), builtIn: builtIn}
	return informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { w.changed(obj) },
		UpdateFunc: func(old, obj any) { w.changed(old, obj) },
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			w.changed(obj)
		},
	})
}

type crdWatch struct {
	c       *Controller
	crds    cache.Indexer
	builtIn func(schema.GroupVersion) bool
}

// changed syncs the group versions of the CRDs objs, before and after a
// change.
func (w *crdWatch) changed(objs ...any) {
	gvs := map[schema.GroupVersion]bool{}
	for _, obj := range objs {
		crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
		if !ok {
			continue
		}
		for _, v := range crd.Spec.Versions {
			gvs[schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name}] = true
		}
	}
	for gv := range gvs {
		w.sync(gv)
	}
}

// sync wants the APIService of gv if a CRD serves gv, and not otherwise.
func (w *crdWatch) sync(gv schema.GroupVersion) {
	if w.builtIn(gv) {
		return
	}
	if w.served(gv) {
		w.c.Sync(local(gv, crdGroupPriorityMinimum, crdVersionPriority))
		return
	}
	w.c.Remove(Name(gv))
}

// served says whether any CRD of the informer serves gv.
func (w *crdWatch) served(gv schema.GroupVersion) bool {
	for _, obj := range w.crds.List() {
		crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
		if !ok || crd.Spec.Group != gv.Group {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Name == gv.Version && v.Served {
				return true
			}
		}
	}
	return false
}
