package printers

import (
	"strings"
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The printers of resource.k8s.io/v1 (dynamic resource allocation) and
// storagemigration.k8s.io/v1.

var (
	deviceClassColumns           = []metav1.TableColumnDefinition{nameColumn, ageColumn}
	resourceClaimTemplateColumns = []metav1.TableColumnDefinition{nameColumn, ageColumn}
	resourceClaimColumns         = []metav1.TableColumnDefinition{
		nameColumn,
		column("State", "string", "A summary of the current state (allocated, pending, reserved, etc.)."),
		ageColumn,
	}
	resourceSliceColumns = []metav1.TableColumnDefinition{
		nameColumn,
		column("Node", "string", resourcev1.ResourceSliceSpec{}.SwaggerDoc()["nodeName"]),
		column("Driver", "string", resourcev1.ResourceSliceSpec{}.SwaggerDoc()["driver"]),
		column("Pool", "string", resourcev1.ResourcePool{}.SwaggerDoc()["name"]),
		ageColumn,
	}
	// The taint rule's selector is not printed (it can be long CEL);
	// its taint is.
	deviceTaintRuleColumns = []metav1.TableColumnDefinition{
		nameColumn,
		column("Key", "string", resourcev1.DeviceTaint{}.SwaggerDoc()["key"]),
		column("Value", "string", resourcev1.DeviceTaint{}.SwaggerDoc()["value"]),
		column("Effect", "string", resourcev1.DeviceTaint{}.SwaggerDoc()["effect"]),
		column("TimeAdded", "string", resourcev1.DeviceTaint{}.SwaggerDoc()["timeAdded"]),
		ageColumn,
	}
	// The Name column of migrations is the one column of kube-apiserver
	// without the "name" format.
	storageVersionMigrationColumns = []metav1.TableColumnDefinition{
		column("Name", "string", objectMetaDoc["name"]),
		column("Resource", "string", "GroupResource to migrate"),
		column("Status", "string", "Status of the migration"),
	}
)

func printDeviceClass(c *resourcev1.DeviceClass, now time.Time) []any {
	return []any{c.Name, since(c.CreationTimestamp, now)}
}

func printResourceClaimTemplate(t *resourcev1.ResourceClaimTemplate, now time.Time) []any {
	return []any{t.Name, since(t.CreationTimestamp, now)}
}

// printResourceClaim renders a claim's state: deleted, pending,
// allocated, reserved, as they apply.
func printResourceClaim(c *resourcev1.ResourceClaim, now time.Time) []any {
	var states []string
	if c.DeletionTimestamp != nil {
		states = append(states, "deleted")
	}
	switch {
	case c.Status.Allocation == nil && c.DeletionTimestamp == nil:
		states = append(states, "pending")
	case c.Status.Allocation != nil:
		states = append(states, "allocated")
		if len(c.Status.ReservedFor) > 0 {
			states = append(states, "reserved")
		}
	}
	return []any{c.Name, strings.Join(states, ","), since(c.CreationTimestamp, now)}
}

func printResourceSlice(s *resourcev1.ResourceSlice, now time.Time) []any {
	var node string
	if s.Spec.NodeName != nil {
		node = *s.Spec.NodeName
	}
	return []any{s.Name, node, s.Spec.Driver, s.Spec.Pool.Name, since(s.CreationTimestamp, now)}
}

func printDeviceTaintRule(r *resourcev1.DeviceTaintRule, now time.Time) []any {
	var added string
	if r.Spec.Taint.TimeAdded != nil {
		added = since(*r.Spec.Taint.TimeAdded, now)
	}
	t := r.Spec.Taint
	return []any{r.Name, t.Key, t.Value, string(t.Effect), added, since(r.CreationTimestamp, now)}
}

// printStorageVersionMigration renders the migrated resource and the
// last of the Running, Failed and Succeeded conditions that is true, or
// Unknown.
func printStorageVersionMigration(m *storagemigrationv1.StorageVersionMigration, _ time.Time) []any {
	status := "Unknown"
	for _, c := range m.Status.Conditions {
		if c.Status != metav1.ConditionTrue {
			continue
		}
		switch storagemigrationv1.MigrationConditionType(c.Type) {
		case storagemigrationv1.MigrationRunning, storagemigrationv1.MigrationFailed, storagemigrationv1.MigrationSucceeded:
			status = c.Type
		}
	}
	return []any{m.Name, m.Spec.Resource.String(), status}
}
