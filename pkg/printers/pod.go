package printers

import (
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var (
	podSpecDoc   = corev1.PodSpec{}.SwaggerDoc()
	podStatusDoc = corev1.PodStatus{}.SwaggerDoc()
)

var podColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
	column("Status", "string", "The aggregate status of the containers in this pod."),
	column("Restarts", "string", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
	ageColumn,
	wide(column("IP", "string", podStatusDoc["podIP"])),
	wide(column("Node", "string", podSpecDoc["nodeName"])),
	wide(column("Nominated Node", "string", podStatusDoc["nominatedNodeName"])),
	wide(column("Readiness Gates", "string", podSpecDoc["readinessGates"])),
}

// nodeUnreachablePodReason is the status reason the node lifecycle
// controller gives the pods of a node it lost contact with.
const nodeUnreachablePodReason = "NodeLost"

// printPod renders a pod as kubectl get pods shows it. A pod that ran to
// completion, or failed, also gets a Completed row condition.
func printPod(pod *corev1.Pod, now time.Time) metav1.TableRow {
	s := summarizePod(pod)

	restarts := strconv.Itoa(s.restarts)
	if s.restarts != 0 && !s.lastRestart.IsZero() {
		restarts = fmt.Sprintf("%d (%s ago)", s.restarts, since(s.lastRestart, now))
	}

	r := metav1.TableRow{Cells: []any{
		pod.Name,
		fmt.Sprintf("%d/%d", s.ready, s.total),
		s.status,
		restarts,
		since(pod.CreationTimestamp, now),
		orNone(podIP(&pod.Status)),
		orNone(pod.Spec.NodeName),
		orNone(pod.Status.NominatedNodeName),
		readinessGates(pod),
	}}
	switch pod.Status.Phase {
	case corev1.PodSucceeded:
		r.Conditions = []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue, Reason: string(corev1.PodSucceeded), Message: "The pod has completed successfully."}}
	case corev1.PodFailed:
		r.Conditions = []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue, Reason: string(corev1.PodFailed), Message: "The pod failed."}}
	}
	return r
}

// podSummary is what the Ready, Status and Restarts columns say about a
// pod.
type podSummary struct {
	ready, total int
	status       string
	restarts     int
	// lastRestart is when the most recent of the counted restarts ended
	// the previous run of its container.
	lastRestart metav1.Time
}

// restartTally counts container restarts and remembers the latest.
type restartTally struct {
	count int
	last  metav1.Time
}

func (t *restartTally) add(s *corev1.ContainerStatus) {
	t.count += int(s.RestartCount)
	if prev := s.LastTerminationState.Terminated; prev != nil && t.last.Before(&prev.FinishedAt) {
		t.last = prev.FinishedAt
	}
}

// summarizePod computes the Ready, Status and Restarts of a pod the way
// kube-apiserver does:
//
//   - Status starts as the phase, or the pod's status reason (Evicted,
//     ...) when set, or SchedulingGated while scheduling gates hold it.
//   - While init containers run, it is Init:<i>/<n>, or Init:<reason> when
//     one waits (Init:CrashLoopBackOff) or failed (Init:Error,
//     Init:ExitCode:1, Init:Signal:9); restarts then count every init
//     container up to the one running.
//   - Once initialized, the first app container that waits or terminated
//     gives the status (CrashLoopBackOff, Completed, OOMKilled, ...), and
//     restarts count app containers and sidecars (restartable init
//     containers), which also count in Ready.
//   - A Completed pod that still has a running container is Running
//     (when the pod is Ready) or NotReady; one with a failed container
//     shows that container's reason.
//   - A pod being deleted is Terminating (Unknown when its node is lost),
//     unless it already finished.
func summarizePod(pod *corev1.Pod) podSummary {
	s := podSummary{total: len(pod.Spec.Containers), status: string(pod.Status.Phase)}
	if pod.Status.Reason != "" {
		s.status = pod.Status.Reason
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonSchedulingGated {
			s.status = corev1.PodReasonSchedulingGated
		}
	}

	sidecars := make(map[string]bool)
	for i := range pod.Spec.InitContainers {
		if c := &pod.Spec.InitContainers[i]; isSidecar(c) {
			sidecars[c.Name] = true
			s.total++
		}
	}

	// Walk the init containers in order up to the first one that has not
	// finished (sidecars that started count as finished).
	var all, sidecarRestarts restartTally
	initializing := false
	for i := range pod.Status.InitContainerStatuses {
		c := &pod.Status.InitContainerStatuses[i]
		all.add(c)
		if sidecars[c.Name] {
			sidecarRestarts.add(c)
		}
		if done := c.State.Terminated != nil && c.State.Terminated.ExitCode == 0; done {
			continue
		}
		if sidecars[c.Name] && c.Started != nil && *c.Started {
			if c.Ready {
				s.ready++
			}
			continue
		}
		initializing = true
		switch {
		case c.State.Terminated != nil:
			s.status = "Init:" + terminationReason(c.State.Terminated)
		case c.State.Waiting != nil && c.State.Waiting.Reason != "" && c.State.Waiting.Reason != "PodInitializing":
			s.status = "Init:" + c.State.Waiting.Reason
		default:
			s.status = fmt.Sprintf("Init:%d/%d", i, len(pod.Spec.InitContainers))
		}
		break
	}
	s.restarts, s.lastRestart = all.count, all.last

	if !initializing || podConditionTrue(pod, corev1.PodInitialized) {
		tally := sidecarRestarts
		hasRunning := false
		errorReason := ""
		// The first container that waits or terminated wins: walk
		// backwards so that it is the last to set the status.
		for i := len(pod.Status.ContainerStatuses) - 1; i >= 0; i-- {
			c := &pod.Status.ContainerStatuses[i]
			tally.add(c)
			switch {
			case c.State.Waiting != nil && c.State.Waiting.Reason != "":
				s.status = c.State.Waiting.Reason
			case c.State.Terminated != nil:
				s.status = terminationReason(c.State.Terminated)
				if c.State.Terminated.ExitCode != 0 {
					errorReason = s.status
				}
			case c.Ready && c.State.Running != nil:
				hasRunning = true
				s.ready++
			}
		}
		s.restarts, s.lastRestart = tally.count, tally.last

		if s.status == "Completed" {
			switch {
			case hasRunning && podReady(pod):
				s.status = "Running"
			case errorReason != "":
				s.status = errorReason
			case hasRunning:
				s.status = "NotReady"
			}
		}
	}

	if pod.DeletionTimestamp != nil {
		switch {
		case pod.Status.Reason == nodeUnreachablePodReason:
			s.status = "Unknown"
		case pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed:
			s.status = "Terminating"
		}
	}
	return s
}

// terminationReason is the reason a container terminated, or its signal
// or exit code when the runtime gave no reason.
func terminationReason(t *corev1.ContainerStateTerminated) string {
	switch {
	case t.Reason != "":
		return t.Reason
	case t.Signal != 0:
		return fmt.Sprintf("Signal:%d", t.Signal)
	default:
		return fmt.Sprintf("ExitCode:%d", t.ExitCode)
	}
}

// isSidecar tells whether an init container keeps running beside the app
// containers (restartPolicy Always).
func isSidecar(c *corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// podReady tells whether any Ready condition of the pod is true.
func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// podConditionTrue tells whether the first condition of type t is true.
func podConditionTrue(pod *corev1.Pod, t corev1.PodConditionType) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podIP is the pod's primary IP. podIP wins over podIPs when both are set,
// as in the conversion kube-apiserver applies before printing.
func podIP(status *corev1.PodStatus) string {
	if status.PodIP != "" {
		return status.PodIP
	}
	if len(status.PodIPs) > 0 {
		return status.PodIPs[0].IP
	}
	return ""
}

// readinessGates is "<true>/<gates>" for the pod's readiness gates, or
// "<none>".
func readinessGates(pod *corev1.Pod) string {
	if len(pod.Spec.ReadinessGates) == 0 {
		return "<none>"
	}
	passed := 0
	for _, gate := range pod.Spec.ReadinessGates {
		for _, c := range pod.Status.Conditions {
			if c.Type == gate.ConditionType {
				if c.Status == corev1.ConditionTrue {
					passed++
				}
				break
			}
		}
	}
	return fmt.Sprintf("%d/%d", passed, len(pod.Spec.ReadinessGates))
}
