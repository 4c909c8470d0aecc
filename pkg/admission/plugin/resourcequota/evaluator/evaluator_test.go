package evaluator

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// list parses "name=quantity,..." into a resource list.
func list(s string) corev1.ResourceList {
	out := corev1.ResourceList{}
	if s == "" {
		return out
	}
	for _, kv := range strings.Split(s, ",") {
		name, q, _ := strings.Cut(kv, "=")
		out[corev1.ResourceName(name)] = resource.MustParse(q)
	}
	return out
}

func container(name, requests, limits string) corev1.Container {
	c := corev1.Container{Name: name, Image: "i"}
	if requests != "" {
		c.Resources.Requests = list(requests)
	}
	if limits != "" {
		c.Resources.Limits = list(limits)
	}
	return c
}

var now = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// What a pod uses, as kube-apiserver 1.37's pod evaluator measures it
// (the cases of k8s.io/kubernetes' pods_test.go, restated).
func TestPodUsage(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	cases := map[string]struct {
		pod  corev1.Pod
		want string
	}{
		"requests and limits under requests., limits. and the bare names": {
			pod:  corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("a", "cpu=1m,memory=1Mi,ephemeral-storage=32Mi", "cpu=2m,memory=2Mi,ephemeral-storage=64Mi")}}},
			want: "count/pods=1,pods=1,cpu=1m,requests.cpu=1m,limits.cpu=2m,memory=1Mi,requests.memory=1Mi,limits.memory=2Mi,ephemeral-storage=32Mi,requests.ephemeral-storage=32Mi,limits.ephemeral-storage=64Mi",
		},
		"hugepages under both names, extended resources and device classes as requests.": {
			pod:  corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("a", "hugepages-2Mi=100Mi,example.com/dongle=3,deviceclass.resource.kubernetes.io/gpu=2", "hugepages-2Mi=100Mi,example.com/dongle=3,deviceclass.resource.kubernetes.io/gpu=2")}}},
			want: "count/pods=1,pods=1,hugepages-2Mi=100Mi,requests.hugepages-2Mi=100Mi,requests.example.com/dongle=3,requests.deviceclass.resource.kubernetes.io/gpu=2",
		},
		"containers add up; an init container counts if it is larger": {
			pod: corev1.Pod{Spec: corev1.PodSpec{
				InitContainers: []corev1.Container{container("init", "cpu=300m", "cpu=1")},
				Containers:     []corev1.Container{container("a", "cpu=100m", "cpu=100m"), container("b", "cpu=100m", "cpu=100m")},
			}},
			want: "count/pods=1,pods=1,cpu=300m,requests.cpu=300m,limits.cpu=1",
		},
		"a sidecar runs beside the containers": {
			pod: corev1.Pod{Spec: corev1.PodSpec{
				InitContainers: []corev1.Container{func() corev1.Container {
					c := container("sidecar", "cpu=100m", "")
					c.RestartPolicy = &always
					return c
				}()},
				Containers: []corev1.Container{container("a", "cpu=200m", "")},
			}},
			want: "count/pods=1,pods=1,cpu=300m,requests.cpu=300m",
		},
		"the overhead of the runtime class is added": {
			pod: corev1.Pod{Spec: corev1.PodSpec{
				Overhead:   list("cpu=50m"),
				Containers: []corev1.Container{container("a", "cpu=100m", "cpu=100m")},
			}},
			want: "count/pods=1,pods=1,cpu=150m,requests.cpu=150m,limits.cpu=150m",
		},
		"pod-level resources count instead of the containers'": {
			pod: corev1.Pod{Spec: corev1.PodSpec{
				Resources:  &corev1.ResourceRequirements{Requests: list("cpu=1,memory=1Gi"), Limits: list("cpu=2,memory=1Gi")},
				Containers: []corev1.Container{container("a", "cpu=100m", "")},
			}},
			want: "count/pods=1,pods=1,cpu=1,requests.cpu=1,limits.cpu=2,memory=1Gi,requests.memory=1Gi,limits.memory=1Gi",
		},
		"a finished pod counts as an object only": {
			pod: corev1.Pod{
				Spec:   corev1.PodSpec{Containers: []corev1.Container{container("a", "cpu=1", "")}},
				Status: corev1.PodStatus{Phase: corev1.PodSucceeded},
			},
			want: "count/pods=1",
		},
		"a pod deleted past its grace period counts as an object only": {
			pod: corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &metav1.Time{Time: now.Add(-time.Minute)}, DeletionGracePeriodSeconds: ptr.To[int64](30)},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{container("a", "cpu=1", "")}},
			},
			want: "count/pods=1",
		},
		"a pod still in its grace period counts whole": {
			pod: corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &metav1.Time{Time: now.Add(-time.Minute)}, DeletionGracePeriodSeconds: ptr.To[int64](300)},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{container("a", "cpu=1", "")}},
			},
			want: "count/pods=1,pods=1,cpu=1,requests.cpu=1",
		},
	}
	pods := NewPods(clocktesting.NewFakePassiveClock(now), true)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := pods.Usage(&tc.pod)
			if err != nil {
				t.Fatal(err)
			}
			if want := list(tc.want); !Equal(got, want) {
				t.Errorf("usage %s, want %s", String(got), String(want))
			}
		})
	}
}

func TestPodsMustStateTheCPUAndMemoryAQuotaTracks(t *testing.T) {
	pods := NewPods(clocktesting.NewFakePassiveClock(now), true)
	pod := &corev1.Pod{Spec: corev1.PodSpec{
		InitContainers: []corev1.Container{container("init", "cpu=1", "")},
		Containers:     []corev1.Container{container("a", "", ""), container("b", "memory=1Gi", "cpu=1")},
	}}
	err := pods.Constraints([]corev1.ResourceName{"requests.cpu", "limits.memory", "pods", "requests.storage"}, pod)
	if want := "must specify limits.memory for: a,b,init; requests.cpu for: a,b"; err == nil || err.Error() != want {
		t.Errorf("Constraints = %v, want %q", err, want)
	}
	if err := pods.Constraints([]corev1.ResourceName{"pods", "requests.ephemeral-storage"}, pod); err != nil {
		t.Errorf("only cpu and memory are demanded of every container: %v", err)
	}
	pod.Spec.Resources = &corev1.ResourceRequirements{Requests: list("cpu=1")}
	if err := pods.Constraints([]corev1.ResourceName{"requests.cpu", "limits.memory"}, pod); err != nil {
		t.Errorf("a pod with pod-level resources need not state them per container: %v", err)
	}
}

func TestPodScopes(t *testing.T) {
	bestEffort := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("a", "", "")}}}
	burstable := &corev1.Pod{
		Spec:   corev1.PodSpec{Containers: []corev1.Container{container("a", "cpu=1", "")}, ActiveDeadlineSeconds: ptr.To[int64](10), PriorityClassName: "high"},
		Status: corev1.PodStatus{QOSClass: corev1.PodQOSBurstable},
	}
	cross := &corev1.Pod{Spec: corev1.PodSpec{Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{PodAffinityTerm: corev1.PodAffinityTerm{NamespaceSelector: &metav1.LabelSelector{}}}},
	}}}}
	exists := func(s corev1.ResourceQuotaScope) corev1.ScopedResourceSelectorRequirement {
		return corev1.ScopedResourceSelectorRequirement{ScopeName: s, Operator: corev1.ScopeSelectorOpExists}
	}
	priority := func(op corev1.ScopeSelectorOperator, values ...string) corev1.ScopedResourceSelectorRequirement {
		return corev1.ScopedResourceSelectorRequirement{ScopeName: corev1.ResourceQuotaScopePriorityClass, Operator: op, Values: values}
	}
	cases := []struct {
		pod      *corev1.Pod
		selector corev1.ScopedResourceSelectorRequirement
		in       bool
	}{
		{bestEffort, exists(corev1.ResourceQuotaScopeBestEffort), true},
		{bestEffort, exists(corev1.ResourceQuotaScopeNotBestEffort), false},
		{burstable, exists(corev1.ResourceQuotaScopeNotBestEffort), true},
		{bestEffort, exists(corev1.ResourceQuotaScopeNotTerminating), true},
		{burstable, exists(corev1.ResourceQuotaScopeTerminating), true},
		{burstable, priority(corev1.ScopeSelectorOpIn, "high", "low"), true},
		{burstable, priority(corev1.ScopeSelectorOpNotIn, "high"), false},
		{bestEffort, priority(corev1.ScopeSelectorOpNotIn, "high"), true},
		{bestEffort, priority(corev1.ScopeSelectorOpDoesNotExist), true},
		{bestEffort, priority(corev1.ScopeSelectorOpExists), false},
		{cross, exists(corev1.ResourceQuotaScopeCrossNamespacePodAffinity), true},
		{burstable, exists(corev1.ResourceQuotaScopeCrossNamespacePodAffinity), false},
		{burstable, exists(corev1.ResourceQuotaScopeVolumeAttributesClass), false},
	}
	for _, tc := range cases {
		if in, err := podInScope(tc.selector, tc.pod); err != nil || in != tc.in {
			t.Errorf("%s %s %v on pod %v: in = %v (%v), want %v", tc.selector.ScopeName, tc.selector.Operator, tc.selector.Values, tc.pod.Spec, in, err, tc.in)
		}
	}
	if _, err := podInScope(corev1.ScopedResourceSelectorRequirement{ScopeName: corev1.ResourceQuotaScopePriorityClass, Operator: "Near"}, bestEffort); err == nil {
		t.Errorf("an unknown operator was accepted")
	}
}

func TestPodMatchingResources(t *testing.T) {
	pods := NewPods(clocktesting.NewFakePassiveClock(now), true)
	in := []corev1.ResourceName{"pods", "count/pods", "requests.cpu", "services", "hugepages-1Gi", "requests.hugepages-2Mi", "requests.example.com/gpu", "requests.deviceclass.resource.kubernetes.io/gpu", "requests.kubernetes.io/x", "example.com/gpu", "configmaps"}
	want := "count/pods,hugepages-1Gi,pods,requests.cpu,requests.deviceclass.resource.kubernetes.io/gpu,requests.example.com/gpu,requests.hugepages-2Mi"
	if got := NamesString(pods.MatchingResources(in)); got != want {
		t.Errorf("MatchingResources = %s, want %s", got, want)
	}
}

func TestWhichWritesEachEvaluatorHandles(t *testing.T) {
	r := NewRegistry(Options{Clock: clocktesting.NewFakePassiveClock(now)})
	pod := &corev1.Pod{}
	terminating := &corev1.Pod{Spec: corev1.PodSpec{ActiveDeadlineSeconds: ptr.To[int64](1)}}
	pvc := &corev1.PersistentVolumeClaim{}
	cases := []struct {
		resource    schema.GroupResource
		subresource string
		op          admission.Operation
		obj, old    runtime.Object
		handled     bool
	}{
		{corev1.Resource("pods"), "", admission.Create, pod, nil, true},
		{corev1.Resource("pods"), "", admission.Update, pod, pod, false},
		{corev1.Resource("pods"), "", admission.Update, terminating, pod, true},
		{corev1.Resource("pods"), "resize", admission.Update, pod, pod, true},
		{corev1.Resource("pods"), "status", admission.Update, pod, pod, false},
		{corev1.Resource("services"), "", admission.Update, &corev1.Service{}, &corev1.Service{}, true},
		{corev1.Resource("services"), "status", admission.Update, &corev1.Service{}, &corev1.Service{}, false},
		{corev1.Resource("persistentvolumeclaims"), "", admission.Update, pvc, pvc, true},
		{corev1.Resource("persistentvolumeclaims"), "status", admission.Update, pvc, pvc, true},
		{corev1.Resource("configmaps"), "", admission.Create, &corev1.ConfigMap{}, nil, true},
		{corev1.Resource("configmaps"), "", admission.Update, &corev1.ConfigMap{}, &corev1.ConfigMap{}, false},
		{schema.GroupResource{Group: "apps", Resource: "deployments"}, "scale", admission.Update, nil, nil, false},
		{resourcev1.Resource("resourceclaims"), "", admission.Update, &resourcev1.ResourceClaim{}, &resourcev1.ResourceClaim{}, true},
	}
	for _, tc := range cases {
		a := &admission.Attributes{Resource: tc.resource.WithVersion("v1"), Subresource: tc.subresource, Operation: tc.op, Object: tc.obj, OldObject: tc.old}
		if got := r.For(tc.resource).Handles(a); got != tc.handled {
			t.Errorf("%s %s/%s: handled %v, want %v", tc.op, tc.resource, tc.subresource, got, tc.handled)
		}
	}
}

func TestServiceUsage(t *testing.T) {
	ports := []corev1.ServicePort{{Name: "a", Port: 1, NodePort: 30001}, {Name: "b", Port: 2}}
	cases := map[string]struct {
		spec corev1.ServiceSpec
		want string
	}{
		"cluster IP":                            {corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Ports: ports}, "count/services=1,services=1,services.nodeports=0,services.loadbalancers=0"},
		"node port: a node port per port":       {corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: ports}, "count/services=1,services=1,services.nodeports=2,services.loadbalancers=0"},
		"load balancer":                         {corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: ports}, "count/services=1,services=1,services.nodeports=2,services.loadbalancers=1"},
		"load balancer allocating no nodeports": {corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, AllocateLoadBalancerNodePorts: ptr.To(false), Ports: ports}, "count/services=1,services=1,services.nodeports=1,services.loadbalancers=1"},
	}
	for name, tc := range cases {
		got, err := Services{}.Usage(&corev1.Service{Spec: tc.spec})
		if err != nil {
			t.Fatal(err)
		}
		if want := list(tc.want); !Equal(got, want) {
			t.Errorf("%s: usage %s, want %s", name, String(got), String(want))
		}
	}
}

func TestClaimUsage(t *testing.T) {
	claim := func(class string, storage string, allocated string, beta string) *corev1.PersistentVolumeClaim {
		pvc := &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{Resources: corev1.VolumeResourceRequirements{Requests: list(storage)}}}
		if class != "" {
			pvc.Spec.StorageClassName = &class
		}
		if allocated != "" {
			pvc.Status.AllocatedResources = list(allocated)
		}
		if beta != "" {
			pvc.Annotations = map[string]string{corev1.BetaStorageClassAnnotation: beta}
		}
		return pvc
	}
	cases := map[string]struct {
		pvc  *corev1.PersistentVolumeClaim
		want string
	}{
		"no class":                       {claim("", "storage=1Gi", "", ""), "count/persistentvolumeclaims=1,persistentvolumeclaims=1,requests.storage=1Gi"},
		"a class":                        {claim("gold", "storage=1Gi", "", ""), "count/persistentvolumeclaims=1,persistentvolumeclaims=1,requests.storage=1Gi,gold.storageclass.storage.k8s.io/persistentvolumeclaims=1,gold.storageclass.storage.k8s.io/requests.storage=1Gi"},
		"the beta annotation wins":       {claim("gold", "storage=1Gi", "", "silver"), "count/persistentvolumeclaims=1,persistentvolumeclaims=1,requests.storage=1Gi,silver.storageclass.storage.k8s.io/persistentvolumeclaims=1,silver.storageclass.storage.k8s.io/requests.storage=1Gi"},
		"a fraction of a byte rounds up": {claim("", "storage=1500m", "", ""), "count/persistentvolumeclaims=1,persistentvolumeclaims=1,requests.storage=2"},
		"more allocated than requested":  {claim("", "storage=1Gi", "storage=2Gi", ""), "count/persistentvolumeclaims=1,persistentvolumeclaims=1,requests.storage=2Gi"},
		"no storage requested":           {claim("", "", "", ""), "count/persistentvolumeclaims=1,persistentvolumeclaims=1"},
	}
	for name, tc := range cases {
		got, err := PersistentVolumeClaims{}.Usage(tc.pvc)
		if err != nil {
			t.Fatal(err)
		}
		if want := list(tc.want); !Equal(got, want) {
			t.Errorf("%s: usage %s, want %s", name, String(got), String(want))
		}
	}
	in := []corev1.ResourceName{"persistentvolumeclaims", "count/persistentvolumeclaims", "requests.storage", "gold.storageclass.storage.k8s.io/requests.storage", "gold.storageclass.storage.k8s.io/persistentvolumeclaims", "gold.storageclass.storage.k8s.io/other", "requests.cpu"}
	if got, want := NamesString(PersistentVolumeClaims{}.MatchingResources(in)), "count/persistentvolumeclaims,gold.storageclass.storage.k8s.io/persistentvolumeclaims,gold.storageclass.storage.k8s.io/requests.storage,persistentvolumeclaims,requests.storage"; got != want {
		t.Errorf("MatchingResources = %s, want %s", got, want)
	}
}

func TestVolumeAttributesClassScope(t *testing.T) {
	pvc := &corev1.PersistentVolumeClaim{
		Spec:   corev1.PersistentVolumeClaimSpec{VolumeAttributesClassName: ptr.To("fast")},
		Status: corev1.PersistentVolumeClaimStatus{ModifyVolumeStatus: &corev1.ModifyVolumeStatus{TargetVolumeAttributesClassName: "faster"}},
	}
	in := func(op corev1.ScopeSelectorOperator, values ...string) bool {
		t.Helper()
		ok, err := pvcInScope(corev1.ScopedResourceSelectorRequirement{ScopeName: corev1.ResourceQuotaScopeVolumeAttributesClass, Operator: op, Values: values}, pvc)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !in(corev1.ScopeSelectorOpIn, "faster") || !in(corev1.ScopeSelectorOpExists) || in(corev1.ScopeSelectorOpIn, "slow") {
		t.Errorf("a claim is in the scope of each class it asks for or moves to, and of no other")
	}
	if !in(corev1.ScopeSelectorOpNotIn, "fast") {
		t.Errorf("NotIn holds when one of the claim's classes is not listed")
	}
}

func TestResourceClaimUsage(t *testing.T) {
	claim := &resourcev1.ResourceClaim{Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{
		{Name: "a", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 2}},
		{Name: "b", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeAll}},
		{Name: "c", FirstAvailable: []resourcev1.DeviceSubRequest{
			{Name: "big", DeviceClassName: "fpga", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 4},
			{Name: "small", DeviceClassName: "fpga", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1},
			{Name: "other", DeviceClassName: "nic", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1},
		}},
	}}}}
	got, err := ResourceClaims{}.Usage(claim)
	if err != nil {
		t.Fatal(err)
	}
	want := list("count/resourceclaims.resource.k8s.io=1,gpu.deviceclass.resource.k8s.io/devices=34,fpga.deviceclass.resource.k8s.io/devices=4,nic.deviceclass.resource.k8s.io/devices=1," +
		"requests.deviceclass.resource.kubernetes.io/gpu=34,requests.deviceclass.resource.kubernetes.io/fpga=4,requests.deviceclass.resource.kubernetes.io/nic=1")
	if !Equal(got, want) {
		t.Errorf("usage %s, want %s", String(got), String(want))
	}
}

type classes []*resourcev1.DeviceClass

func (c classes) Get(name string) (*resourcev1.DeviceClass, error) {
	for _, class := range c {
		if class.Name == name {
			return class, nil
		}
	}
	return nil, fmt.Errorf("not found")
}

func (c classes) List(labels.Selector) ([]*resourcev1.DeviceClass, error) { return c, nil }

type owners struct {
	pod    *corev1.Pod
	claims []resourcev1.ResourceClaim
}

func (o owners) Pod(context.Context, string, string) (*corev1.Pod, error) { return o.pod, nil }
func (o owners) ClaimsOf(context.Context, string, types.UID) ([]resourcev1.ResourceClaim, error) {
	return o.claims, nil
}

func deviceClass(name, extended string, created time.Time) *resourcev1.DeviceClass {
	c := &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(created)}}
	if extended != "" {
		c.Spec.ExtendedResourceName = &extended
	}
	return c
}

// Devices of a class with an extended resource name are also that
// extended resource; a claim the scheduler made for a pod is charged
// only what the pod was not.
func TestResourceClaimsAsExtendedResources(t *testing.T) {
	known := classes{
		deviceClass("gpu-old", "example.com/gpu", now.Add(-time.Hour)),
		deviceClass("gpu", "example.com/gpu", now),
		deviceClass("plain", "", now),
	}
	r := ResourceClaims{Classes: known, Pods: NewPods(clocktesting.NewFakePassiveClock(now), true)}
	in := []corev1.ResourceName{"requests.example.com/gpu", "requests.example.com/other", "requests.deviceclass.resource.kubernetes.io/gpu", "requests.deviceclass.resource.kubernetes.io/plain", "requests.deviceclass.resource.kubernetes.io/missing"}
	if got, want := NamesString(r.MatchingResources(in)), "requests.deviceclass.resource.kubernetes.io/gpu,requests.deviceclass.resource.kubernetes.io/plain,requests.example.com/gpu"; got != want {
		t.Errorf("MatchingResources = %s, want %s", got, want)
	}
	if c := r.classOf("example.com/gpu"); c == nil || c.Name != "gpu" {
		t.Errorf("the newest class of an extended resource stands for it: %v", c)
	}

	claim := &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "claim", Namespace: "ns", Annotations: map[string]string{resourcev1.ExtendedResourceClaimAnnotation: "true"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "p", UID: "pod-uid", Controller: ptr.To(true)}}},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{
			{Name: "a", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 3}},
		}}},
	}
	got, _ := r.Usage(claim)
	if want := list("count/resourceclaims.resource.k8s.io=1,gpu.deviceclass.resource.k8s.io/devices=3,requests.deviceclass.resource.kubernetes.io/gpu=3,requests.example.com/gpu=3"); !Equal(got, want) {
		t.Errorf("without its pod: usage %s, want %s", String(got), String(want))
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", UID: "pod-uid"}, Spec: corev1.PodSpec{Containers: []corev1.Container{container("a", "example.com/gpu=2", "example.com/gpu=2")}}}
	r.Owners = owners{pod: pod, claims: []resourcev1.ResourceClaim{*claim}}
	got, _ = r.Usage(claim)
	if want := list("count/resourceclaims.resource.k8s.io=1,gpu.deviceclass.resource.k8s.io/devices=3,requests.deviceclass.resource.kubernetes.io/gpu=3,requests.example.com/gpu=1"); !Equal(got, want) {
		t.Errorf("with its pod charged 2: usage %s, want %s", String(got), String(want))
	}
	pod.UID = "another"
	got, _ = r.Usage(claim)
	if want := list("count/resourceclaims.resource.k8s.io=1,gpu.deviceclass.resource.k8s.io/devices=3,requests.deviceclass.resource.kubernetes.io/gpu=3,requests.example.com/gpu=3"); !Equal(got, want) {
		t.Errorf("a pod of the same name but another uid is not the owner: usage %s, want %s", String(got), String(want))
	}
}

func TestAnyOtherResourceIsCountedAsCountResourceGroup(t *testing.T) {
	r := NewRegistry(Options{})
	widgets := schema.GroupResource{Group: "example.com", Resource: "widgets"}
	got, _ := r.For(widgets).Usage(nil)
	if want := list("count/widgets.example.com=1"); !Equal(got, want) {
		t.Errorf("usage %s, want %s", String(got), String(want))
	}
	got, _ = r.For(corev1.Resource("secrets")).Usage(nil)
	if want := list("count/secrets=1,secrets=1"); !Equal(got, want) {
		t.Errorf("secrets: usage %s, want %s, the legacy name too", String(got), String(want))
	}
	if !Ignored(schema.GroupResource{Group: "events.k8s.io", Resource: "events"}) || Ignored(widgets) {
		t.Errorf("events are ignored, nothing else")
	}
}
