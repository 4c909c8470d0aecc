package apfstatus_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kapi-dev/kapi/pkg/controlplane/apfstatus"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

// waitForDangling waits until FlowSchema name has the Dangling condition
// status and reason, written by kube-apiserver's field manager, and
// returns the condition.
func waitForDangling(t *testing.T, client kubernetes.Interface, name string, status flowcontrolv1.ConditionStatus, reason string) flowcontrolv1.FlowSchemaCondition {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var last string
	for {
		fs, err := client.FlowcontrolV1().FlowSchemas().Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			for _, c := range fs.Status.Conditions {
				if c.Type == flowcontrolv1.FlowSchemaConditionDangling && c.Status == status && c.Reason == reason {
					for _, m := range fs.ManagedFields {
						if m.Manager == apfstatus.FieldManager && m.Operation == metav1.ManagedFieldsOperationApply && m.Subresource == "status" {
							return c
						}
					}
				}
			}
			last = fmt.Sprintf("conditions %+v, managers %v", fs.Status.Conditions, fs.ManagedFields)
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			t.Fatalf("FlowSchema %s never had Dangling %s/%s applied as %s; last %s", name, status, reason, apfstatus.FieldManager, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// A FlowSchema's Dangling condition says whether its priority level
// exists, in kube-apiserver's words, and follows the level: the bootstrap
// schemas have theirs, a schema naming a missing level is dangling until
// the level is created, and again when it is deleted.
func TestDanglingConditionFollowsThePriorityLevel(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	client, err := kubernetes.NewForConfig(s.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	c := waitForDangling(t, client, "catch-all", flowcontrolv1.ConditionFalse, "Found")
	if want := `This FlowSchema references the PriorityLevelConfiguration object named "catch-all" and it exists`; c.Message != want {
		t.Errorf("catch-all: message %q, want %q", c.Message, want)
	}

	_, err = client.FlowcontrolV1().FlowSchemas().Create(ctx, &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: "orphan"},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "nowhere"},
			MatchingPrecedence:         5000,
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c = waitForDangling(t, client, "orphan", flowcontrolv1.ConditionTrue, "NotFound")
	if want := `This FlowSchema references the PriorityLevelConfiguration object named "nowhere" but there is no such object`; c.Message != want {
		t.Errorf("orphan: message %q, want %q", c.Message, want)
	}

	shares := int32(5)
	_, err = client.FlowcontrolV1().PriorityLevelConfigurations().Create(ctx, &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "nowhere"},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: &shares,
				LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitForDangling(t, client, "orphan", flowcontrolv1.ConditionFalse, "Found")

	if err := client.FlowcontrolV1().PriorityLevelConfigurations().Delete(ctx, "nowhere", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForDangling(t, client, "orphan", flowcontrolv1.ConditionTrue, "NotFound")
}
