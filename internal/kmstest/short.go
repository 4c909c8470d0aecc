package kmstest

import (
	"os"
	"testing"
)

// filepathShort is a fresh directory with a path short enough for a unix
// socket (108 bytes on Linux), removed when the test ends.
func filepathShort(t testing.TB) (string, error) {
	dir, err := os.MkdirTemp("", "kms")
	if err != nil {
		return "", err
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir, nil
}
