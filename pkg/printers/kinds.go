package printers

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// builtinKinds lists the kinds with a printer of their own.
func builtinKinds() []kind {
	return []kind{
		// core/v1
		newKind(&corev1.Pod{}, &corev1.PodList{}, podColumns, rowOf(printPod)),
		newKind(&corev1.Namespace{}, &corev1.NamespaceList{}, namespaceColumns, cellsOf(printNamespace)),
		newKind(&corev1.ConfigMap{}, &corev1.ConfigMapList{}, configMapColumns, cellsOf(printConfigMap)),
		newKind(&corev1.Secret{}, &corev1.SecretList{}, secretColumns, cellsOf(printSecret)),
		newKind(&corev1.ServiceAccount{}, &corev1.ServiceAccountList{}, serviceAccountColumns, cellsOf(printServiceAccount)),
		newKind(&corev1.Service{}, &corev1.ServiceList{}, serviceColumns, cellsOf(printService)),
		newKind(&corev1.Endpoints{}, &corev1.EndpointsList{}, endpointsColumns, cellsOf(printEndpoints)),
		newKind(&corev1.Node{}, &corev1.NodeList{}, nodeColumns, cellsOf(printNode)),
		newKind(&corev1.Event{}, &corev1.EventList{}, eventColumns, cellsOf(printCoreEvent)),
		newKind(&corev1.ReplicationController{}, &corev1.ReplicationControllerList{}, replicationControllerColumns, cellsOf(printReplicationController)),
		newKind(&corev1.PodTemplate{}, &corev1.PodTemplateList{}, podTemplateColumns, cellsOf(printPodTemplate)),
		newKind(&corev1.ResourceQuota{}, &corev1.ResourceQuotaList{}, resourceQuotaColumns, cellsOf(printResourceQuota)),
		newKind(&corev1.PersistentVolume{}, &corev1.PersistentVolumeList{}, persistentVolumeColumns, cellsOf(printPersistentVolume)),
		newKind(&corev1.PersistentVolumeClaim{}, &corev1.PersistentVolumeClaimList{}, persistentVolumeClaimColumns, cellsOf(printPersistentVolumeClaim)),
		newKind(&corev1.ComponentStatus{}, &corev1.ComponentStatusList{}, componentStatusColumns, cellsOf(printComponentStatus)),

		// apps/v1
		newKind(&appsv1.Deployment{}, &appsv1.DeploymentList{}, deploymentColumns, cellsOf(printDeployment)),
		newKind(&appsv1.ReplicaSet{}, &appsv1.ReplicaSetList{}, replicaSetColumns, cellsOf(printReplicaSet)),
		newKind(&appsv1.StatefulSet{}, &appsv1.StatefulSetList{}, statefulSetColumns, cellsOf(printStatefulSet)),
		newKind(&appsv1.DaemonSet{}, &appsv1.DaemonSetList{}, daemonSetColumns, cellsOf(printDaemonSet)),
		newKind(&appsv1.ControllerRevision{}, &appsv1.ControllerRevisionList{}, controllerRevisionColumns, fallibleCellsOf(printControllerRevision)),

		// batch/v1
		newKind(&batchv1.Job{}, &batchv1.JobList{}, jobColumns, cellsOf(printJob)),
		newKind(&batchv1.CronJob{}, &batchv1.CronJobList{}, cronJobColumns, cellsOf(printCronJob)),

		// autoscaling/v1: the scale subresource has no list.
		newKind(&autoscalingv1.Scale{}, nil, scaleColumns, cellsOf(printScale)),
		// autoscaling/v2, the stored form of both versions of HPAs.
		newKind(&autoscalingv2.HorizontalPodAutoscaler{}, &autoscalingv2.HorizontalPodAutoscalerList{}, horizontalPodAutoscalerColumns, cellsOf(printHorizontalPodAutoscaler)),

		// coordination.k8s.io/v1
		newKind(&coordinationv1.Lease{}, &coordinationv1.LeaseList{}, leaseColumns, cellsOf(printLease)),

		// events.k8s.io/v1
		newKind(&eventsv1.Event{}, &eventsv1.EventList{}, eventColumns, cellsOf(printEventsEvent)),

		// rbac.authorization.k8s.io/v1
		newKind(&rbacv1.RoleBinding{}, &rbacv1.RoleBindingList{}, roleBindingColumns, cellsOf(printRoleBinding)),
		newKind(&rbacv1.ClusterRoleBinding{}, &rbacv1.ClusterRoleBindingList{}, clusterRoleBindingColumns, cellsOf(printClusterRoleBinding)),

		// flowcontrol.apiserver.k8s.io/v1
		ordered(newKind(&flowcontrolv1.FlowSchema{}, &flowcontrolv1.FlowSchemaList{}, flowSchemaColumns, cellsOf(printFlowSchema)), flowSchemaOrder),
		newKind(&flowcontrolv1.PriorityLevelConfiguration{}, &flowcontrolv1.PriorityLevelConfigurationList{}, priorityLevelColumns, cellsOf(printPriorityLevel)),

		// apiregistration.k8s.io/v1
		newKind(&apiregistrationv1.APIService{}, &apiregistrationv1.APIServiceList{}, apiServiceColumns, cellsOf(printAPIService)),

		// node.k8s.io/v1
		newKind(&nodev1.RuntimeClass{}, &nodev1.RuntimeClassList{}, runtimeClassColumns, cellsOf(printRuntimeClass)),
		// resource.k8s.io/v1, storagemigration.k8s.io/v1
		newKind(&resourcev1.DeviceClass{}, &resourcev1.DeviceClassList{}, deviceClassColumns, cellsOf(printDeviceClass)),
		newKind(&resourcev1.DeviceTaintRule{}, &resourcev1.DeviceTaintRuleList{}, deviceTaintRuleColumns, cellsOf(printDeviceTaintRule)),
		newKind(&resourcev1.ResourceClaim{}, &resourcev1.ResourceClaimList{}, resourceClaimColumns, cellsOf(printResourceClaim)),
		newKind(&resourcev1.ResourceClaimTemplate{}, &resourcev1.ResourceClaimTemplateList{}, resourceClaimTemplateColumns, cellsOf(printResourceClaimTemplate)),
		newKind(&resourcev1.ResourceSlice{}, &resourcev1.ResourceSliceList{}, resourceSliceColumns, cellsOf(printResourceSlice)),
		newKind(&storagemigrationv1.StorageVersionMigration{}, &storagemigrationv1.StorageVersionMigrationList{}, storageVersionMigrationColumns, cellsOf(printStorageVersionMigration)),

		// scheduling.k8s.io/v1, policy/v1
		newKind(&schedulingv1.PriorityClass{}, &schedulingv1.PriorityClassList{}, priorityClassColumns, cellsOf(printPriorityClass)),
		newKind(&policyv1.PodDisruptionBudget{}, &policyv1.PodDisruptionBudgetList{}, podDisruptionBudgetColumns, cellsOf(printPodDisruptionBudget)),

		// networking.k8s.io/v1, discovery.k8s.io/v1
		newKind(&networkingv1.Ingress{}, &networkingv1.IngressList{}, ingressColumns, cellsOf(printIngress)),
		newKind(&networkingv1.IngressClass{}, &networkingv1.IngressClassList{}, ingressClassColumns, cellsOf(printIngressClass)),
		newKind(&networkingv1.NetworkPolicy{}, &networkingv1.NetworkPolicyList{}, networkPolicyColumns, cellsOf(printNetworkPolicy)),
		newKind(&networkingv1.ServiceCIDR{}, &networkingv1.ServiceCIDRList{}, serviceCIDRColumns, cellsOf(printServiceCIDR)),
		newKind(&networkingv1.IPAddress{}, &networkingv1.IPAddressList{}, ipAddressColumns, cellsOf(printIPAddress)),
		newKind(&discoveryv1.EndpointSlice{}, &discoveryv1.EndpointSliceList{}, endpointSliceColumns, cellsOf(printEndpointSlice)),

		// storage.k8s.io/v1
		newKind(&storagev1.StorageClass{}, &storagev1.StorageClassList{}, storageClassColumns, cellsOf(printStorageClass)),
		newKind(&storagev1.CSIDriver{}, &storagev1.CSIDriverList{}, csiDriverColumns, cellsOf(printCSIDriver)),
		newKind(&storagev1.CSINode{}, &storagev1.CSINodeList{}, csiNodeColumns, cellsOf(printCSINode)),
		newKind(&storagev1.VolumeAttachment{}, &storagev1.VolumeAttachmentList{}, volumeAttachmentColumns, cellsOf(printVolumeAttachment)),
		newKind(&storagev1.VolumeAttributesClass{}, &storagev1.VolumeAttributesClassList{}, volumeAttributesClassColumns, cellsOf(printVolumeAttributesClass)),

		// admissionregistration.k8s.io/v1, certificates.k8s.io/v1
		newKind(&admissionregistrationv1.MutatingWebhookConfiguration{}, &admissionregistrationv1.MutatingWebhookConfigurationList{}, webhookConfigurationColumns, cellsOf(printMutatingWebhookConfiguration)),
		newKind(&admissionregistrationv1.ValidatingWebhookConfiguration{}, &admissionregistrationv1.ValidatingWebhookConfigurationList{}, webhookConfigurationColumns, cellsOf(printValidatingWebhookConfiguration)),
		newKind(&admissionregistrationv1.ValidatingAdmissionPolicy{}, &admissionregistrationv1.ValidatingAdmissionPolicyList{}, validatingAdmissionPolicyColumns, cellsOf(printValidatingAdmissionPolicy)),
		newKind(&admissionregistrationv1.ValidatingAdmissionPolicyBinding{}, &admissionregistrationv1.ValidatingAdmissionPolicyBindingList{}, admissionPolicyBindingColumns, cellsOf(printValidatingAdmissionPolicyBinding)),
		newKind(&admissionregistrationv1.MutatingAdmissionPolicy{}, &admissionregistrationv1.MutatingAdmissionPolicyList{}, mutatingAdmissionPolicyColumns, cellsOf(printMutatingAdmissionPolicy)),
		newKind(&admissionregistrationv1.MutatingAdmissionPolicyBinding{}, &admissionregistrationv1.MutatingAdmissionPolicyBindingList{}, admissionPolicyBindingColumns, cellsOf(printMutatingAdmissionPolicyBinding)),
		newKind(&certificatesv1.CertificateSigningRequest{}, &certificatesv1.CertificateSigningRequestList{}, certificateSigningRequestColumns, cellsOf(printCertificateSigningRequest)),
		newKind(&certificatesv1.ClusterTrustBundle{}, &certificatesv1.ClusterTrustBundleList{}, clusterTrustBundleColumns, cellsOf(printClusterTrustBundle)),
		newKind(&certificatesv1.PodCertificateRequest{}, &certificatesv1.PodCertificateRequestList{}, podCertificateRequestColumns, cellsOf(printPodCertificateRequest)),
	}
}
