package printers

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	nodev1 "k8s.io/api/node/v1"
)

// runtimeClassColumns are kube-apiserver's, whose Handler column has no
// description.
var runtimeClassColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Handler", "string", ""),
	ageColumn,
}

func printRuntimeClass(rc *nodev1.RuntimeClass, now time.Time) []any {
	return []any{rc.Name, rc.Handler, since(rc.CreationTimestamp, now)}
}
