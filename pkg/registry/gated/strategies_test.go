package gated_test

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/registry/apps/daemonset"
	"github.com/kapi-dev/kapi/pkg/registry/apps/deployment"
	"github.com/kapi-dev/kapi/pkg/registry/apps/replicaset"
	"github.com/kapi-dev/kapi/pkg/registry/apps/statefulset"
	"github.com/kapi-dev/kapi/pkg/registry/batch/cronjob"
	"github.com/kapi-dev/kapi/pkg/registry/batch/job"
	"github.com/kapi-dev/kapi/pkg/registry/coordination/lease"
	"github.com/kapi-dev/kapi/pkg/registry/core/node"
	"github.com/kapi-dev/kapi/pkg/registry/core/persistentvolumeclaim"
	"github.com/kapi-dev/kapi/pkg/registry/core/pod"
	"github.com/kapi-dev/kapi/pkg/registry/core/podtemplate"
	"github.com/kapi-dev/kapi/pkg/registry/core/replicationcontroller"
)

// preparer is what the Store asks of a strategy before it validates.
type preparer interface {
	PrepareForCreate(ctx context.Context, obj runtime.Object)
	PrepareForUpdate(ctx context.Context, obj, old runtime.Object)
}

// Every kind with gated fields drops them in its strategy with the
// default gates: on create, and on an update of an object that does not
// use them; an update of an object that does (written while the gate was
// on) keeps them. The corpus shows the first two against kube-apiserver;
// the third needs an object the corpus cannot create.
func TestStrategiesDropGatedFields(t *testing.T) {
	template := func(gated bool) corev1.PodTemplateSpec {
		t := corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
		if gated {
			t.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr.To("g")}
		}
		return t
	}
	hasGroup := func(t *corev1.PodTemplateSpec) bool { return t.Spec.SchedulingGroup != nil }
	cases := []struct {
		name     string
		strategy preparer
		make     func(gated bool) runtime.Object
		has      func(runtime.Object) bool
	}{
		{
			"pods", pod.Strategy,
			func(g bool) runtime.Object { t := template(g); return &corev1.Pod{Spec: t.Spec} },
			func(o runtime.Object) bool { return o.(*corev1.Pod).Spec.SchedulingGroup != nil },
		},
		{
			"podtemplates", podtemplate.Strategy,
			func(g bool) runtime.Object { return &corev1.PodTemplate{Template: template(g)} },
			func(o runtime.Object) bool { return hasGroup(&o.(*corev1.PodTemplate).Template) },
		},
		{
			"replicationcontrollers", replicationcontroller.Strategy,
			func(g bool) runtime.Object {
				t := template(g)
				return &corev1.ReplicationController{Spec: corev1.ReplicationControllerSpec{Template: &t}}
			},
			func(o runtime.Object) bool { return hasGroup(o.(*corev1.ReplicationController).Spec.Template) },
		},
		{
			"deployments", deployment.Strategy,
			func(g bool) runtime.Object {
				return &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: template(g)}}
			},
			func(o runtime.Object) bool { return hasGroup(&o.(*appsv1.Deployment).Spec.Template) },
		},
		{
			"replicasets", replicaset.Strategy,
			func(g bool) runtime.Object {
				return &appsv1.ReplicaSet{Spec: appsv1.ReplicaSetSpec{Template: template(g)}}
			},
			func(o runtime.Object) bool { return hasGroup(&o.(*appsv1.ReplicaSet).Spec.Template) },
		},
		{
			"statefulsets", statefulset.Strategy,
			func(g bool) runtime.Object {
				return &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Template: template(g)}}
			},
			func(o runtime.Object) bool { return hasGroup(&o.(*appsv1.StatefulSet).Spec.Template) },
		},
		{
			"daemonsets", daemonset.Strategy,
			func(g bool) runtime.Object {
				return &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{Template: template(g)}}
			},
			func(o runtime.Object) bool { return hasGroup(&o.(*appsv1.DaemonSet).Spec.Template) },
		},
		{
			"jobs", job.Strategy,
			func(g bool) runtime.Object {
				j := &batchv1.Job{Spec: batchv1.JobSpec{Template: template(g), ManualSelector: ptr.To(true)}}
				if g {
					j.Spec.Scheduling = &batchv1.JobSchedulingConfiguration{}
				}
				return j
			},
			func(o runtime.Object) bool {
				j := o.(*batchv1.Job)
				return hasGroup(&j.Spec.Template) && j.Spec.Scheduling != nil
			},
		},
		{
			"cronjobs", cronjob.Strategy,
			func(g bool) runtime.Object {
				cj := &batchv1.CronJob{}
				cj.Spec.JobTemplate.Spec.Template = template(g)
				if g {
					cj.Spec.JobTemplate.Spec.Scheduling = &batchv1.JobSchedulingConfiguration{}
				}
				return cj
			},
			func(o runtime.Object) bool {
				s := &o.(*batchv1.CronJob).Spec.JobTemplate.Spec
				return hasGroup(&s.Template) && s.Scheduling != nil
			},
		},
		{
			"nodes", node.Strategy,
			func(g bool) runtime.Object {
				n := &corev1.Node{}
				if g {
					n.Spec.PodPreemptionPolicy = &corev1.NodePodPreemptionPolicy{}
				}
				return n
			},
			func(o runtime.Object) bool { return o.(*corev1.Node).Spec.PodPreemptionPolicy != nil },
		},
		{
			"persistentvolumeclaims", persistentvolumeclaim.Strategy,
			func(g bool) runtime.Object {
				c := &corev1.PersistentVolumeClaim{}
				if g {
					c.Spec.DataSourceRef = &corev1.TypedObjectReference{Kind: "K", Name: "n", Namespace: ptr.To("other")}
				}
				return c
			},
			func(o runtime.Object) bool { return o.(*corev1.PersistentVolumeClaim).Spec.DataSourceRef != nil },
		},
		{
			"leases", lease.Strategy,
			func(g bool) runtime.Object {
				l := &coordinationv1.Lease{}
				if g {
					l.Spec.Strategy = ptr.To(coordinationv1.OldestEmulationVersion)
					l.Spec.PreferredHolder = ptr.To("b")
				}
				return l
			},
			func(o runtime.Object) bool {
				l := o.(*coordinationv1.Lease)
				return l.Spec.Strategy != nil && l.Spec.PreferredHolder != nil
			},
		},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obj := c.make(true)
			c.strategy.PrepareForCreate(ctx, obj)
			if c.has(obj) {
				t.Error("create kept the gated fields")
			}
			obj = c.make(true)
			c.strategy.PrepareForUpdate(ctx, obj, c.make(false))
			if c.has(obj) {
				t.Error("an update of an object without them kept the gated fields")
			}
			obj = c.make(true)
			c.strategy.PrepareForUpdate(ctx, obj, c.make(true))
			if !c.has(obj) {
				t.Error("an update of an object that has them dropped the gated fields")
			}
		})
	}
}
