package batch_test

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/apis/batch"
)

// hostSysctl makes a pod template set a network sysctl while it shares the
// host's network, which kube-apiserver 1.37 refuses on create with this
// error (recorded from a dry-run create of a pod) and tolerates on updates
// of objects that had it.
func hostSysctl(s *corev1.PodSpec) {
	s.HostNetwork = true
	s.SecurityContext = &corev1.PodSecurityContext{Sysctls: []corev1.Sysctl{{Name: "net.ipv4.ip_forward", Value: "1"}}}
}

// Jobs and CronJobs validate their pod template on update with the options
// of the old one: what it already broke passes, what is newly broken not.
func TestJobTemplateUpdatesTolerateWhatTheOldTemplateBroke(t *testing.T) {
	job := validJob()
	hostSysctl(&job.Spec.Template.Spec)
	assertErrors(t, batch.ValidateJob(job), []string{
		`spec.template.spec.securityContext.sysctls[0].name: Invalid value: "net.ipv4.ip_forward": may not be specified when 'hostNetwork' is true`,
	})
	relabelled := job.DeepCopy()
	relabelled.Labels = map[string]string{"tier": "batch"}
	assertErrors(t, batch.ValidateJobUpdate(relabelled, job), nil)

	cj := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: "default", ResourceVersion: "1"},
		Spec: batchv1.CronJobSpec{
			Schedule: "*/5 * * * *",
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyOnFailure, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
			}}},
		},
	}
	batch.SetDefaultsCronJob(cj)
	fresh := cj.DeepCopy()
	hostSysctl(&cj.Spec.JobTemplate.Spec.Template.Spec)
	wantCronJob := []string{`spec.jobTemplate.spec.template.spec.securityContext.sysctls[0].name: Invalid value: "net.ipv4.ip_forward": may not be specified when 'hostNetwork' is true`}
	assertErrors(t, batch.ValidateCronJobUpdate(cj, fresh), wantCronJob)
	changed := cj.DeepCopy()
	changed.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Image = "busybox:1.37"
	assertErrors(t, batch.ValidateCronJobUpdate(changed, cj), nil)
}
