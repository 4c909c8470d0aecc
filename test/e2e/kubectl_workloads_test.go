package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestKubectlJobsAutoscalersBudgets drives jobs, cron jobs, pod disruption
// budgets and horizontal pod autoscalers with the real kubectl's
// generators. The expected outputs are kube-apiserver 1.37.1's for the
// same commands.
func TestKubectlJobsAutoscalersBudgets(t *testing.T) {
	p := startKapiBinary(t, t.TempDir())
	p.mustKubectl(t, "", "create", "namespace", "work")
	kubectl := func(args ...string) string {
		t.Helper()
		return p.mustKubectl(t, "", append([]string{"-n", "work"}, args...)...)
	}

	t.Run("create cronjob, job, job from the cronjob, pdb; autoscale", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"create", "cronjob", "nightly", "--image=busybox", "--schedule=0 3 * * *", "--", "date"}, "cronjob.batch/nightly created\n"},
			{[]string{"create", "job", "once", "--image=busybox", "--", "date"}, "job.batch/once created\n"},
			{[]string{"create", "job", "manual", "--from=cronjob/nightly"}, "job.batch/manual created\n"},
			{[]string{"create", "pdb", "web-pdb", "--selector=app=web", "--min-available=50%"}, "poddisruptionbudget.policy/web-pdb created\n"},
			{[]string{"create", "deployment", "web", "--image=nginx"}, "deployment.apps/web created\n"},
			{[]string{"autoscale", "deployment", "web", "--min=2", "--max=5", "--cpu=70%"}, "horizontalpodautoscaler.autoscaling/web autoscaled\n"},
		} {
			if got := kubectl(c.args...); got != c.want {
				t.Errorf("kubectl %s:\n got %q\nwant %q", strings.Join(c.args, " "), got, c.want)
			}
		}
	})

	t.Run("get shows kube-apiserver's columns", func(t *testing.T) {
		for _, c := range []struct {
			resource string
			header   string
			row      string
		}{
			{"jobs", "NAME STATUS COMPLETIONS DURATION AGE", "once Running 0/1"},
			{"cronjobs", "NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE", "nightly 0 3 * * * <none> False 0 <none>"},
			{"pdb", "NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE", "web-pdb 50% N/A 0"},
			{"hpa", "NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE", "web Deployment/web cpu: <unknown>/70% 2 5 0"},
		} {
			lines := strings.Split(strings.TrimSpace(kubectl("get", c.resource)), "\n")
			if got := strings.Join(strings.Fields(lines[0]), " "); got != c.header {
				t.Errorf("get %s header %q, want %q", c.resource, got, c.header)
			}
			found := false
			for _, l := range lines[1:] {
				found = found || strings.HasPrefix(strings.Join(strings.Fields(l), " "), c.row)
			}
			if !found {
				t.Errorf("get %s: no row starting %q in\n%s", c.resource, c.row, strings.Join(lines, "\n"))
			}
		}
		wide := kubectl("get", "job", "once", "-o", "wide")
		if !strings.Contains(wide, "batch.kubernetes.io/controller-uid=") || !strings.Contains(wide, "busybox") {
			t.Errorf("get job -o wide lacks the selector or image:\n%s", wide)
		}
	})

	t.Run("a job from a cronjob is owned by it and has its template", func(t *testing.T) {
		got := kubectl("get", "job", "manual", "-o", `jsonpath={.metadata.annotations.cronjob\.kubernetes\.io/instantiate} {.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {.spec.template.spec.containers[0].name}`)
		if want := "manual CronJob/nightly nightly"; got != want {
			t.Errorf("job from cronjob = %q, want %q", got, want)
		}
	})

	t.Run("the autoscaler reads the same in v1 and v2", func(t *testing.T) {
		var v1 struct {
			Spec struct {
				TargetCPUUtilizationPercentage int `json:"targetCPUUtilizationPercentage"`
				MinReplicas                    int `json:"minReplicas"`
			} `json:"spec"`
		}
		if err := json.Unmarshal([]byte(kubectl("get", "--raw", "/apis/autoscaling/v1/namespaces/work/horizontalpodautoscalers/web")), &v1); err != nil {
			t.Fatal(err)
		}
		if v1.Spec.TargetCPUUtilizationPercentage != 70 || v1.Spec.MinReplicas != 2 {
			t.Errorf("autoscaling/v1 spec = %+v, want 70%% CPU from 2 replicas", v1.Spec)
		}
		got := kubectl("get", "hpa", "web", "-o", "jsonpath={.apiVersion} {.spec.metrics[0].resource.name} {.spec.metrics[0].resource.target.averageUtilization}")
		if want := "autoscaling/v2 cpu 70"; got != want {
			t.Errorf("autoscaling/v2 = %q, want %q", got, want)
		}
	})

	t.Run("kubectl delete job removes it, pods in the background", func(t *testing.T) {
		if got := kubectl("delete", "job", "once"); got != "job.batch \"once\" deleted from work namespace\n" {
			t.Errorf("delete job: %q", got)
		}
	})
}
