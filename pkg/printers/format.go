package printers

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// objectMetaDoc holds the descriptions of the metadata fields, which most
// tables use for their Name and Age columns.
var objectMetaDoc = metav1.ObjectMeta{}.SwaggerDoc()

var (
	nameColumn = metav1.TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]}
	ageColumn  = column("Age", "string", objectMetaDoc["creationTimestamp"])

	containersColumn = wide(column("Containers", "string", "Names of each container in the template."))
	imagesColumn     = wide(column("Images", "string", "Images referenced by each container in the template."))
)

// column defines a column shown by kubectl get.
func column(name, typ, description string) metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: name, Type: typ, Description: description}
}

// wide makes c a column shown only by kubectl get -o wide.
func wide(c metav1.TableColumnDefinition) metav1.TableColumnDefinition {
	c.Priority = 1
	return c
}

// since is the age of something that happened at t: "<unknown>" when t is
// not set.
func since(t metav1.Time, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t.Time))
}

// sinceMicro is since for a MicroTime.
func sinceMicro(t metav1.MicroTime, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t.Time))
}

// containerCells lists the names and the images of containers, each
// comma-separated.
func containerCells(containers []corev1.Container) (names, images string) {
	var n, i strings.Builder
	for idx, c := range containers {
		if idx > 0 {
			n.WriteByte(',')
			i.WriteByte(',')
		}
		n.WriteString(c.Name)
		i.WriteString(c.Image)
	}
	return n.String(), i.String()
}

// orNone returns s, or "<none>" when s is empty.
func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// boolPtr prints an optional boolean: "True", "False" or "<unset>".
func boolPtr(b *bool) string {
	switch {
	case b == nil:
		return "<unset>"
	case *b:
		return "True"
	default:
		return "False"
	}
}

// int32Value is *p, or 0 when p is nil, the way a nil pointer converts to
// the non-pointer fields of kube-apiserver's internal types.
func int32Value(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}
