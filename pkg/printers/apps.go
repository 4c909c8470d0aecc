package printers

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The printers of apps/v1.

var deploymentColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Ready", "string", "Number of the pod with ready state"),
	column("Up-to-date", "string", appsv1.DeploymentStatus{}.SwaggerDoc()["updatedReplicas"]),
	column("Available", "string", appsv1.DeploymentStatus{}.SwaggerDoc()["availableReplicas"]),
	ageColumn,
	containersColumn,
	imagesColumn,
	wide(column("Selector", "string", appsv1.DeploymentSpec{}.SwaggerDoc()["selector"])),
}

func printDeployment(d *appsv1.Deployment, now time.Time) []any {
	names, images := containerCells(d.Spec.Template.Spec.Containers)
	selector := "<invalid>"
	if s, err := metav1.LabelSelectorAsSelector(d.Spec.Selector); err == nil {
		selector = s.String()
	}
	return []any{
		d.Name,
		fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, int32Value(d.Spec.Replicas)),
		int64(d.Status.UpdatedReplicas),
		int64(d.Status.AvailableReplicas),
		since(d.CreationTimestamp, now),
		names,
		images,
		selector,
	}
}

var replicaSetColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Desired", "integer", appsv1.ReplicaSetSpec{}.SwaggerDoc()["replicas"]),
	column("Current", "integer", appsv1.ReplicaSetStatus{}.SwaggerDoc()["replicas"]),
	column("Ready", "integer", appsv1.ReplicaSetStatus{}.SwaggerDoc()["readyReplicas"]),
	ageColumn,
	containersColumn,
	imagesColumn,
	wide(column("Selector", "string", appsv1.ReplicaSetSpec{}.SwaggerDoc()["selector"])),
}

func printReplicaSet(rs *appsv1.ReplicaSet, now time.Time) []any {
	names, images := containerCells(rs.Spec.Template.Spec.Containers)
	return []any{
		rs.Name,
		int64(int32Value(rs.Spec.Replicas)),
		int64(rs.Status.Replicas),
		int64(rs.Status.ReadyReplicas),
		since(rs.CreationTimestamp, now),
		names,
		images,
		metav1.FormatLabelSelector(rs.Spec.Selector),
	}
}

var statefulSetColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Ready", "string", "Number of the pod with ready state"),
	ageColumn,
	containersColumn,
	imagesColumn,
}

func printStatefulSet(ss *appsv1.StatefulSet, now time.Time) []any {
	names, images := containerCells(ss.Spec.Template.Spec.Containers)
	return []any{
		ss.Name,
		fmt.Sprintf("%d/%d", ss.Status.ReadyReplicas, int32Value(ss.Spec.Replicas)),
		since(ss.CreationTimestamp, now),
		names,
		images,
	}
}

var daemonSetColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Desired", "integer", appsv1.DaemonSetStatus{}.SwaggerDoc()["desiredNumberScheduled"]),
	column("Current", "integer", appsv1.DaemonSetStatus{}.SwaggerDoc()["currentNumberScheduled"]),
	column("Ready", "integer", appsv1.DaemonSetStatus{}.SwaggerDoc()["numberReady"]),
	column("Up-to-date", "integer", appsv1.DaemonSetStatus{}.SwaggerDoc()["updatedNumberScheduled"]),
	column("Available", "integer", appsv1.DaemonSetStatus{}.SwaggerDoc()["numberAvailable"]),
	column("Node Selector", "string", corev1.PodSpec{}.SwaggerDoc()["nodeSelector"]),
	ageColumn,
	containersColumn,
	imagesColumn,
	wide(column("Selector", "string", appsv1.DaemonSetSpec{}.SwaggerDoc()["selector"])),
}

func printDaemonSet(ds *appsv1.DaemonSet, now time.Time) []any {
	names, images := containerCells(ds.Spec.Template.Spec.Containers)
	return []any{
		ds.Name,
		int64(ds.Status.DesiredNumberScheduled),
		int64(ds.Status.CurrentNumberScheduled),
		int64(ds.Status.NumberReady),
		int64(ds.Status.UpdatedNumberScheduled),
		int64(ds.Status.NumberAvailable),
		labels.FormatLabels(ds.Spec.Template.Spec.NodeSelector),
		since(ds.CreationTimestamp, now),
		names,
		images,
		metav1.FormatLabelSelector(ds.Spec.Selector),
	}
}

var controllerRevisionColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Controller", "string", "Controller of the object"),
	column("Revision", "string", appsv1.ControllerRevision{}.SwaggerDoc()["revision"]),
	ageColumn,
}

func printControllerRevision(cr *appsv1.ControllerRevision, now time.Time) ([]any, error) {
	controller := "<none>"
	if ref := metav1.GetControllerOf(cr); ref != nil {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err != nil {
			return nil, err
		}
		controller = ref.Name
		if gk := gv.WithKind(ref.Kind).GroupKind(); !gk.Empty() {
			controller = strings.ToLower(gk.String()) + "/" + ref.Name
		}
	}
	return []any{cr.Name, controller, cr.Revision, since(cr.CreationTimestamp, now)}, nil
}
