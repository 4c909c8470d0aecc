package node

import (
	corev1 "k8s.io/api/core/v1"
)

// podReferences lists, without duplicates, the objects a pod needs on its
// node: the secrets and configmaps its containers and volumes read, its
// service account (for tokens), its persistent volume claims (ephemeral
// ones included) and its resource claims. These are the references the
// kubelet resolves, as kube-apiserver's node authorizer counts them.
func podReferences(pod *corev1.Pod) []ref {
	seen := map[ref]bool{}
	var out []ref
	add := func(k kind, name string) {
		if name == "" {
			return
		}
		r := ref{k, pod.Namespace, name}
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}

	add(kindServiceAccount, pod.Spec.ServiceAccountName)
	for _, s := range pod.Spec.ImagePullSecrets {
		add(kindSecret, s.Name)
	}
	visit := func(envFrom []corev1.EnvFromSource, env []corev1.EnvVar) {
		for _, e := range envFrom {
			if e.SecretRef != nil {
				add(kindSecret, e.SecretRef.Name)
			}
			if e.ConfigMapRef != nil {
				add(kindConfigMap, e.ConfigMapRef.Name)
			}
		}
		for _, e := range env {
			if e.ValueFrom == nil {
				continue
			}
			if e.ValueFrom.SecretKeyRef != nil {
				add(kindSecret, e.ValueFrom.SecretKeyRef.Name)
			}
			if e.ValueFrom.ConfigMapKeyRef != nil {
				add(kindConfigMap, e.ValueFrom.ConfigMapKeyRef.Name)
			}
		}
	}
	for _, c := range pod.Spec.InitContainers {
		visit(c.EnvFrom, c.Env)
	}
	for _, c := range pod.Spec.Containers {
		visit(c.EnvFrom, c.Env)
	}
	for _, c := range pod.Spec.EphemeralContainers {
		visit(c.EnvFrom, c.Env)
	}

	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		volumeReferences(&v.VolumeSource, add)
		switch {
		case v.PersistentVolumeClaim != nil:
			add(kindPVC, v.PersistentVolumeClaim.ClaimName)
		case v.Ephemeral != nil:
			// The claim the ephemeral volume controller creates.
			add(kindPVC, pod.Name+"-"+v.Name)
		}
	}

	for _, c := range pod.Spec.ResourceClaims {
		switch {
		case c.ResourceClaimName != nil:
			add(kindResourceClaim, *c.ResourceClaimName)
		case c.ResourceClaimTemplateName != nil:
			// The claim made from the template, once it is made.
			for _, st := range pod.Status.ResourceClaimStatuses {
				if st.Name == c.Name && st.ResourceClaimName != nil {
					add(kindResourceClaim, *st.ResourceClaimName)
				}
			}
		}
	}
	if st := pod.Status.ExtendedResourceClaimStatus; st != nil {
		add(kindResourceClaim, st.ResourceClaimName)
	}
	return out
}

// volumeReferences reports the secrets and configmaps one volume source
// reads. A source has one kind; the first that is set counts.
func volumeReferences(s *corev1.VolumeSource, add func(kind, string)) {
	switch {
	case s.AzureFile != nil:
		add(kindSecret, s.AzureFile.SecretName)
	case s.CephFS != nil:
		if s.CephFS.SecretRef != nil {
			add(kindSecret, s.CephFS.SecretRef.Name)
		}
	case s.Cinder != nil:
		if s.Cinder.SecretRef != nil {
			add(kindSecret, s.Cinder.SecretRef.Name)
		}
	case s.FlexVolume != nil:
		if s.FlexVolume.SecretRef != nil {
			add(kindSecret, s.FlexVolume.SecretRef.Name)
		}
	case s.Projected != nil:
		for _, p := range s.Projected.Sources {
			if p.Secret != nil {
				add(kindSecret, p.Secret.Name)
			}
			if p.ConfigMap != nil {
				add(kindConfigMap, p.ConfigMap.Name)
			}
		}
	case s.RBD != nil:
		if s.RBD.SecretRef != nil {
			add(kindSecret, s.RBD.SecretRef.Name)
		}
	case s.Secret != nil:
		add(kindSecret, s.Secret.SecretName)
	case s.ConfigMap != nil:
		add(kindConfigMap, s.ConfigMap.Name)
	case s.ScaleIO != nil:
		if s.ScaleIO.SecretRef != nil {
			add(kindSecret, s.ScaleIO.SecretRef.Name)
		}
	case s.ISCSI != nil:
		if s.ISCSI.SecretRef != nil {
			add(kindSecret, s.ISCSI.SecretRef.Name)
		}
	case s.StorageOS != nil:
		if s.StorageOS.SecretRef != nil {
			add(kindSecret, s.StorageOS.SecretRef.Name)
		}
	case s.CSI != nil:
		if s.CSI.NodePublishSecretRef != nil {
			add(kindSecret, s.CSI.NodePublishSecretRef.Name)
		}
	}
}

// pvKubeletSecrets lists the secrets the kubelet reads to mount pv (not
// those only the controllers read, such as a CSI controller-publish
// secret). A secret without a namespace of its own is in the claim's.
func pvKubeletSecrets(pv *corev1.PersistentVolume) []ref {
	var out []ref
	claimNS := ""
	if pv.Spec.ClaimRef != nil {
		claimNS = pv.Spec.ClaimRef.Namespace
	}
	add := func(namespace, name string) {
		if name != "" {
			out = append(out, ref{kindSecret, namespace, name})
		}
	}
	inClaimNS := func(r *corev1.SecretReference) {
		if r == nil {
			return
		}
		ns := claimNS
		if r.Namespace != "" {
			ns = r.Namespace
		}
		add(ns, r.Name)
	}
	s := &pv.Spec.PersistentVolumeSource
	switch {
	case s.AzureFile != nil:
		ns := claimNS
		if s.AzureFile.SecretNamespace != nil && *s.AzureFile.SecretNamespace != "" {
			ns = *s.AzureFile.SecretNamespace
		}
		add(ns, s.AzureFile.SecretName)
	case s.CephFS != nil:
		inClaimNS(s.CephFS.SecretRef)
	case s.Cinder != nil:
		if s.Cinder.SecretRef != nil {
			add(s.Cinder.SecretRef.Namespace, s.Cinder.SecretRef.Name)
		}
	case s.FlexVolume != nil:
		inClaimNS(s.FlexVolume.SecretRef)
	case s.RBD != nil:
		inClaimNS(s.RBD.SecretRef)
	case s.ScaleIO != nil:
		inClaimNS(s.ScaleIO.SecretRef)
	case s.ISCSI != nil:
		inClaimNS(s.ISCSI.SecretRef)
	case s.StorageOS != nil:
		if s.StorageOS.SecretRef != nil {
			add(s.StorageOS.SecretRef.Namespace, s.StorageOS.SecretRef.Name)
		}
	case s.CSI != nil:
		for _, r := range []*corev1.SecretReference{s.CSI.NodePublishSecretRef, s.CSI.NodeStageSecretRef, s.CSI.NodeExpandSecretRef} {
			if r != nil {
				add(r.Namespace, r.Name)
			}
		}
	}
	return out
}
