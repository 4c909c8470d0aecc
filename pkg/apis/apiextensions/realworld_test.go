package apiextensions

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/pkg/apis/internal/reference"
)

// Real CRDs, as their projects publish them, are valid.
func TestPublishedCRDsAreValid(t *testing.T) {
	dir := filepath.Join(reference.Dir(), "..", "..", "crds")
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no CRDs found in %s", dir)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range bytes.Split(data, []byte("\n---")) {
			if !bytes.Contains(doc, []byte("kind: CustomResourceDefinition")) {
				continue
			}
			t.Run(filepath.Base(file), func(t *testing.T) {
				c := decodeCRD(t, doc)
				if errs := ValidateCustomResourceDefinition(c, ValidationOptions{}); len(errs) > 0 {
					t.Errorf("document %d: %s", i, strings.Join(errorStrings(errs), "\n"))
				}
			})
		}
	}
}

// The CRD recorded from kube-apiserver is valid on create, and what
// kube-apiserver stored and then established is a valid update of it.
func TestReferenceCRD(t *testing.T) {
	input, output, err := reference.Defaulting("customresourcedefinition")
	if err != nil {
		t.Fatal(err)
	}
	created := decodeCRD(t, input)
	if errs := ValidateCustomResourceDefinition(created, ValidationOptions{}); len(errs) > 0 {
		t.Errorf("input: %v", errs)
	}

	stored := decodeCRD(t, output)
	if errs := ValidateCustomResourceDefinitionUpdate(stored, stored, ValidationOptions{}); len(errs) > 0 {
		t.Errorf("update of the stored CRD: %v", errs)
	}
	establishedData, err := reference.ReadFile(filepath.Join("defaulting", "customresourcedefinition.after-established.json"))
	if err != nil {
		t.Fatal(err)
	}
	established := decodeCRD(t, establishedData)
	if errs := ValidateCustomResourceDefinitionStatusUpdate(established, stored); len(errs) > 0 {
		t.Errorf("status update to established: %v", errs)
	}
	if !IsConditionTrue(established, "Established") || IsConditionTrue(stored, "Established") {
		t.Errorf("Established: stored %v, after %v; want false, true", IsConditionTrue(stored, "Established"), IsConditionTrue(established, "Established"))
	}
	// Once established, the kind is frozen.
	renamed := established.DeepCopy()
	renamed.Spec.Names.Kind, renamed.Spec.Names.ListKind = "Gadget", "GadgetList"
	checkErrors(t, ValidateCustomResourceDefinitionUpdate(renamed, established, ValidationOptions{}), []string{
		`spec.names.kind: Invalid value: "Gadget": field is immutable`,
	})
}
