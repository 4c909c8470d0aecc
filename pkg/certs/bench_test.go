package certs

import (
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkFirstStart measures creating the whole PKI in an empty
// directory: four P-256 keys, three certificates, nine fsynced files.
func BenchmarkFirstStart(b *testing.B) {
	root := b.TempDir()
	for i := 0; b.Loop(); i++ {
		if _, err := EnsureBootstrap(filepath.Join(root, strconv.Itoa(i)), defaultOpts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRestart measures checking a complete PKI that is reused as is.
func BenchmarkRestart(b *testing.B) {
	dir := b.TempDir()
	if _, err := EnsureBootstrap(dir, defaultOpts); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := EnsureBootstrap(dir, defaultOpts); err != nil {
			b.Fatal(err)
		}
	}
}
