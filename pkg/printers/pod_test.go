package printers

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Container statuses, in the states the kubelet reports.

func running(name string, ready bool) corev1.ContainerStatus {
	return corev1.ContainerStatus{
		Name:    name,
		Ready:   ready,
		Started: ptr(true),
		State:   corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: ago(time.Hour)}},
	}
}

func waiting(name, reason string) corev1.ContainerStatus {
	return corev1.ContainerStatus{
		Name:    name,
		Started: ptr(false),
		State:   corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}},
	}
}

func terminated(name, reason string, exitCode, signal int32) corev1.ContainerStatus {
	return corev1.ContainerStatus{
		Name:    name,
		Started: ptr(false),
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			Reason: reason, ExitCode: exitCode, Signal: signal, FinishedAt: ago(time.Minute),
		}},
	}
}

// restarted records that a container restarted n times, the last run
// having ended d ago.
func restarted(s corev1.ContainerStatus, n int32, d time.Duration) corev1.ContainerStatus {
	s.RestartCount = n
	s.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{Reason: "Error", ExitCode: 1, FinishedAt: ago(d)}
	return s
}

func condition(t corev1.PodConditionType, status corev1.ConditionStatus) corev1.PodCondition {
	return corev1.PodCondition{Type: t, Status: status}
}

// pod is a pod named p with an app container per name in containers.
func pod(phase corev1.PodPhase, containers ...string) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", CreationTimestamp: ago(time.Hour)},
		Status:     corev1.PodStatus{Phase: phase},
	}
	for _, c := range containers {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: c, Image: "nginx"})
	}
	return p
}

// withInit adds init containers; a name starting with "sidecar" is a
// restartable init container.
func withInit(p *corev1.Pod, names ...string) *corev1.Pod {
	for _, n := range names {
		c := corev1.Container{Name: n, Image: "busybox"}
		if strings.HasPrefix(n, "sidecar") {
			c.RestartPolicy = ptr(corev1.ContainerRestartPolicyAlways)
		}
		p.Spec.InitContainers = append(p.Spec.InitContainers, c)
	}
	return p
}

func TestPodReadyStatusRestarts(t *testing.T) {
	deleting := func(p *corev1.Pod) *corev1.Pod {
		p.DeletionTimestamp = agoPtr(time.Second)
		return p
	}
	tests := []struct {
		name string
		pod  *corev1.Pod
		// The Ready, Status and Restarts cells.
		want []any
	}{{
		name: "a pod nothing has run yet shows its phase",
		pod:  pod(corev1.PodPending, "app"),
		want: []any{"0/1", "Pending", "0"},
	}, {
		name: "a running pod counts its ready containers",
		pod: func() *corev1.Pod {
			p := pod(corev1.PodRunning, "a", "b")
			p.Status.ContainerStatuses = []corev1.ContainerStatus{running("a", true), running("b", false)}
			return p
		}(),
		want: []any{"1/2", "Running", "0"},
	}, {
		name: "the status reason wins over the phase",
		pod: func() *corev1.Pod {
			p := pod(corev1.PodFailed, "app")
			p.Status.Reason = "Evicted"
			return p
		}(),
		want: []any{"0/1", "Evicted", "0"},
	}, {
		name: "a pod held by scheduling gates",
		pod: func() *corev1.Pod {
			p := pod(corev1.PodPending, "app")
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonSchedulingGated}}
			return p
		}(),
		want: []any{"0/1", "SchedulingGated", "0"},
	}, {
		name: "restarts show when the last one happened",
		pod: func() *corev1.Pod {
			p := pod(corev1.PodRunning, "app")
			p.Status.ContainerStatuses = []corev1.ContainerStatus{restarted(waiting("app", "CrashLoopBackOff"), 3, 5*time.Minute)}
			return p
		}(),
		want: []any{"0/1", "CrashLoopBackOff", "3 (5m ago)"},
	}, {
		name: "restarts without a recorded termination show no time",
		pod: func() *corev1.Pod {
			p := pod(corev1.PodRunning, "app")
			s := running("app", true)
			s.RestartCount = 2
			p.Status.ContainerStatuses = []corev1.ContainerStatus{s}
			return p
		}(),
		want: []any{"1/1", "Running", "2"},
	}, {
		name: "restarts add up over containers, with the latest time",
		pod: func() *corev1.Pod {
			p := pod(corev1.PodRunning, "a", "b")
			p.Status.ContainerStatuses = []corev1.ContainerStatus{
				restarted(running("a", true), 1, 10*time.Minute),
				restarted(running("b", true), 2, 90*time.Second),
			}
			return p
		}(),
		want: []any{"2/2", "Running", "3 (90s ago)"},
	}, {
		name: "the first container in trouble gives the status",
		pod: func() *corev1.Pod {
			p := pod(corev1.PodPending, "a", "b")
			p.Status.ContainerStatuses = []corev1.ContainerStatus{waiting("a", "ErrImagePull"), waiting("b", "CrashLoopBackOff")}
			return p
		}(),
		want: []any{"0/2", "ErrImagePull", "0"},
	}, {
		name: "a container that terminated without a reason shows its exit code",
		pod: func() *corev1.Pod {
			p := pod(corev1.PodRunning, "app")
			p.Status.ContainerStatuses = []corev1.ContainerStatus{terminated("app", "", 137, 0)}
			return p
		}(),
		want: []any{"0/1", "ExitCode:137", "0"},
	}, {
		name: "or the signal that killed it",
		pod: func() *corev1.Pod {
			p := pod(corev1.PodRunning, "app")
			p.Status.ContainerStatuses = []corev1.ContainerStatus{terminated("app", "", 0, 9)}
			return p
		}(),
		want: []any{"0/1", "Signal:9", "0"},
	}, {
		name: "a pod that ran to completion",
		pod: func() *corev1.Pod {
			p := pod(corev1.PodSucceeded, "app")
			p.Status.ContainerStatuses = []corev1.ContainerStatus{terminated("app", "Completed", 0, 0)}
			return p
		}(),
		want: []any{"0/1", "Completed", "0"},
	}, {
		name: "a completed container beside a running one in a ready pod",
		pod: func() *corev1.Pod {
			p := pod(corev1.PodRunning, "job", "server")
			p.Status.ContainerStatuses = []corev1.ContainerStatus{terminated("job", "Completed", 0, 0), running("server", true)}
			p.Status.Conditions = []corev1.PodCondition{condition(corev1.PodReady, corev1.ConditionTrue)}
			return p
		}(),
		want: []any{"1/2", "Running", "0"},
	}, {
		name: "a completed container beside a running one in a pod not ready",
		pod: func() *corev1.Pod {
			p := pod(corev1.PodRunning, "job", "server")
			p.Status.ContainerStatuses = []corev1.ContainerStatus{terminated("job", "Completed", 0, 0), running("server", true)}
			p.Status.Conditions = []corev1.PodCondition{condition(corev1.PodReady, corev1.ConditionFalse)}
			return p
		}(),
		want: []any{"1/2", "NotReady", "0"},
	}, {
		name: "a completed container beside a failed one shows the failure",
		pod: func() *corev1.Pod {
			p := pod(corev1.PodFailed, "a", "b")
			p.Status.ContainerStatuses = []corev1.ContainerStatus{terminated("a", "Completed", 0, 0), terminated("b", "Error", 1, 0)}
			return p
		}(),
		want: []any{"0/2", "Error", "0"},
	}, {
		name: "init containers running show their progress",
		pod: func() *corev1.Pod {
			p := withInit(pod(corev1.PodPending, "app"), "first", "second")
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{terminated("first", "Completed", 0, 0), running("second", false)}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{waiting("app", "PodInitializing")}
			return p
		}(),
		want: []any{"0/1", "Init:1/2", "0"},
	}, {
		name: "an init container waiting for the pod to initialize shows progress",
		pod: func() *corev1.Pod {
			p := withInit(pod(corev1.PodPending, "app"), "init")
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{waiting("init", "PodInitializing")}
			return p
		}(),
		want: []any{"0/1", "Init:0/1", "0"},
	}, {
		name: "a crash-looping init container, with its restarts",
		pod: func() *corev1.Pod {
			p := withInit(pod(corev1.PodPending, "app"), "init")
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{restarted(waiting("init", "CrashLoopBackOff"), 4, 2*time.Minute)}
			return p
		}(),
		want: []any{"0/1", "Init:CrashLoopBackOff", "4 (2m ago)"},
	}, {
		name: "a failed init container",
		pod: func() *corev1.Pod {
			p := withInit(pod(corev1.PodPending, "app"), "init")
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{terminated("init", "Error", 1, 0)}
			return p
		}(),
		want: []any{"0/1", "Init:Error", "0"},
	}, {
		name: "a failed init container without a reason shows its exit code",
		pod: func() *corev1.Pod {
			p := withInit(pod(corev1.PodPending, "app"), "init")
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{terminated("init", "", 2, 0)}
			return p
		}(),
		want: []any{"0/1", "Init:ExitCode:2", "0"},
	}, {
		name: "or the signal that killed it",
		pod: func() *corev1.Pod {
			p := withInit(pod(corev1.PodPending, "app"), "init")
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{terminated("init", "", 2, 15)}
			return p
		}(),
		want: []any{"0/1", "Init:Signal:15", "0"},
	}, {
		name: "once initialized, init container restarts no longer count",
		pod: func() *corev1.Pod {
			p := withInit(pod(corev1.PodRunning, "app"), "init")
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{restarted(terminated("init", "Completed", 0, 0), 2, time.Hour)}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{running("app", true)}
			p.Status.Conditions = []corev1.PodCondition{condition(corev1.PodInitialized, corev1.ConditionTrue)}
			return p
		}(),
		want: []any{"1/1", "Running", "0"},
	}, {
		name: "a started sidecar counts in Ready and Restarts",
		pod: func() *corev1.Pod {
			p := withInit(pod(corev1.PodRunning, "app"), "sidecar")
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{restarted(running("sidecar", true), 1, 3*time.Minute)}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{running("app", true)}
			p.Status.Conditions = []corev1.PodCondition{condition(corev1.PodInitialized, corev1.ConditionTrue)}
			return p
		}(),
		want: []any{"2/2", "Running", "1 (3m ago)"},
	}, {
		name: "a sidecar that has not started holds initialization",
		pod: func() *corev1.Pod {
			p := withInit(pod(corev1.PodPending, "app"), "sidecar")
			s := running("sidecar", false)
			s.Started = ptr(false)
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{s}
			return p
		}(),
		want: []any{"0/2", "Init:0/1", "0"},
	}, {
		name: "a pod being deleted is terminating",
		pod: func() *corev1.Pod {
			p := deleting(pod(corev1.PodRunning, "app"))
			p.Status.ContainerStatuses = []corev1.ContainerStatus{running("app", true)}
			return p
		}(),
		want: []any{"1/1", "Terminating", "0"},
	}, {
		name: "a finished pod being deleted stays finished",
		pod: func() *corev1.Pod {
			p := deleting(pod(corev1.PodSucceeded, "app"))
			p.Status.ContainerStatuses = []corev1.ContainerStatus{terminated("app", "Completed", 0, 0)}
			return p
		}(),
		want: []any{"0/1", "Completed", "0"},
	}, {
		name: "a pod being deleted on a lost node is unknown",
		pod: func() *corev1.Pod {
			p := deleting(pod(corev1.PodRunning, "app"))
			p.Status.Reason = "NodeLost"
			return p
		}(),
		want: []any{"0/1", "Unknown", "0"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := rowCells(t, tt.pod)[1:4]
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Ready, Status, Restarts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodWideColumns(t *testing.T) {
	tests := []struct {
		name   string
		status corev1.PodStatus
		spec   corev1.PodSpec
		// The IP, Node, Nominated Node and Readiness Gates cells.
		want []any
	}{{
		name: "an unscheduled pod",
		want: []any{"<none>", "<none>", "<none>", "<none>"},
	}, {
		name:   "a scheduled pod with its IPs",
		spec:   corev1.PodSpec{NodeName: "node-1"},
		status: corev1.PodStatus{PodIP: "10.0.0.5", PodIPs: []corev1.PodIP{{IP: "10.0.0.5"}, {IP: "fd00::5"}}},
		want:   []any{"10.0.0.5", "node-1", "<none>", "<none>"},
	}, {
		name:   "podIPs stand in for podIP",
		status: corev1.PodStatus{PodIPs: []corev1.PodIP{{IP: "fd00::5"}}},
		want:   []any{"fd00::5", "<none>", "<none>", "<none>"},
	}, {
		name:   "a pod preempting others for a node",
		status: corev1.PodStatus{NominatedNodeName: "node-2"},
		want:   []any{"<none>", "<none>", "node-2", "<none>"},
	}, {
		name: "readiness gates count the conditions that are true",
		spec: corev1.PodSpec{ReadinessGates: []corev1.PodReadinessGate{{ConditionType: "a"}, {ConditionType: "b"}, {ConditionType: "c"}}},
		status: corev1.PodStatus{Conditions: []corev1.PodCondition{
			condition("a", corev1.ConditionTrue), condition("b", corev1.ConditionFalse),
		}},
		want: []any{"<none>", "<none>", "<none>", "1/3"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pod(corev1.PodPending, "app")
			p.Spec.NodeName, p.Spec.ReadinessGates = tt.spec.NodeName, tt.spec.ReadinessGates
			p.Status = tt.status
			got := rowCells(t, p)[5:]
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("IP, Node, Nominated Node, Readiness Gates (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodRowConditions(t *testing.T) {
	tests := []struct {
		phase corev1.PodPhase
		want  []metav1.TableRowCondition
	}{
		{corev1.PodPending, nil},
		{corev1.PodRunning, nil},
		{corev1.PodSucceeded, []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue, Reason: "Succeeded", Message: "The pod has completed successfully."}}},
		{corev1.PodFailed, []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue, Reason: "Failed", Message: "The pod failed."}}},
	}
	for _, tt := range tests {
		t.Run(string(tt.phase), func(t *testing.T) {
			got := convert(t, pod(tt.phase, "app")).Rows[0].Conditions
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("row conditions (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodColumns(t *testing.T) {
	want := []string{"Name", "Ready", "Status", "Restarts", "Age", "IP*", "Node*", "Nominated Node*", "Readiness Gates*"}
	if diff := cmp.Diff(want, columnNames(convert(t, &corev1.PodList{}))); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
}
