package app

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// The admin.kubeconfig kapi copies into the data dir on every start is
// left alone when it is up to date, and otherwise replaced by a rename:
// a kubectl reading it during a restart never sees it empty or half
// written.
func TestCopyFileReplacesAtOnceAndOnlyWhenChanged(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, "from"), filepath.Join(dir, "to")
	if err := os.WriteFile(from, []byte("v1"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(from, to); err != nil {
		t.Fatal(err)
	}
	first := inode(t, to)
	if err := copyFile(from, to); err != nil {
		t.Fatal(err)
	}
	if inode(t, to) != first {
		t.Error("an up-to-date copy was written again")
	}
	if err := os.WriteFile(from, []byte("v2"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(from, to); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(to); string(data) != "v2" {
		t.Errorf("copy holds %q, want v2", data)
	}
	if inode(t, to) == first {
		t.Error("the copy was rewritten in place, not replaced")
	}
	if fi, _ := os.Stat(to); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
}
