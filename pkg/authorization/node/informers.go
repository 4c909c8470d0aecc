package node

import (
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/client-go/tools/cache"
)

// The Add*Handlers functions keep g up to date from an informer of one
// kind of object. Each returns the registration, whose HasSynced says
// when g knows every object the informer listed. Pods give the edges
// node <- pod <- secret, configmap, serviceaccount, pvc, resourceclaim;
// persistent volumes pvc <- pv <- secret; volume attachments, resource
// slices and pod certificate requests node <- object. A graph not fed
// one kind lacks its edges, and those requests get NoOpinion.

// AddPodHandlers feeds g the pods of informer.
func AddPodHandlers(g *Graph, informer cache.SharedInformer) (cache.ResourceEventHandlerRegistration, error) {
	return informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { addPod(g, obj) },
		UpdateFunc: func(_, obj any) { addPod(g, obj) },
		DeleteFunc: func(obj any) {
			if pod, ok := deleted(obj).(*corev1.Pod); ok {
				g.DeletePod(pod.Namespace, pod.Name)
			}
		},
	})
}

func addPod(g *Graph, obj any) {
	if pod, ok := obj.(*corev1.Pod); ok {
		g.AddPod(pod)
	}
}

// AddPVHandlers feeds g the persistent volumes of informer.
func AddPVHandlers(g *Graph, informer cache.SharedInformer) (cache.ResourceEventHandlerRegistration, error) {
	add := func(obj any) {
		if pv, ok := obj.(*corev1.PersistentVolume); ok {
			g.AddPV(pv)
		}
	}
	return informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    add,
		UpdateFunc: func(_, obj any) { add(obj) },
		DeleteFunc: func(obj any) {
			if pv, ok := deleted(obj).(*corev1.PersistentVolume); ok {
				g.DeletePV(pv.Name)
			}
		},
	})
}

// AddVolumeAttachmentHandlers feeds g the volume attachments of informer.
func AddVolumeAttachmentHandlers(g *Graph, informer cache.SharedInformer) (cache.ResourceEventHandlerRegistration, error) {
	add := func(obj any) {
		if va, ok := obj.(*storagev1.VolumeAttachment); ok {
			g.SetVolumeAttachment(va.Name, va.Spec.NodeName)
		}
	}
	return informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    add,
		UpdateFunc: func(_, obj any) { add(obj) },
		DeleteFunc: func(obj any) {
			if va, ok := deleted(obj).(*storagev1.VolumeAttachment); ok {
				g.SetVolumeAttachment(va.Name, "")
			}
		},
	})
}

// AddResourceSliceHandlers feeds g the resource slices of informer.
func AddResourceSliceHandlers(g *Graph, informer cache.SharedInformer) (cache.ResourceEventHandlerRegistration, error) {
	add := func(obj any) {
		if s, ok := obj.(*resourcev1.ResourceSlice); ok && s.Spec.NodeName != nil {
			g.SetResourceSlice(s.Name, *s.Spec.NodeName)
		}
	}
	return informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    add,
		UpdateFunc: func(_, obj any) { add(obj) }, // spec.nodeName is immutable
		DeleteFunc: func(obj any) {
			if s, ok := deleted(obj).(*resourcev1.ResourceSlice); ok {
				g.SetResourceSlice(s.Name, "")
			}
		},
	})
}

// AddPodCertificateRequestHandlers feeds g the pod certificate requests
// of informer.
func AddPodCertificateRequestHandlers(g *Graph, informer cache.SharedInformer) (cache.ResourceEventHandlerRegistration, error) {
	add := func(obj any) {
		if r, ok := obj.(*certificatesv1.PodCertificateRequest); ok {
			g.SetPodCertificateRequest(r.Namespace, r.Name, string(r.Spec.NodeName))
		}
	}
	return informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    add,
		UpdateFunc: func(_, obj any) { add(obj) }, // the spec is immutable
		DeleteFunc: func(obj any) {
			if r, ok := deleted(obj).(*certificatesv1.PodCertificateRequest); ok {
				g.SetPodCertificateRequest(r.Namespace, r.Name, "")
			}
		},
	})
}

// deleted unwraps the last known state of an object deleted while the
// informer was not watching.
func deleted(obj any) any {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return t.Obj
	}
	return obj
}
