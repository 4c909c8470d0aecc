package warning

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAddWarning(t *testing.T) {
	tests := []struct {
		name  string
		texts []string
		want  []string
	}{
		{
			name: "none",
		},
		{
			name:  "empty text is ignored",
			texts: []string{""},
		},
		{
			name:  "one",
			texts: []string{"unknown field \"bogus\""},
			want:  []string{`299 - "unknown field \"bogus\""`},
		},
		{
			name:  "quotes and backslashes are escaped",
			texts: []string{`path C:\dir has "quotes"`},
			want:  []string{`299 - "path C:\\dir has \"quotes\""`},
		},
		{
			name:  "non-ASCII text is kept as UTF-8",
			texts: []string{"Iñtërnâtiônàlizætiøn"},
			want:  []string{`299 - "Iñtërnâtiônàlizætiøn"`},
		},
		{
			name:  "duplicates are dropped, order is kept",
			texts: []string{"b", "a", "b", "c", "a"},
			want:  []string{`299 - "b"`, `299 - "a"`, `299 - "c"`},
		},
		{
			name:  "texts a header cannot carry are dropped",
			texts: []string{"line\nbreak", "bell\a", "bad utf-8 \xff", "ok"},
			want:  []string{`299 - "ok"`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			header := http.Header{}
			ctx := WithRecorder(context.Background(), NewRecorder(header))
			for _, text := range tc.texts {
				AddWarning(ctx, text)
			}
			if diff := cmp.Diff(tc.want, header.Values("Warning")); diff != "" {
				t.Errorf("Warning headers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAddWarningWithoutRecorderIsANoOp(t *testing.T) {
	AddWarning(context.Background(), "nobody listens") // must not panic
}

func TestWarningsAfterSealAreDropped(t *testing.T) {
	header := http.Header{}
	r := NewRecorder(header)
	r.Add("before")
	r.Seal()
	r.Add("after")
	if diff := cmp.Diff([]string{`299 - "before"`}, header.Values("Warning")); diff != "" {
		t.Errorf("Warning headers (-want +got):\n%s", diff)
	}
}

// TestTruncation follows kube-apiserver: texts fit until their runes
// exceed 4096; then every text is cut to 256 runes, and warnings are
// accepted (cut) until the total again reaches 4096.
func TestTruncation(t *testing.T) {
	header := http.Header{}
	r := NewRecorder(header)

	long := func(c string, n int) string { return strings.Repeat(c, n) }
	want := func(text string) string { return `299 - "` + text + `"` }

	// 4000 runes fit.
	for _, c := range []string{"a", "b", "c", "d"} {
		r.Add(long(c, 1000))
	}
	if got := len(header.Values("Warning")); got != 4 {
		t.Fatalf("got %d warnings before the limit, want 4", got)
	}

	// 100 more exceed 4096: all five are rewritten, cut to 256 runes
	// (1124 runes in all).
	r.Add(long("e", 100))
	wantHeaders := []string{
		want(long("a", 256)), want(long("b", 256)), want(long("c", 256)), want(long("d", 256)),
		want(long("e", 100)),
	}
	if diff := cmp.Diff(wantHeaders, header.Values("Warning")); diff != "" {
		t.Fatalf("after truncation (-want +got):\n%s", diff)
	}

	// Texts are cut on a rune boundary (1380 runes now); duplicates of
	// cut texts are still dropped.
	r.Add(long("é", 300))
	r.Add(long("é", 300))
	wantHeaders = append(wantHeaders, want(long("é", 256)))

	// Eleven more: before the last the total is 1380+256*10 = 3940, under
	// the limit, so it is accepted and the total reaches 4196; then no more.
	for i := 0; i < 11; i++ {
		text := long(string(rune('f'+i)), 300)
		r.Add(text)
		wantHeaders = append(wantHeaders, want(text[:256]))
	}
	r.Add("dropped")
	if diff := cmp.Diff(wantHeaders, header.Values("Warning")); diff != "" {
		t.Errorf("final headers (-want +got):\n%s", diff)
	}
}

func TestConcurrentWarnings(t *testing.T) {
	header := http.Header{}
	r := NewRecorder(header)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				r.Add(strings.Repeat("x", j+1))
			}
		}()
	}
	wg.Wait()
	if got := len(header.Values("Warning")); got != 50 {
		t.Errorf("got %d distinct warnings, want 50", got)
	}
}
