package serviceaccount

import corev1 "k8s.io/api/core/v1"

// secretNames are the secrets a pod references, wherever it may: image
// pulls, the environments of all its containers, and its volumes.
func secretNames(pod *corev1.Pod) []string {
	var names []string
	add := func(name string) {
		if name != "" {
			names = append(names, name)
		}
	}
	addRef := func(ref *corev1.LocalObjectReference) {
		if ref != nil {
			add(ref.Name)
		}
	}
	for _, s := range pod.Spec.ImagePullSecrets {
		add(s.Name)
	}
	env := func(env []corev1.EnvVar, envFrom []corev1.EnvFromSource) {
		for _, e := range envFrom {
			if e.SecretRef != nil {
				add(e.SecretRef.Name)
			}
		}
		for _, e := range env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				add(e.ValueFrom.SecretKeyRef.Name)
			}
		}
	}
	for _, c := range pod.Spec.InitContainers {
		env(c.Env, c.EnvFrom)
	}
	for _, c := range pod.Spec.Containers {
		env(c.Env, c.EnvFrom)
	}
	for _, c := range pod.Spec.EphemeralContainers {
		env(c.Env, c.EnvFrom)
	}
	for _, v := range pod.Spec.Volumes {
		switch {
		case v.AzureFile != nil:
			add(v.AzureFile.SecretName)
		case v.CephFS != nil:
			addRef(v.CephFS.SecretRef)
		case v.Cinder != nil:
			addRef(v.Cinder.SecretRef)
		case v.FlexVolume != nil:
			addRef(v.FlexVolume.SecretRef)
		case v.Projected != nil:
			for _, s := range v.Projected.Sources {
				if s.Secret != nil {
					add(s.Secret.Name)
				}
			}
		case v.RBD != nil:
			addRef(v.RBD.SecretRef)
		case v.Secret != nil:
			add(v.Secret.SecretName)
		case v.ScaleIO != nil:
			addRef(v.ScaleIO.SecretRef)
		case v.ISCSI != nil:
			addRef(v.ISCSI.SecretRef)
		case v.StorageOS != nil:
			addRef(v.StorageOS.SecretRef)
		case v.CSI != nil:
			addRef(v.CSI.NodePublishSecretRef)
		}
	}
	return names
}
