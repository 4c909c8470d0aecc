package apps_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/apps"
)

// hostSysctl makes a pod template set a network sysctl while it shares the
// host's network: refused by kube-apiserver 1.37 with this error (recorded
// from a dry-run create), tolerated on updates of objects that had it.
func hostSysctl(s *v1.PodSpec) {
	s.HostNetwork = true
	s.SecurityContext = &v1.PodSecurityContext{Sysctls: []v1.Sysctl{{Name: "net.ipv4.ip_forward", Value: "1"}}}
}

const hostSysctlError = `spec.template.spec.securityContext.sysctls[0].name: Invalid value: "net.ipv4.ip_forward": may not be specified when 'hostNetwork' is true`

// Every apps workload validates an update of its pod template with the
// options of the old template: what the old one already broke passes.
func TestWorkloadTemplateUpdatesTolerateWhatTheOldTemplateBroke(t *testing.T) {
	d := validDeployment()
	rs := validReplicaSet()
	ss := validStatefulSet()
	apps.SetDefaultsStatefulSet(ss)
	ds := &appsv1.DaemonSet{ObjectMeta: rs.ObjectMeta, Spec: appsv1.DaemonSetSpec{Selector: rs.Spec.Selector, Template: rs.Spec.Template}}
	apps.SetDefaultsDaemonSet(ds)
	for _, w := range []struct {
		name     string
		template *v1.PodTemplateSpec
		update   func() field.ErrorList
	}{
		{"deployment", &d.Spec.Template, func() field.ErrorList {
			n := d.DeepCopy()
			n.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
			return apps.ValidateDeploymentUpdate(n, d)
		}},
		{"replicaset", &rs.Spec.Template, func() field.ErrorList {
			n := rs.DeepCopy()
			n.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
			return apps.ValidateReplicaSetUpdate(n, rs)
		}},
		{"statefulset", &ss.Spec.Template, func() field.ErrorList {
			n := ss.DeepCopy()
			n.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
			return apps.ValidateStatefulSetUpdate(n, ss)
		}},
		{"daemonset", &ds.Spec.Template, func() field.ErrorList {
			n := ds.DeepCopy()
			n.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
			return apps.ValidateDaemonSetUpdate(n, ds)
		}},
	} {
		t.Run(w.name, func(t *testing.T) {
			hostSysctl(&w.template.Spec)
			assertErrors(t, w.update(), nil)
		})
	}

	fresh := validDeployment()
	broken := fresh.DeepCopy()
	hostSysctl(&broken.Spec.Template.Spec)
	assertErrors(t, apps.ValidateDeploymentUpdate(broken, fresh), []string{hostSysctlError})
	assertErrors(t, apps.ValidateDeployment(broken), []string{hostSysctlError})
}
