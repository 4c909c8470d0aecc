package apps_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kapi-dev/kapi/pkg/apis/apps"
	"github.com/kapi-dev/kapi/pkg/apis/internal/reference"
)

// The defaulting cases recorded from kube-apiserver: what defaulting
// does to the object sent is what kube-apiserver returned, but for the
// fields the server sets on create.
func TestWorkloadDefaultsMatchReference(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := appsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := apps.AddDefaults(scheme); err != nil {
		t.Fatal(err)
	}
	for name, obj := range map[string]runtime.Object{"replicaset": &appsv1.ReplicaSet{}, "daemonset": &appsv1.DaemonSet{}} {
		t.Run(name, func(t *testing.T) {
			input, output, err := reference.Defaulting(name)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(input, obj); err != nil {
				t.Fatal(err)
			}
			scheme.Default(obj)
			got, err := reference.ToJSONMap(obj)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]any{}
			if err := json.Unmarshal(output, &want); err != nil {
				t.Fatal(err)
			}
			reference.RemoveFields(want, "metadata.creationTimestamp", "metadata.resourceVersion", "metadata.uid", "metadata.generation")
			if name == "daemonset" {
				// The template generation is 0 until the strategy counts.
				want["metadata"].(map[string]any)["annotations"] = map[string]any{appsv1.DeprecatedTemplateGeneration: "0"}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("defaulted %s differs from kube-apiserver's (-want +got):\n%s", name, diff)
			}
		})
	}
}

// TestReferenceWorkloadsAreValid checks that the objects kube-apiserver
// created pass our validation, new and as unchanged updates.
func TestReferenceWorkloadsAreValid(t *testing.T) {
	_, output, err := reference.Defaulting("replicaset")
	if err != nil {
		t.Fatal(err)
	}
	rs := &appsv1.ReplicaSet{}
	if err := json.Unmarshal(output, rs); err != nil {
		t.Fatal(err)
	}
	assertErrors(t, apps.ValidateReplicaSet(rs), nil)
	assertErrors(t, apps.ValidateReplicaSetUpdate(rs, rs), nil)
	assertErrors(t, apps.ValidateReplicaSetStatusUpdate(rs, rs), nil)

	if _, output, err = reference.Defaulting("daemonset"); err != nil {
		t.Fatal(err)
	}
	ds := &appsv1.DaemonSet{}
	if err := json.Unmarshal(output, ds); err != nil {
		t.Fatal(err)
	}
	assertErrors(t, apps.ValidateDaemonSet(ds), nil)
	assertErrors(t, apps.ValidateDaemonSetUpdate(ds, ds), nil)
	assertErrors(t, apps.ValidateDaemonSetStatusUpdate(ds, ds), nil)
}

// A statefulset defaulted as kube-apiserver 1.37.1 answered for
// {updateStrategy: {}} and for explicit strategies.
func TestSetDefaultsStatefulSet(t *testing.T) {
	tests := []struct {
		name     string
		strategy appsv1.StatefulSetUpdateStrategy
		want     appsv1.StatefulSetUpdateStrategy
	}{
		{
			name: "no strategy: a rolling update of one pod at a time",
			want: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr(int32(0)), MaxUnavailable: ptr(intstr.FromInt32(1))}},
		},
		{
			name:     "an explicit RollingUpdate gets no parameters",
			strategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType},
			want:     appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType},
		},
		{
			name:     "parameters of a RollingUpdate are completed",
			strategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType, RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{}},
			want: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr(int32(0)), MaxUnavailable: ptr(intstr.FromInt32(1))}},
		},
		{
			name:     "OnDelete",
			strategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType},
			want:     appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ss := validStatefulSet()
			ss.Spec.UpdateStrategy = tc.strategy
			apps.SetDefaultsStatefulSet(ss)
			if diff := cmp.Diff(tc.want, ss.Spec.UpdateStrategy); diff != "" {
				t.Errorf("update strategy (-want +got):\n%s", diff)
			}
			spec := ss.Spec
			if *spec.Replicas != 1 || *spec.RevisionHistoryLimit != 10 || spec.PodManagementPolicy != appsv1.OrderedReadyPodManagement ||
				spec.PersistentVolumeClaimRetentionPolicy.WhenDeleted != "Retain" || spec.PersistentVolumeClaimRetentionPolicy.WhenScaled != "Retain" {
				t.Errorf("spec defaults: %+v", spec)
			}
			claim := spec.VolumeClaimTemplates[0]
			if *claim.Spec.VolumeMode != v1.PersistentVolumeFilesystem || claim.Status.Phase != v1.ClaimPending {
				t.Errorf("claim template defaults: %+v", claim)
			}
		})
	}
}

func validStatefulSet() *appsv1.StatefulSet {
	ss := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default", ResourceVersion: "1"},
		Spec: appsv1.StatefulSetSpec{
			Selector:    &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
			ServiceName: "db",
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "db"}},
				Spec: v1.PodSpec{Containers: []v1.Container{{Name: "db", Image: "postgres",
					VolumeMounts: []v1.VolumeMount{{Name: "data", MountPath: "/data"}}}}},
			},
			VolumeClaimTemplates: []v1.PersistentVolumeClaim{{
				ObjectMeta: metav1.ObjectMeta{Name: "data"},
				Spec: v1.PersistentVolumeClaimSpec{
					AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
					Resources:   v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}},
				},
			}},
		},
	}
	return ss
}

func defaultedStatefulSet() *appsv1.StatefulSet {
	ss := validStatefulSet()
	apps.SetDefaultsStatefulSet(ss)
	return ss
}

// The messages below are kube-apiserver 1.37.1's for the same objects.
func TestValidateStatefulSet(t *testing.T) {
	const dnsLabel = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
	tests := []struct {
		name   string
		modify func(*appsv1.StatefulSet)
		want   []string
	}{
		{name: "valid", modify: func(*appsv1.StatefulSet) {}},
		{
			name:   "the name is a DNS label",
			modify: func(ss *appsv1.StatefulSet) { ss.Name = "Db.x" },
			want:   []string{`metadata.name: Invalid value: "Db.x": ` + dnsLabel},
		},
		{
			name: "every field group",
			modify: func(ss *appsv1.StatefulSet) {
				ss.Spec.Replicas = ptr(int32(-1))
				ss.Spec.MinReadySeconds = -2
				ss.Spec.Ordinals = &appsv1.StatefulSetOrdinals{Start: -1}
				ss.Spec.RevisionHistoryLimit = ptr(int32(-3)) // a warning, not an error
				ss.Spec.ServiceName = "Bad_Name"
				ss.Spec.PodManagementPolicy = "Foo"
				ss.Spec.PersistentVolumeClaimRetentionPolicy.WhenDeleted = "Foo"
				ss.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr(int32(-1)), MaxUnavailable: ptr(intstr.FromInt32(0))}
				ss.Spec.Template.Labels = map[string]string{"app": "dbx"}
				ss.Spec.Template.Spec.RestartPolicy = v1.RestartPolicyNever
				ss.Spec.Template.Spec.ActiveDeadlineSeconds = ptr(int64(3))
				ss.Spec.Template.Spec.Containers[0].Image = ""
				ss.Spec.Template.Spec.Containers[0].VolumeMounts = nil
				ss.Spec.VolumeClaimTemplates[0].Spec.AccessModes = []v1.PersistentVolumeAccessMode{"Foo"}
				ss.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests[v1.ResourceStorage] = resource.MustParse("0")
				ss.Spec.VolumeClaimTemplates = append(ss.Spec.VolumeClaimTemplates, v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data"}})
			},
			want: []string{
				`spec.podManagementPolicy: Invalid value: "Foo": must be 'OrderedReady' or 'Parallel'`,
				`spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0`,
				`spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: cannot be 0`,
				`spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Foo": supported values: "Retain", "Delete"`,
				`spec.volumeClaimTemplates[0].spec.accessModes: Unsupported value: "Foo": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"`,
				`spec.volumeClaimTemplates[0].spec.resources[storage]: Invalid value: "0": must be greater than zero`,
				`spec.volumeClaimTemplates[1].spec.accessModes: Required value: at least 1 access mode is required`,
				`spec.volumeClaimTemplates[1].spec.resources[storage]: Required value`,
				`spec.replicas: Invalid value: -1: must be greater than or equal to 0`,
				`spec.minReadySeconds: Invalid value: -2: must be greater than or equal to 0`,
				`spec.ordinals.start: Invalid value: -1: must be greater than or equal to 0`,
				`spec.serviceName: Invalid value: "Bad_Name": ` + dnsLabel,
				`spec.template.metadata.labels: Invalid value: {"app":"dbx"}: ` + "`selector` does not match template `labels`",
				`spec.template.spec.containers[0].image: Required value`,
				`spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`,
				`spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in StatefulSet is not Supported`,
			},
		},
		{
			name: "claim templates are volumes of the pods",
			modify: func(ss *appsv1.StatefulSet) {
				ss.Spec.Template.Annotations = map[string]string{"bad key!": "x"}
				ss.Spec.Template.Spec.Containers[0].VolumeMounts = append(ss.Spec.Template.Spec.Containers[0].VolumeMounts, v1.VolumeMount{Name: "nope", MountPath: "/e"})
				claim := &ss.Spec.VolumeClaimTemplates[0]
				claim.Name = "Bad_Name"
				claim.Namespace = "other" // not looked at
				claim.Spec.StorageClassName = ptr("Bad_Name")
				claim.Spec.VolumeMode = ptr(v1.PersistentVolumeMode("Foo"))
				claim.Spec.DataSource = &v1.TypedLocalObjectReference{Kind: "Foo"}
			},
			want: []string{
				`spec.volumeClaimTemplates[0].spec.storageClassName: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
				`spec.volumeClaimTemplates[0].spec.volumeMode: Unsupported value: "Foo": supported values: "Block", "Filesystem"`,
				`spec.volumeClaimTemplates[0].spec.dataSource.name: Required value`,
				`spec.volumeClaimTemplates[0].spec.dataSource: Invalid value: "Foo": must be 'PersistentVolumeClaim' when referencing the default apiGroup`,
				`spec.template.annotations: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
				`spec.template.spec.volumes[0].name: Invalid value: "Bad_Name": ` + dnsLabel,
				`spec.template.spec.containers[0].volumeMounts[0].name: Not found: "data"`,
				`spec.template.spec.containers[0].volumeMounts[1].name: Not found: "nope"`,
			},
		},
		{
			name: "OnDelete takes no rolling update",
			modify: func(ss *appsv1.StatefulSet) {
				ss.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType,
					RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr(int32(2))}}
			},
			want: []string{`spec.updateStrategy.rollingUpdate: Invalid value: {"Partition":2,"MaxUnavailable":null}: only allowed for updateStrategy 'RollingUpdate'`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ss := defaultedStatefulSet()
			tc.modify(ss)
			assertErrors(t, apps.ValidateStatefulSet(ss), tc.want)
		})
	}
}

func TestValidateStatefulSetUpdate(t *testing.T) {
	claimsValue := func(storage string) string {
		return `[{"name":"data","Spec":{"AccessModes":["ReadWriteOnce"],"Selector":null,"Resources":{"Limits":null,"Requests":{"storage":"` + storage + `"}},` +
			`"VolumeName":"","StorageClassName":null,"VolumeMode":"Filesystem","DataSource":null,"DataSourceRef":null,"VolumeAttributesClassName":null},` +
			`"Status":{"Phase":"Pending","AccessModes":null,"Capacity":null,"Conditions":null,"AllocatedResources":null,"AllocatedResourceStatuses":null,` +
			`"CurrentVolumeAttributesClassName":null,"ModifyVolumeStatus":null,"HealthStatus":null}}]`
	}
	tests := []struct {
		name   string
		modify func(*appsv1.StatefulSet)
		want   []string
	}{
		{
			name: "what may change",
			modify: func(ss *appsv1.StatefulSet) {
				ss.Spec.Replicas = ptr(int32(3))
				ss.Spec.Ordinals = &appsv1.StatefulSetOrdinals{Start: 3}
				ss.Spec.MinReadySeconds = 5
				ss.Spec.RevisionHistoryLimit = ptr(int32(3))
				ss.Spec.PersistentVolumeClaimRetentionPolicy.WhenDeleted = appsv1.DeletePersistentVolumeClaimRetentionPolicyType
				ss.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
				ss.Spec.Template.Spec.Containers[0].Image = "postgres:18"
			},
		},
		{
			name: "what may not",
			modify: func(ss *appsv1.StatefulSet) {
				ss.Spec.Replicas = ptr(int32(-1))
				ss.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "zz"}}
				ss.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests[v1.ResourceStorage] = resource.MustParse("2Gi")
				ss.Spec.ServiceName = "x"
				ss.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
			},
			want: []string{
				`spec.replicas: Invalid value: -1: must be greater than or equal to 0`,
				`spec.template.metadata.labels: Invalid value: {"app":"db"}: ` + "`selector` does not match template `labels`",
				`spec.selector: Invalid value: {"matchLabels":{"app":"zz"}}: field is immutable`,
				`spec.volumeClaimTemplates: Invalid value: ` + claimsValue("2Gi") + `: field is immutable`,
				`spec.serviceName: Invalid value: "x": field is immutable`,
				`spec.podManagementPolicy: Invalid value: "Parallel": field is immutable`,
			},
		},
		{
			name: "claim templates cannot be removed",
			modify: func(ss *appsv1.StatefulSet) {
				ss.Spec.VolumeClaimTemplates = nil
			},
			want: []string{`spec.volumeClaimTemplates: Invalid value: null: field is immutable`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			oldSS := defaultedStatefulSet()
			oldSS.Spec.Template.Spec.Containers[0].VolumeMounts = nil
			newSS := oldSS.DeepCopy()
			tc.modify(newSS)
			assertErrors(t, apps.ValidateStatefulSetUpdate(newSS, oldSS), tc.want)
		})
	}
}

func validReplicaSet() *appsv1.ReplicaSet {
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "rs", Namespace: "default", ResourceVersion: "1"},
		Spec: appsv1.ReplicaSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "rs"}},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "rs"}},
				Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "c", Image: "nginx"}}},
			},
		},
	}
	apps.SetDefaultsReplicaSet(rs)
	return rs
}

func TestValidateReplicaSetUpdate(t *testing.T) {
	oldRS := validReplicaSet()
	newRS := oldRS.DeepCopy()
	newRS.Spec.Replicas = ptr(int32(-1))
	newRS.Spec.Selector.MatchLabels["x"] = "y"
	assertErrors(t, apps.ValidateReplicaSetUpdate(newRS, oldRS), []string{
		`spec.replicas: Invalid value: -1: must be greater than or equal to 0`,
		`spec.template.metadata.labels: Invalid value: {"app":"rs"}: ` + "`selector` does not match template `labels`",
		`spec.selector: Invalid value: {"matchLabels":{"app":"rs","x":"y"}}: field is immutable`,
	})
}

func TestValidateDaemonSet(t *testing.T) {
	newDS := func() *appsv1.DaemonSet {
		rs := validReplicaSet()
		ds := &appsv1.DaemonSet{ObjectMeta: rs.ObjectMeta, Spec: appsv1.DaemonSetSpec{Selector: rs.Spec.Selector, Template: rs.Spec.Template}}
		apps.SetDefaultsDaemonSet(ds)
		return ds
	}
	noSelector := newDS()
	noSelector.Spec.Selector = nil
	assertErrors(t, apps.ValidateDaemonSet(noSelector), []string{
		`spec.template.metadata.labels: Invalid value: {"app":"rs"}: ` + "`selector` does not match template `labels`",
	})

	oldDS := newDS()
	updated := oldDS.DeepCopy()
	updated.Spec.RevisionHistoryLimit = ptr(int32(-1))
	updated.Spec.MinReadySeconds = -1
	updated.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "rs", "x": "y"}}
	assertErrors(t, apps.ValidateDaemonSetUpdate(updated, oldDS), []string{
		`spec.selector: Invalid value: {"matchLabels":{"app":"rs","x":"y"}}: field is immutable`,
		`spec.template.metadata.labels: Invalid value: {"app":"rs"}: ` + "`selector` does not match template `labels`",
		`spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0`,
		`spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0`,
	})
}

func TestValidateControllerRevision(t *testing.T) {
	revision := func(revision int64, data string) *appsv1.ControllerRevision {
		cr := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "cr1", Namespace: "default", ResourceVersion: "1"}, Revision: revision}
		if data != "" {
			cr.Data.Raw = []byte(data)
		}
		return cr
	}
	assertErrors(t, apps.ValidateControllerRevision(revision(-1, "")), []string{
		"revision: Invalid value: -1: must be greater than or equal to 0",
		"data: Required value: data is mandatory",
	})
	assertErrors(t, apps.ValidateControllerRevision(revision(1, "null")), []string{"data: Required value: data is mandatory"})
	assertErrors(t, apps.ValidateControllerRevision(revision(1, `"x"`)), []string{"data: Required value: data must be a valid JSON object"})
	assertErrors(t, apps.ValidateControllerRevision(revision(1, `[1]`)), []string{"data: Required value: data must be a valid JSON object"})
	assertErrors(t, apps.ValidateControllerRevision(revision(1, `{}`)), nil)

	old := revision(1, `{"spec":{"a":1}}`)
	assertErrors(t, apps.ValidateControllerRevisionUpdate(revision(2, `{"spec":{"a":1}}`), old), nil)
	// As kube-apiserver, the bytes are compared: the same data sent with
	// other spacing is a change.
	assertErrors(t, apps.ValidateControllerRevisionUpdate(revision(1, `{"spec": {"a": 1}}`), old),
		[]string{`data: Invalid value: {"spec":{"a":1}}: field is immutable`})
	assertErrors(t, apps.ValidateControllerRevisionUpdate(revision(1, `{"spec":{"a":2}}`), old),
		[]string{`data: Invalid value: {"spec":{"a":2}}: field is immutable`})
	assertErrors(t, apps.ValidateControllerRevisionUpdate(revision(-5, ""), old), []string{
		"revision: Invalid value: -5: must be greater than or equal to 0",
		"data: Invalid value: null: field is immutable",
	})
}
