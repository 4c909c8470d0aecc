package rotate

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const half = megabyte / 2

// clock steps a second on each reading.
func clock(start time.Time) func() time.Time {
	t := start
	return func() time.Time { t = t.Add(time.Second); return t }
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	slices.Sort(out)
	return out
}

func write(t *testing.T, w *Writer, b byte, n int) {
	t.Helper()
	if _, err := w.Write(bytes.Repeat([]byte{b}, n)); err != nil {
		t.Fatal(err)
	}
}

func TestRotatesWhenAWriteWouldNotFit(t *testing.T) {
	dir := t.TempDir()
	w := &Writer{Filename: filepath.Join(dir, "audit.log"), MaxSize: 1, Now: clock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))}
	defer w.Close()
	write(t, w, 'a', half)
	write(t, w, 'b', half) // exactly 1 MB: fits
	if got := names(t, dir); !slices.Equal(got, []string{"audit.log"}) {
		t.Fatalf("files = %v, want no rotation yet", got)
	}
	write(t, w, 'c', 1)
	want := []string{"audit-2026-01-02T03-04-06.000.log", "audit.log"}
	if got := names(t, dir); !slices.Equal(got, want) {
		t.Fatalf("files = %v, want %v", got, want)
	}
	backup, _ := os.ReadFile(filepath.Join(dir, want[0]))
	current, _ := os.ReadFile(filepath.Join(dir, "audit.log"))
	if len(backup) != megabyte || string(current) != "c" {
		t.Errorf("backup has %d bytes, current %q", len(backup), current)
	}
}

func TestContinuesAnExistingFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.log")
	if err := os.WriteFile(path, bytes.Repeat([]byte{'x'}, megabyte-1), 0o600); err != nil {
		t.Fatal(err)
	}
	w := &Writer{Filename: path, MaxSize: 1, Now: clock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}
	defer w.Close()
	write(t, w, 'y', 2)
	if got := names(t, dir); len(got) != 2 {
		t.Errorf("files = %v, want the existing file counted and rotated", got)
	}
}

func TestKeepsMaxBackupsNewest(t *testing.T) {
	dir := t.TempDir()
	w := &Writer{Filename: filepath.Join(dir, "audit.log"), MaxSize: 1, MaxBackups: 2, Now: clock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}
	defer w.Close()
	for i := 0; i < 5; i++ {
		write(t, w, 'a', megabyte)
	}
	want := []string{"audit-2026-01-01T00-00-03.000.log", "audit-2026-01-01T00-00-04.000.log", "audit.log"}
	if got := names(t, dir); !slices.Equal(got, want) {
		t.Errorf("files = %v, want %v", got, want)
	}
}

func TestRemovesBackupsOlderThanMaxAge(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "audit-2025-01-01T00-00-00.000.log")
	recent := filepath.Join(dir, "audit-2026-01-09T00-00-00.000.log")
	unrelated := filepath.Join(dir, "other-2025-01-01T00-00-00.000.log")
	for _, p := range []string{old, recent, unrelated} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	w := &Writer{Filename: filepath.Join(dir, "audit.log"), MaxSize: 1, MaxAge: 7, Now: clock(time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC))}
	defer w.Close()
	write(t, w, 'a', megabyte)
	write(t, w, 'b', 1)
	got := names(t, dir)
	want := []string{"audit-2026-01-09T00-00-00.000.log", "audit-2026-01-10T00-00-01.000.log", "audit.log", "other-2025-01-01T00-00-00.000.log"}
	if !slices.Equal(got, want) {
		t.Errorf("files = %v, want %v", got, want)
	}
}

func TestCompressesBackups(t *testing.T) {
	dir := t.TempDir()
	w := &Writer{Filename: filepath.Join(dir, "audit.log"), MaxSize: 1, Compress: true, Now: clock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}
	defer w.Close()
	write(t, w, 'a', megabyte)
	write(t, w, 'b', 1)
	want := []string{"audit-2026-01-01T00-00-01.000.log.gz", "audit.log"}
	got := names(t, dir)
	if !slices.Equal(got, want) {
		t.Fatalf("files = %v, want %v", got, want)
	}
	f, err := os.Open(filepath.Join(dir, want[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil || len(data) != megabyte || strings.Trim(string(data), "a") != "" {
		t.Errorf("backup holds %d bytes (%v), want the rotated megabyte", len(data), err)
	}
}

func TestRefusesAWriteLargerThanMaxSize(t *testing.T) {
	w := &Writer{Filename: filepath.Join(t.TempDir(), "audit.log"), MaxSize: 1}
	defer w.Close()
	if _, err := w.Write(make([]byte, megabyte+1)); err == nil {
		t.Error("a write larger than the file may be was accepted")
	}
}

func TestNoRotationWithoutMaxSize(t *testing.T) {
	dir := t.TempDir()
	w := &Writer{Filename: filepath.Join(dir, "audit.log")}
	defer w.Close()
	write(t, w, 'a', megabyte)
	write(t, w, 'a', megabyte)
	if got := names(t, dir); len(got) != 1 {
		t.Errorf("files = %v", got)
	}
}
