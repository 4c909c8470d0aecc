package apfbootstrap_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	flowcontrolclient "k8s.io/client-go/kubernetes/typed/flowcontrol/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/internal/required"
	"github.com/kapi-dev/kapi/pkg/controlplane/apfbootstrap"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

// startServer starts a kapi and waits until its configuration consumer
// has written the Dangling condition of every FlowSchema, as
// kube-apiserver's does after start-up: until then its status writes
// race the test's updates of the same objects.
func startServer(t *testing.T) flowcontrolclient.FlowcontrolV1Interface {
	t.Helper()
	s := testserver.Start(t, testserver.Options{})
	client, err := flowcontrolclient.NewForConfig(s.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	deadline := time.Now().Add(time.Minute)
	for {
		list, err := client.FlowSchemas().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		settled := len(list.Items) > 0
		for _, fs := range list.Items {
			if !hasDanglingCondition(fs.Status.Conditions) {
				settled = false
			}
		}
		if settled {
			return client
		}
		if time.Now().After(deadline) {
			t.Fatal("the FlowSchemas never all got their Dangling condition")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// modifySchema gets a FlowSchema, changes it and updates it, again after
// a conflict.
func modifySchema(t *testing.T, ctx context.Context, schemas flowcontrolclient.FlowSchemaInterface, name string, change func(*flowcontrolv1.FlowSchema)) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		fs, err := schemas.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(fs)
		_, err = schemas.Update(ctx, fs, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// modifyLevel is modifySchema for a PriorityLevelConfiguration.
func modifyLevel(t *testing.T, ctx context.Context, levels flowcontrolclient.PriorityLevelConfigurationInterface, name string, change func(*flowcontrolv1.PriorityLevelConfiguration)) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pl, err := levels.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(pl)
		_, err = levels.Update(ctx, pl, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func hasDanglingCondition(conditions []flowcontrolv1.FlowSchemaCondition) bool {
	for _, c := range conditions {
		if c.Type == flowcontrolv1.FlowSchemaConditionDangling {
			return true
		}
	}
	return false
}

// comparable keeps what the bootstrap decides of an object: its name,
// annotations, labels, generation and spec. The status is the APF
// controller's, and uid, resourceVersion and times differ by nature.
func comparableMeta(m metav1.ObjectMeta) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: m.Name, Annotations: m.Annotations, Labels: m.Labels, Generation: m.Generation}
}

// A started server has the FlowSchemas and PriorityLevelConfigurations
// kube-apiserver 1.37 has right after its start, field by field, written
// by kube-apiserver's field manager.
func TestBootstrapObjectsAreKubeAPIServers(t *testing.T) {
	client := startServer(t)
	ctx := context.Background()

	var wantSchemas flowcontrolv1.FlowSchemaList
	if err := yaml.Unmarshal(required.ReadReference(t, "bootstrap", "flowschemas.yaml"), &wantSchemas); err != nil {
		t.Fatal(err)
	}
	gotSchemas, err := client.FlowSchemas().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	type schema struct {
		Meta metav1.ObjectMeta
		Spec flowcontrolv1.FlowSchemaSpec
	}
	norm := func(l []flowcontrolv1.FlowSchema) []schema {
		var out []schema
		for _, fs := range l {
			out = append(out, schema{comparableMeta(fs.ObjectMeta), fs.Spec})
		}
		return out
	}
	if diff := cmp.Diff(norm(wantSchemas.Items), norm(gotSchemas.Items)); diff != "" {
		t.Errorf("flowschemas differ from kube-apiserver's (-want +got):\n%s", diff)
	}

	var wantLevels flowcontrolv1.PriorityLevelConfigurationList
	if err := yaml.Unmarshal(required.ReadReference(t, "bootstrap", "prioritylevelconfigurations.yaml"), &wantLevels); err != nil {
		t.Fatal(err)
	}
	gotLevels, err := client.PriorityLevelConfigurations().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	type level struct {
		Meta metav1.ObjectMeta
		Spec flowcontrolv1.PriorityLevelConfigurationSpec
	}
	normL := func(l []flowcontrolv1.PriorityLevelConfiguration) []level {
		var out []level
		for _, pl := range l {
			out = append(out, level{comparableMeta(pl.ObjectMeta), pl.Spec})
		}
		return out
	}
	if diff := cmp.Diff(normL(wantLevels.Items), normL(gotLevels.Items)); diff != "" {
		t.Errorf("prioritylevelconfigurations differ from kube-apiserver's (-want +got):\n%s", diff)
	}

	for _, pl := range gotLevels.Items {
		if len(pl.ManagedFields) != 1 || pl.ManagedFields[0].Manager != "api-priority-and-fairness-config-producer-v1" ||
			pl.ManagedFields[0].Operation != metav1.ManagedFieldsOperationUpdate {
			t.Errorf("%s: managed fields %+v, want one Update by api-priority-and-fairness-config-producer-v1", pl.Name, pl.ManagedFields)
		}
	}
}

// The ensurer's rules, one pass each: mandatory objects come back
// whatever was done to them, suggested ones only while their annotation
// says so, and objects that left the configuration go.
func TestEnsureRestoresByTheAutoUpdateAnnotation(t *testing.T) {
	client := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	schemas, levels := client.FlowSchemas(), client.PriorityLevelConfigurations()

	// A deleted mandatory schema and a deleted suggested level are
	// recreated.
	if err := schemas.Delete(ctx, "catch-all", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := levels.Delete(ctx, "workload-low", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	// A suggested schema its owner took over keeps its spec; one still
	// auto-updated gets its spec back. The updates are retried on a
	// conflict: the configuration consumer writes the status of the
	// schemas whose level was just deleted, as kube-apiserver's does.
	modifySchema(t, ctx, schemas, "service-accounts", func(owned *flowcontrolv1.FlowSchema) {
		owned.Annotations[flowcontrolv1.AutoUpdateAnnotationKey] = "false"
		owned.Spec.MatchingPrecedence = 9001
	})
	modifySchema(t, ctx, schemas, "global-default", func(auto *flowcontrolv1.FlowSchema) {
		auto.Spec.MatchingPrecedence = 9901
	})

	// A suggested level without the annotation whose spec changed
	// (generation 2) is its owner's: the annotation says so afterwards.
	modifyLevel(t, ctx, levels, "workload-high", func(unannotated *flowcontrolv1.PriorityLevelConfiguration) {
		delete(unannotated.Annotations, flowcontrolv1.AutoUpdateAnnotationKey)
		unannotated.Spec.Limited.NominalConcurrencyShares = ptr(int32(41))
	})

	// The exempt level's exempt settings are the admin's.
	modifyLevel(t, ctx, levels, "exempt", func(exempt *flowcontrolv1.PriorityLevelConfiguration) {
		exempt.Spec.Exempt.NominalConcurrencyShares = ptr(int32(7))
	})

	// Objects that are not part of the configuration go only when they
	// say they are auto-updated.
	stale := &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: "stale", Annotations: map[string]string{flowcontrolv1.AutoUpdateAnnotationKey: "true"}},
		Spec:       flowcontrolv1.FlowSchemaSpec{PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "global-default"}},
	}
	mine := stale.DeepCopy()
	mine.Name, mine.Annotations = "mine", nil
	for _, fs := range []*flowcontrolv1.FlowSchema{stale, mine} {
		if _, err := schemas.Create(ctx, fs, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	if err := apfbootstrap.Ensure(ctx, apfbootstrap.Clients{FlowSchemas: schemas, PriorityLevelConfigurations: levels}); err != nil {
		t.Fatal(err)
	}

	if _, err := schemas.Get(ctx, "catch-all", metav1.GetOptions{}); err != nil {
		t.Errorf("the mandatory schema catch-all was not recreated: %v", err)
	}
	if _, err := levels.Get(ctx, "workload-low", metav1.GetOptions{}); err != nil {
		t.Errorf("the suggested level workload-low was not recreated: %v", err)
	}
	if got, _ := schemas.Get(ctx, "service-accounts", metav1.GetOptions{}); got == nil || got.Spec.MatchingPrecedence != 9001 {
		t.Errorf("service-accounts, not auto-updated, was changed: %+v", got)
	}
	if got, _ := schemas.Get(ctx, "global-default", metav1.GetOptions{}); got == nil || got.Spec.MatchingPrecedence != 9900 {
		t.Errorf("global-default, auto-updated, did not get its spec back: %+v", got)
	}
	if got, _ := levels.Get(ctx, "workload-high", metav1.GetOptions{}); got == nil ||
		*got.Spec.Limited.NominalConcurrencyShares != 41 || got.Annotations[flowcontrolv1.AutoUpdateAnnotationKey] != "false" {
		t.Errorf("workload-high, changed and unannotated, should keep its spec and be annotated false: %+v", got)
	}
	if got, _ := levels.Get(ctx, "exempt", metav1.GetOptions{}); got == nil || *got.Spec.Exempt.NominalConcurrencyShares != 7 {
		t.Errorf("exempt lost the admin's exempt settings: %+v", got)
	}
	if _, err := schemas.Get(ctx, "stale", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("stale, auto-updated and not in the configuration, was not deleted: %v", err)
	}
	if _, err := schemas.Get(ctx, "mine", metav1.GetOptions{}); err != nil {
		t.Errorf("mine, without the annotation, was deleted: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }
