package core

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Paths shared by most validators.
var (
	metadataPath = field.NewPath("metadata")
	specPath     = field.NewPath("spec")
	statusPath   = field.NewPath("status")
)

// standardFinalizers are the finalizer names that need no domain prefix.
var standardFinalizers = sets.New(string(v1.FinalizerKubernetes), metav1.FinalizerOrphanDependents, metav1.FinalizerDeleteDependents)

// ValidateObjectMeta validates the metadata of a core object on create:
// apimachinery's rules, plus the core rule that a finalizer without a
// domain must be one of the standard finalizers.
func ValidateObjectMeta(meta *metav1.ObjectMeta, namespaced bool, nameFn apivalidation.ValidateNameFunc, fldPath *field.Path) field.ErrorList {
	allErrs := apivalidation.ValidateObjectMeta(meta, namespaced, nameFn, fldPath)
	return append(allErrs, validateStandardFinalizers(meta.Finalizers, fldPath.Child("finalizers"))...)
}

// ValidateObjectMetaUpdate validates the metadata of a core object on
// update: what may not change, and the same finalizer rules as on create.
func ValidateObjectMetaUpdate(newMeta, oldMeta *metav1.ObjectMeta, fldPath *field.Path) field.ErrorList {
	allErrs := apivalidation.ValidateObjectMetaUpdate(newMeta, oldMeta, fldPath)
	return append(allErrs, validateStandardFinalizers(newMeta.Finalizers, fldPath.Child("finalizers"))...)
}

func validateStandardFinalizers(finalizers []string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, name := range finalizers {
		allErrs = append(allErrs, validateStandardFinalizerName(name, fldPath.Index(i))...)
	}
	return allErrs
}

// validateStandardFinalizerName rejects an unqualified finalizer name that
// is not a standard one: anything else must carry a domain prefix.
func validateStandardFinalizerName(name string, fldPath *field.Path) field.ErrorList {
	if !strings.Contains(name, "/") && !standardFinalizers.Has(name) {
		return field.ErrorList{field.Invalid(fldPath, name, "name is neither a standard finalizer name nor is it fully qualified")}
	}
	return nil
}

// validateFinalizerName validates a finalizer listed in a namespace's spec.
func validateFinalizerName(name string, fldPath *field.Path) field.ErrorList {
	allErrs := apivalidation.ValidateFinalizerName(name, fldPath)
	return append(allErrs, validateStandardFinalizerName(name, fldPath)...)
}

// ValidateNamespace validates a Namespace on create.
func ValidateNamespace(ns *v1.Namespace) field.ErrorList {
	allErrs := ValidateObjectMeta(&ns.ObjectMeta, false, apivalidation.ValidateNamespaceName, metadataPath)
	// kube-apiserver reports every spec finalizer at the list's path, without
	// an index; we keep that for compatibility.
	for _, finalizer := range ns.Spec.Finalizers {
		allErrs = append(allErrs, validateFinalizerName(string(finalizer), specPath.Child("finalizers"))...)
	}
	return allErrs
}

// ValidateNamespaceUpdate validates an update of a Namespace. Its spec and
// status are owned by the finalize and status subresources, whose strategy
// keeps them unchanged here, so only the metadata is checked.
func ValidateNamespaceUpdate(newNS, oldNS *v1.Namespace) field.ErrorList {
	return ValidateObjectMetaUpdate(&newNS.ObjectMeta, &oldNS.ObjectMeta, metadataPath)
}

// ValidateNamespaceStatusUpdate validates an update of a Namespace's
// status: the phase must say whether the namespace is being deleted.
func ValidateNamespaceStatusUpdate(newNS, oldNS *v1.Namespace) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&newNS.ObjectMeta, &oldNS.ObjectMeta, metadataPath)
	phasePath := statusPath.Child("Phase")
	if newNS.DeletionTimestamp.IsZero() {
		if newNS.Status.Phase != v1.NamespaceActive {
			allErrs = append(allErrs, field.Invalid(phasePath, newNS.Status.Phase, "may only be 'Active' if `deletionTimestamp` is empty"))
		}
	} else if newNS.Status.Phase != v1.NamespaceTerminating {
		allErrs = append(allErrs, field.Invalid(phasePath, newNS.Status.Phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"))
	}
	return allErrs
}

// ValidateNamespaceFinalizeUpdate validates a PUT to a Namespace's finalize
// subresource, which may only change spec.finalizers.
func ValidateNamespaceFinalizeUpdate(newNS, oldNS *v1.Namespace) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&newNS.ObjectMeta, &oldNS.ObjectMeta, metadataPath)
	finalizersPath := specPath.Child("finalizers")
	for i, finalizer := range newNS.Spec.Finalizers {
		allErrs = append(allErrs, validateFinalizerName(string(finalizer), finalizersPath.Index(i))...)
	}
	return allErrs
}

// immutableMessage is the error of a change to data guarded by `immutable`.
const immutableMessage = "field is immutable when `immutable` is set"

// ValidateConfigMap validates a ConfigMap on create: key names, no key in
// both data and binaryData, and at most 1 MiB of values in total (etcd's
// request size limit leaves no room for more).
func ValidateConfigMap(cm *v1.ConfigMap) field.ErrorList {
	allErrs := ValidateObjectMeta(&cm.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	dataPath, binaryDataPath := field.NewPath("data"), field.NewPath("binaryData")
	totalSize := 0
	for _, key := range sortedKeys(cm.Data) {
		allErrs = append(allErrs, validateDataKey(key, dataPath.Key(key))...)
		if _, dup := cm.BinaryData[key]; dup {
			allErrs = append(allErrs, field.Invalid(dataPath.Key(key), key, "duplicate of key present in binaryData"))
		}
		totalSize += len(cm.Data[key])
	}
	for _, key := range sortedKeys(cm.BinaryData) {
		allErrs = append(allErrs, validateDataKey(key, binaryDataPath.Key(key))...)
		totalSize += len(cm.BinaryData[key])
	}
	if totalSize > v1.MaxSecretSize {
		// The empty path stands for the whole object, which kube-apiserver
		// renders as "[]".
		allErrs = append(allErrs, field.TooLong(field.NewPath(""), "", v1.MaxSecretSize))
	}
	return allErrs
}

// ValidateConfigMapUpdate validates an update of a ConfigMap: an immutable
// ConfigMap keeps its data and stays immutable.
func ValidateConfigMapUpdate(newCM, oldCM *v1.ConfigMap) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&newCM.ObjectMeta, &oldCM.ObjectMeta, metadataPath)
	if isTrue(oldCM.Immutable) {
		if !isTrue(newCM.Immutable) {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("immutable"), immutableMessage))
		}
		if !reflect.DeepEqual(newCM.Data, oldCM.Data) {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("data"), immutableMessage))
		}
		if !reflect.DeepEqual(newCM.BinaryData, oldCM.BinaryData) {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("binaryData"), immutableMessage))
		}
	}
	return append(allErrs, ValidateConfigMap(newCM)...)
}

// ValidateSecret validates a Secret on create: key names, the 1 MiB size
// limit, and the keys each well-known secret type requires.
func ValidateSecret(s *v1.Secret) field.ErrorList {
	allErrs := ValidateObjectMeta(&s.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	dataPath := field.NewPath("data")
	totalSize := 0
	for _, key := range sortedKeys(s.Data) {
		allErrs = append(allErrs, validateDataKey(key, dataPath.Key(key))...)
		totalSize += len(s.Data[key])
	}
	if totalSize > v1.MaxSecretSize {
		allErrs = append(allErrs, field.TooLong(dataPath, "", v1.MaxSecretSize))
	}
	return append(allErrs, validateSecretType(s, dataPath)...)
}

// validateSecretType checks the keys required by the secret's type.
// Unknown types are free-form.
func validateSecretType(s *v1.Secret, dataPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch s.Type {
	case v1.SecretTypeServiceAccountToken:
		// Only the account name is required from the user; the token and
		// the account's uid are filled in later by a controller.
		if s.Annotations[v1.ServiceAccountNameKey] == "" {
			allErrs = append(allErrs, field.Required(metadataPath.Child("annotations").Key(v1.ServiceAccountNameKey), ""))
		}
	case v1.SecretTypeDockercfg:
		allErrs = append(allErrs, validateJSONSecretKey(s.Data, v1.DockerConfigKey, dataPath)...)
	case v1.SecretTypeDockerConfigJson:
		allErrs = append(allErrs, validateJSONSecretKey(s.Data, v1.DockerConfigJsonKey, dataPath)...)
	case v1.SecretTypeBasicAuth:
		// Either key may be empty, but one of them must be present.
		_, hasUser := s.Data[v1.BasicAuthUsernameKey]
		_, hasPassword := s.Data[v1.BasicAuthPasswordKey]
		if !hasUser && !hasPassword {
			allErrs = append(allErrs,
				field.Required(dataPath.Key(v1.BasicAuthUsernameKey), ""),
				field.Required(dataPath.Key(v1.BasicAuthPasswordKey), ""))
		}
	case v1.SecretTypeSSHAuth:
		if len(s.Data[v1.SSHAuthPrivateKey]) == 0 {
			allErrs = append(allErrs, field.Required(dataPath.Key(v1.SSHAuthPrivateKey), ""))
		}
	case v1.SecretTypeTLS:
		for _, key := range []string{v1.TLSCertKey, v1.TLSPrivateKeyKey} {
			if _, ok := s.Data[key]; !ok {
				allErrs = append(allErrs, field.Required(dataPath.Key(key), ""))
			}
		}
	}
	return allErrs
}

// validateJSONSecretKey requires data[key] to be a JSON object, without
// ever echoing the secret's content.
func validateJSONSecretKey(data map[string][]byte, key string, dataPath *field.Path) field.ErrorList {
	value, ok := data[key]
	if !ok {
		return field.ErrorList{field.Required(dataPath.Key(key), "")}
	}
	if err := json.Unmarshal(value, &map[string]any{}); err != nil {
		return field.ErrorList{field.Invalid(dataPath.Key(key), "<secret contents redacted>", err.Error())}
	}
	return nil
}

// ValidateSecretUpdate validates an update of a Secret: its type never
// changes, and an immutable Secret keeps its data and stays immutable.
func ValidateSecretUpdate(newSecret, oldSecret *v1.Secret) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&newSecret.ObjectMeta, &oldSecret.ObjectMeta, metadataPath)
	allErrs = append(allErrs, apivalidation.ValidateImmutableField(newSecret.Type, oldSecret.Type, field.NewPath("type"))...)
	if isTrue(oldSecret.Immutable) {
		if !isTrue(newSecret.Immutable) {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("immutable"), immutableMessage))
		}
		// stringData has been folded into data by defaulting, so comparing
		// data covers it.
		if !reflect.DeepEqual(newSecret.Data, oldSecret.Data) {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("data"), immutableMessage))
		}
	}
	return append(allErrs, ValidateSecret(newSecret)...)
}

// ValidateServiceAccount validates a ServiceAccount on create.
func ValidateServiceAccount(sa *v1.ServiceAccount) field.ErrorList {
	return ValidateObjectMeta(&sa.ObjectMeta, true, apivalidation.ValidateServiceAccountName, metadataPath)
}

// ValidateServiceAccountUpdate validates an update of a ServiceAccount.
func ValidateServiceAccountUpdate(newSA, oldSA *v1.ServiceAccount) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&newSA.ObjectMeta, &oldSA.ObjectMeta, metadataPath)
	return append(allErrs, ValidateServiceAccount(newSA)...)
}

// ValidateBinding validates a Binding posted to a pod's binding
// subresource: it must name its target, which can only be a Node.
func ValidateBinding(b *v1.Binding) field.ErrorList {
	var allErrs field.ErrorList
	targetPath := field.NewPath("target")
	if b.Target.Kind != "" && b.Target.Kind != "Node" {
		allErrs = append(allErrs, field.NotSupported(targetPath.Child("kind"), b.Target.Kind, []string{"Node", "<empty>"}))
	}
	if b.Target.Name == "" {
		allErrs = append(allErrs, field.Required(targetPath.Child("name"), ""))
	}
	return allErrs
}

// validateDataKey validates a key of a ConfigMap or Secret, which becomes a
// file name when the object is mounted.
func validateDataKey(key string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range validation.IsConfigMapKey(key) {
		allErrs = append(allErrs, field.Invalid(fldPath, key, msg))
	}
	return allErrs
}

// Helpers turning apimachinery's string validators into field errors.

func validateDNS1123Label(value string, fldPath *field.Path) field.ErrorList {
	return messagesToErrors(validation.IsDNS1123Label(value), value, fldPath)
}

func validateDNS1123Subdomain(value string, fldPath *field.Path) field.ErrorList {
	return messagesToErrors(validation.IsDNS1123Subdomain(value), value, fldPath)
}

func validateQualifiedName(value string, fldPath *field.Path) field.ErrorList {
	return messagesToErrors(validation.IsQualifiedName(value), value, fldPath)
}

// validateName checks value with one of the object name validators.
func validateName(nameFn apivalidation.ValidateNameFunc, value string, fldPath *field.Path) field.ErrorList {
	return messagesToErrors(nameFn(value, false), value, fldPath)
}

func messagesToErrors(msgs []string, value any, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range msgs {
		allErrs = append(allErrs, field.Invalid(fldPath, value, msg))
	}
	return allErrs
}

// sortedKeys returns the keys of m in order, so that errors about map
// entries come out in a stable order.
func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func isTrue(b *bool) bool { return b != nil && *b }
