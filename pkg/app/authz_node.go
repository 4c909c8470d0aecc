package app

import (
	"fmt"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/authorization/node"
	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/controlplane"
)

// buildNodeAuthorizer is the Node authorizer of --authorization-mode,
// its graph fed by the loopback informers (which the server waits for
// before it is ready): pods, and the persistent volumes, volume
// attachments, resource slices and pod certificate requests that
// kube-apiserver's graph also holds.
//
// An informer of a group version that --runtime-config switches off
// would never sync, and the server would never be ready: such a kind is
// left out of the graph, and a node cannot reach its objects (which are
// not served anyway). kube-apiserver decides by feature gates instead.
func buildNodeAuthorizer(f *client.Informers, runtimeConfig controlplane.RuntimeConfig) (authorizer.Authorizer, error) {
	rc, err := controlplane.ParseRuntimeConfig(runtimeConfig)
	if err != nil {
		return nil, fmt.Errorf("node authorizer: %w", err)
	}
	graph := node.NewGraph()
	for _, feed := range []struct {
		gv       schema.GroupVersion
		informer func() cache.SharedIndexInformer
		handlers func(*node.Graph, cache.SharedInformer) (cache.ResourceEventHandlerRegistration, error)
	}{
		{corev1.SchemeGroupVersion, func() cache.SharedIndexInformer {
			return client.InformerFor[*corev1.Pod, *corev1.PodList](f, "pods")
		}, node.AddPodHandlers},
		{corev1.SchemeGroupVersion, func() cache.SharedIndexInformer {
			return client.InformerFor[*corev1.PersistentVolume, *corev1.PersistentVolumeList](f, "persistentvolumes")
		}, node.AddPVHandlers},
		{storagev1.SchemeGroupVersion, func() cache.SharedIndexInformer {
			return client.InformerFor[*storagev1.VolumeAttachment, *storagev1.VolumeAttachmentList](f, "volumeattachments")
		}, node.AddVolumeAttachmentHandlers},
		{resourcev1.SchemeGroupVersion, func() cache.SharedIndexInformer {
			return client.InformerFor[*resourcev1.ResourceSlice, *resourcev1.ResourceSliceList](f, "resourceslices")
		}, node.AddResourceSliceHandlers},
		{certificatesv1.SchemeGroupVersion, func() cache.SharedIndexInformer {
			return client.InformerFor[*certificatesv1.PodCertificateRequest, *certificatesv1.PodCertificateRequestList](f, "podcertificaterequests")
		}, node.AddPodCertificateRequestHandlers},
	} {
		if !rc.Enabled(feed.gv) {
			continue
		}
		if _, err := feed.handlers(graph, feed.informer()); err != nil {
			return nil, fmt.Errorf("node authorizer: %w", err)
		}
	}
	return node.New(graph, node.NodeRules(), node.DefaultFeatures()), nil
}
