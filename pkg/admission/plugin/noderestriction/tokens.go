package noderestriction

import (
	"context"
	"errors"
	"fmt"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// admitServiceAccount lets a kubelet ask for a service account token only
// bound to a pod of its node, and, with
// ServiceAccountNodeAudienceRestriction, only for an audience the pod
// uses (a projected token, a CSI driver's token request) unless the
// authorizer grants the audience.
func (p *Plugin) admitServiceAccount(ctx context.Context, nodeName string, a *admission.Attributes) error {
	if a.Operation != admission.Create || a.Subresource != "token" {
		return nil
	}
	tr, ok := a.Object.(*authenticationv1.TokenRequest)
	if !ok {
		return forbid(a, "unexpected type %T", a.Object)
	}
	ref := tr.Spec.BoundObjectRef
	if ref == nil || ref.APIVersion != "v1" || ref.Kind != "Pod" || ref.Name == "" {
		return forbid(a, "node requested token not bound to a pod")
	}
	if ref.UID == "" {
		return forbid(a, "node requested token with a pod binding without a uid")
	}
	pod, err := p.cfg.Pods.Pods(a.Namespace).Get(ref.Name)
	if apierrors.IsNotFound(err) {
		return err
	}
	if err != nil {
		return admission.NewForbidden(a, err)
	}
	if ref.UID != pod.UID {
		return forbid(a, "the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID)
	}
	if pod.Spec.NodeName != nodeName {
		return forbid(a, "node requested token bound to a pod scheduled on a different node")
	}
	if p.cfg.Features.ServiceAccountNodeAudienceRestriction {
		if err := p.checkAudience(ctx, tr, pod, a); err != nil {
			return admission.NewForbidden(a, err)
		}
	}
	return nil
}

func (p *Plugin) checkAudience(ctx context.Context, tr *authenticationv1.TokenRequest, pod *corev1.Pod, a *admission.Attributes) error {
	var audience string
	switch len(tr.Spec.Audiences) {
	case 0:
	case 1:
		audience = tr.Spec.Audiences[0]
	default:
		return errors.New("node may only request 0 or 1 audiences")
	}
	used, err := p.podUsesAudience(pod, audience)
	if err != nil {
		return fmt.Errorf("error validating audience %q: %w", audience, err)
	}
	if used {
		return nil
	}
	decision, _, err := p.cfg.Authorizer.Authorize(ctx, nodeAttributes(a, "request-serviceaccounts-token-audience", audience, a.Name))
	if decision == authorizer.DecisionAllow {
		return nil
	}
	if err != nil {
		return fmt.Errorf("error authorizing %s to request tokens for audience %q: %w", a.User.GetName(), audience, err)
	}
	return fmt.Errorf("%s is not authorized to request tokens for audience %q", a.User.GetName(), audience)
}

// nodeAttributes is the authorizer's question for a node's request that
// its pod does not justify: a synthetic resource of the write's group.
func nodeAttributes(a *admission.Attributes, verb, resource, name string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{
		User:            a.User,
		Verb:            verb,
		APIGroup:        a.Resource.Group,
		APIVersion:      a.Resource.Version,
		Resource:        resource,
		Namespace:       a.Namespace,
		Name:            name,
		ResourceRequest: true,
	}
}

// podUsesAudience says whether a projected token of the pod, or the CSI
// driver of one of its volumes, asks for audience. Lookups that fail are
// reported only if no volume uses the audience.
func (p *Plugin) podUsesAudience(pod *corev1.Pod, audience string) (bool, error) {
	var errs []error
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		if v.Projected != nil {
			for _, s := range v.Projected.Sources {
				if s.ServiceAccountToken != nil && s.ServiceAccountToken.Audience == audience {
					return true, nil
				}
			}
		}
		var driver string
		var err error
		switch {
		case v.Ephemeral != nil && v.Ephemeral.VolumeClaimTemplate != nil:
			driver, err = p.claimDriver(pod.Namespace, pod.Name+"-"+v.Name)
		case v.PersistentVolumeClaim != nil:
			driver, err = p.claimDriver(pod.Namespace, v.PersistentVolumeClaim.ClaimName)
		case v.CSI != nil:
			driver = v.CSI.Driver
		default:
			driver = inlineMigratedDriver(v)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if driver == "" {
			continue
		}
		has, err := p.driverHasAudience(driver, audience)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if has {
			return true, nil
		}
	}
	return false, utilerrors.NewAggregate(errs)
}

// claimDriver is the CSI driver of a claim's volume: the volume's own,
// or that of the CSI driver an in-tree volume migrated to.
func (p *Plugin) claimDriver(namespace, claim string) (string, error) {
	pvc, err := p.cfg.PVCs.PersistentVolumeClaims(namespace).Get(claim)
	if err != nil {
		return "", err
	}
	pv, err := p.cfg.PVs.Get(pvc.Spec.VolumeName)
	if err != nil {
		return "", err
	}
	if pv.Spec.CSI != nil {
		return pv.Spec.CSI.Driver, nil
	}
	return migratedDriver(&pv.Spec.PersistentVolumeSource), nil
}

func (p *Plugin) driverHasAudience(driver, audience string) (bool, error) {
	d, err := p.cfg.CSIDrivers.Get(driver)
	if err != nil {
		return false, err
	}
	for _, r := range d.Spec.TokenRequests {
		if r.Audience == audience {
			return true, nil
		}
	}
	return false, nil
}

// migratedDriver is the CSI driver an in-tree persistent volume migrated
// to, as csi-translation-lib names them; "" for none.
func migratedDriver(src *corev1.PersistentVolumeSource) string {
	switch {
	case src.AWSElasticBlockStore != nil:
		return "ebs.csi.aws.com"
	case src.GCEPersistentDisk != nil:
		return "pd.csi.storage.gke.io"
	case src.AzureDisk != nil:
		return "disk.csi.azure.com"
	case src.AzureFile != nil:
		return "file.csi.azure.com"
	case src.Cinder != nil:
		return "cinder.csi.openstack.org"
	case src.VsphereVolume != nil:
		return "csi.vsphere.vmware.com"
	case src.PortworxVolume != nil:
		return "pxd.portworx.com"
	}
	return ""
}

// inlineMigratedDriver is the CSI driver an in-tree inline volume
// migrated to; "" for none.
func inlineMigratedDriver(v *corev1.Volume) string {
	switch {
	case v.AWSElasticBlockStore != nil:
		return "ebs.csi.aws.com"
	case v.GCEPersistentDisk != nil:
		return "pd.csi.storage.gke.io"
	case v.AzureDisk != nil:
		return "disk.csi.azure.com"
	case v.AzureFile != nil:
		return "file.csi.azure.com"
	case v.Cinder != nil:
		return "cinder.csi.openstack.org"
	case v.VsphereVolume != nil:
		return "csi.vsphere.vmware.com"
	case v.PortworxVolume != nil:
		return "pxd.portworx.com"
	}
	return ""
}

// admitPodCertificateRequest lets a kubelet ask for a certificate only
// for a pod of its node, whose node, pod and service account UIDs the
// request names rightly, and for a signer the pod mounts (or the
// authorizer grants).
func (p *Plugin) admitPodCertificateRequest(ctx context.Context, nodeName string, a *admission.Attributes) error {
	if !p.cfg.Features.PodCertificateRequest {
		return forbid(a, "PodCertificateRequest feature gate is disabled")
	}
	if a.Operation != admission.Create {
		return forbid(a, "unexpected operation %v", a.Operation)
	}
	if a.Subresource != "" {
		return forbid(a, "unexpected subresource %v", a.Subresource)
	}
	req, ok := a.Object.(*certificatesv1.PodCertificateRequest)
	if !ok {
		return forbid(a, "unexpected type %T", a.Object)
	}
	ns := a.Namespace
	podRef := ns + "/" + req.Spec.PodName
	if string(req.Spec.NodeName) != nodeName {
		return forbid(a, "PodCertificateRequest.Spec.NodeName=%q, which is not the requesting node %q", req.Spec.NodeName, nodeName)
	}
	node, err := p.cfg.Nodes.Get(string(req.Spec.NodeName))
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("while retrieving node %q named in the PodCertificateRequest: %w", req.Spec.NodeName, err)
	}
	if err != nil {
		return forbid(a, "while retrieving node %q named in the PodCertificateRequest: %w", req.Spec.NodeName, err)
	}
	if node.UID != req.Spec.NodeUID {
		return fmt.Errorf("PodCertificateRequest for pod %q names node UID %q, inconsistent with the running node (%q)", podRef, req.Spec.NodeUID, node.UID)
	}
	pod, err := p.cfg.Pods.Pods(ns).Get(req.Spec.PodName)
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("while retrieving pod %q named in the PodCertificateRequest: %w", podRef, err)
	}
	if err != nil {
		return forbid(a, "while retrieving pod %q named in the PodCertificateRequest: %w", podRef, err)
	}
	if req.Spec.PodUID != pod.UID {
		return fmt.Errorf("PodCertificateRequest for pod %q contains pod UID (%q) which differs from running pod %q", podRef, req.Spec.PodUID, string(pod.UID))
	}
	if pod.Spec.NodeName != string(req.Spec.NodeName) {
		return forbid(a, "pod %q is not running on node %q named in the PodCertificateRequest", podRef, req.Spec.NodeName)
	}
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return forbid(a, "pod %q is a mirror pod", podRef)
	}
	if req.Spec.ServiceAccountName != pod.Spec.ServiceAccountName {
		return forbid(a, "PodCertificateRequest for pod %q contains serviceAccountName (%q) that differs from running pod (%q)", podRef, req.Spec.ServiceAccountName, pod.Spec.ServiceAccountName)
	}
	sa, err := p.cfg.ServiceAccounts.ServiceAccounts(ns).Get(req.Spec.ServiceAccountName)
	saRef := ns + "/" + req.Spec.ServiceAccountName
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("while retrieving service account %q named in the PodCertificateRequest: %w", saRef, err)
	}
	if err != nil {
		return forbid(a, "while retrieving service account %q named in the PodCertificateRequest: %w", saRef, err)
	}
	if req.Spec.ServiceAccountUID != sa.UID {
		return fmt.Errorf("PodCertificateRequest for pod %q names service account UID %q, which differs from the running service account (%q)", podRef, req.Spec.ServiceAccountUID, sa.UID)
	}
	if mountsSigner(pod, req.Spec.SignerName) {
		return nil
	}
	attrs := nodeAttributes(a, "request-serviceaccounts-podcertificate-signer", strings.ReplaceAll(req.Spec.SignerName, "/", ":"), req.Spec.ServiceAccountName)
	decision, _, err := p.cfg.Authorizer.Authorize(ctx, attrs)
	switch {
	case decision == authorizer.DecisionAllow:
		return nil
	case err != nil:
		return forbid(a, "error authorizing %s to request podcertificaterequests for signer %q: %w", a.User.GetName(), req.Spec.SignerName, err)
	}
	return forbid(a, "pod %q does not mount a podCertificate projected volume for signer %q", podRef, req.Spec.SignerName)
}

func mountsSigner(pod *corev1.Pod, signer string) bool {
	for _, v := range pod.Spec.Volumes {
		if v.Projected == nil {
			continue
		}
		for _, s := range v.Projected.Sources {
			if s.PodCertificate != nil && s.PodCertificate.SignerName == signer {
				return true
			}
		}
	}
	return false
}
