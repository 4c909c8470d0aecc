package main

import (
	"bytes"
	"os"
	"testing"
)

// The generated file matches the source of the API packages in go.mod:
// after bumping k8s.io/api or k8s.io/apimachinery, run go generate.
func TestGeneratedFileIsUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the source of all API packages")
	}
	want, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../zz_generated.apidocs.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("zz_generated.apidocs.go is out of date: run go generate ./pkg/openapi/...")
	}
}

func TestDescription(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"paragraph lines are joined", []string{"A pod is", "a group of containers."}, "A pod is a group of containers."},
		{"blank lines separate paragraphs", []string{"One.", "", "Two."}, "One.\n\nTwo."},
		{"indented lines keep their line", []string{"Example:", "\tfoo: bar", "\tbaz: qux", "Done."}, "Example:\n\tfoo: bar\n\tbaz: qux\nDone."},
		{"tags and TODOs are dropped", []string{"+optional", "Name.", "TODO: remove"}, "Name."},
		{"a --- line ends the description", []string{"Shown.", "---", "Hidden."}, "Shown."},
		{"--- inside a line does not", []string{"Mode rw-rw----, then more."}, "Mode rw-rw----, then more."},
	} {
		if got := description(tc.lines); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
