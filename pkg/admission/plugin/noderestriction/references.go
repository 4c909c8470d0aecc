package noderestriction

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// apiObjectReference names the first kind of API object a pod refers to
// (its service account, a secret, a config map, a claim, a volume that
// reads one), "" if it refers to none: a mirror pod, made from a static
// manifest on the node, must not reach objects the node could not
// otherwise read. The names are kube-apiserver's, for its messages. A
// volume or projection of a kind the plugin does not know is an error.
func apiObjectReference(pod *corev1.Pod) (string, error) {
	if pod.Spec.ServiceAccountName != "" {
		return "serviceaccounts", nil
	}
	if visitsSecret(pod) {
		return "secrets", nil
	}
	if visitsConfigMap(pod) {
		return "configmaps", nil
	}
	if len(pod.Spec.ResourceClaims) > 0 {
		return "resourceclaims", nil
	}
	for _, v := range pod.Spec.Volumes {
		switch {
		case v.AWSElasticBlockStore != nil, v.AzureDisk != nil, v.CephFS != nil, v.Cinder != nil,
			v.DownwardAPI != nil, v.EmptyDir != nil, v.FC != nil, v.FlexVolume != nil, v.Flocker != nil, v.GCEPersistentDisk != nil,
			v.GitRepo != nil, v.HostPath != nil, v.Image != nil, v.ISCSI != nil, v.NFS != nil, v.PhotonPersistentDisk != nil,
			v.PortworxVolume != nil, v.Quobyte != nil, v.RBD != nil, v.ScaleIO != nil, v.StorageOS != nil, v.VsphereVolume != nil:
			continue
		case v.ConfigMap != nil:
			return "configmaps (via configmap volumes)", nil
		case v.Secret != nil:
			return "secrets (via secret volumes)", nil
		case v.CSI != nil:
			return "csidrivers (via CSI volumes)", nil
		case v.Glusterfs != nil:
			return "endpoints (via glusterFS volumes)", nil
		case v.PersistentVolumeClaim != nil:
			return "persistentvolumeclaims", nil
		case v.Ephemeral != nil:
			return "persistentvolumeclaims (via ephemeral volumes)", nil
		case v.AzureFile != nil:
			return "secrets (via azureFile volumes)", nil
		case v.Projected != nil:
			for _, s := range v.Projected.Sources {
				switch {
				case s.ConfigMap != nil:
					return "configmaps (via projected volumes)", nil
				case s.Secret != nil:
					return "secrets (via projected volumes)", nil
				case s.ServiceAccountToken != nil:
					return "serviceaccounts (via projected volumes)", nil
				case s.ClusterTrustBundle != nil:
					return "clustertrustbundles", nil
				case s.PodCertificate != nil:
					return "podcertificates", nil
				case s.DownwardAPI != nil:
					continue
				default:
					return "", fmt.Errorf("unknown source for projected volume %q", v.Name)
				}
			}
		default:
			return "", fmt.Errorf("unknown volume type for volume  %q", v.Name)
		}
	}
	return "", nil
}

// allContainers are a pod's containers of every kind.
func allContainers(pod *corev1.Pod) []corev1.Container {
	out := append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...)
	for _, e := range pod.Spec.EphemeralContainers {
		out = append(out, corev1.Container(e.EphemeralContainerCommon))
	}
	return out
}

// visitsSecret says whether the pod names a secret: image pull secrets,
// its containers' environment, or the secret references of its volumes.
func visitsSecret(pod *corev1.Pod) bool {
	for _, s := range pod.Spec.ImagePullSecrets {
		if s.Name != "" {
			return true
		}
	}
	for _, c := range allContainers(pod) {
		for _, e := range c.EnvFrom {
			if e.SecretRef != nil && e.SecretRef.Name != "" {
				return true
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && e.ValueFrom.SecretKeyRef.Name != "" {
				return true
			}
		}
	}
	named := func(r *corev1.LocalObjectReference) bool { return r != nil && r.Name != "" }
	for _, v := range pod.Spec.Volumes {
		switch {
		case v.AzureFile != nil:
			if v.AzureFile.SecretName != "" {
				return true
			}
		case v.CephFS != nil:
			if named(v.CephFS.SecretRef) {
				return true
			}
		case v.Cinder != nil:
			if named(v.Cinder.SecretRef) {
				return true
			}
		case v.FlexVolume != nil:
			if named(v.FlexVolume.SecretRef) {
				return true
			}
		case v.Projected != nil:
			for _, s := range v.Projected.Sources {
				if s.Secret != nil && s.Secret.Name != "" {
					return true
				}
			}
		case v.RBD != nil:
			if named(v.RBD.SecretRef) {
				return true
			}
		case v.Secret != nil:
			if v.Secret.SecretName != "" {
				return true
			}
		case v.ScaleIO != nil:
			if named(v.ScaleIO.SecretRef) {
				return true
			}
		case v.ISCSI != nil:
			if named(v.ISCSI.SecretRef) {
				return true
			}
		case v.StorageOS != nil:
			if v.StorageOS.SecretRef != nil && v.StorageOS.SecretRef.Name != "" {
				return true
			}
		case v.CSI != nil:
			if named(v.CSI.NodePublishSecretRef) {
				return true
			}
		}
	}
	return false
}

// visitsConfigMap says whether the pod names a config map: its
// containers' environment or its volumes.
func visitsConfigMap(pod *corev1.Pod) bool {
	for _, c := range allContainers(pod) {
		for _, e := range c.EnvFrom {
			if e.ConfigMapRef != nil && e.ConfigMapRef.Name != "" {
				return true
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil && e.ValueFrom.ConfigMapKeyRef.Name != "" {
				return true
			}
		}
	}
	for _, v := range pod.Spec.Volumes {
		switch {
		case v.Projected != nil:
			for _, s := range v.Projected.Sources {
				if s.ConfigMap != nil && s.ConfigMap.Name != "" {
					return true
				}
			}
		case v.ConfigMap != nil:
			if v.ConfigMap.Name != "" {
				return true
			}
		}
	}
	return false
}

// parseCSR reads the first PEM block, which must be a CERTIFICATE
// REQUEST.
func parseCSR(data []byte) (*x509.CertificateRequest, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return nil, errors.New("PEM block type must be CERTIFICATE REQUEST")
	}
	return x509.ParseCertificateRequest(block.Bytes)
}
