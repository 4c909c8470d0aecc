// Package rotate is the rotating file behind --audit-log-path, with the
// rules of kube-apiserver's --audit-log-maxsize, --audit-log-maxbackup,
// --audit-log-maxage and --audit-log-compress:
//
//   - a write that would take the file past MaxSize megabytes first
//     renames it to <name>-<UTC time>.<ext> (the time of rotation, as
//     2006-01-02T15-04-05.000) and starts a new one;
//   - after a rotation, backups beyond the MaxBackups newest, and backups
//     older than MaxAge days, are removed (0 keeps them all);
//   - with Compress, backups are gzipped (<backup>.gz).
//
// A single write larger than MaxSize is refused, as kube-apiserver's
// writer refuses it. The file names are those kube-apiserver writes, so
// that tools reading its rotated logs read kapi's.
package rotate

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

const (
	megabyte   = 1 << 20
	timeFormat = "2006-01-02T15-04-05.000"
)

// Writer is a rotating log file. It is safe for concurrent use.
type Writer struct {
	// Filename is the file written; backups are made next to it.
	Filename string
	// MaxSize is the size in megabytes at which the file is rotated; 0
	// never rotates.
	MaxSize int
	// MaxBackups is how many backups are kept; 0 keeps them all.
	MaxBackups int
	// MaxAge is how many days backups are kept; 0 keeps them all.
	MaxAge int
	// Compress gzips the backups.
	Compress bool
	// Now is the clock; nil is time.Now.
	Now func() time.Time

	mu   sync.Mutex
	file *os.File
	size int64
}

func (w *Writer) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

// Write appends p to the file, rotating it first if p would not fit.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	limit := int64(w.MaxSize) * megabyte
	if w.MaxSize > 0 && int64(len(p)) > limit {
		return 0, fmt.Errorf("write length %d exceeds maximum file size %d", len(p), limit)
	}
	if w.file == nil {
		if err := w.open(); err != nil {
			return 0, err
		}
	}
	if w.MaxSize > 0 && w.size+int64(len(p)) > limit {
		if err := w.rotate(); err != nil {
			return 0, err
		}
	}
	n, err := w.file.Write(p)
	w.size += int64(n)
	return n, err
}

// Close closes the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.file == nil {
		return nil
	}
	err := w.file.Close()
	w.file = nil
	return err
}

func (w *Writer) open() error {
	if err := os.MkdirAll(filepath.Dir(w.Filename), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(w.Filename, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	w.file, w.size = f, info.Size()
	return nil
}

func (w *Writer) rotate() error {
	if err := w.file.Close(); err != nil {
		return err
	}
	w.file = nil
	now := w.now()
	backup := w.backupName(now)
	if err := os.Rename(w.Filename, backup); err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := w.open(); err != nil {
		return err
	}
	if w.Compress {
		if err := gzipFile(backup); err != nil {
			return err
		}
	}
	return w.prune(now)
}

// backupName is <dir>/<name>-<time>.<ext>.
func (w *Writer) backupName(t time.Time) string {
	dir, base := filepath.Split(w.Filename)
	ext := filepath.Ext(base)
	prefix := strings.TrimSuffix(base, ext)
	return filepath.Join(dir, prefix+"-"+t.UTC().Format(timeFormat)+ext)
}

type backup struct {
	path string
	t    time.Time
}

// backups lists the backups of the file, newest first.
func (w *Writer) backups() ([]backup, error) {
	dir, base := filepath.Split(w.Filename)
	if dir == "" {
		dir = "."
	}
	ext := filepath.Ext(base)
	prefix := strings.TrimSuffix(base, ext) + "-"
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []backup
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasPrefix(name, prefix) {
			continue
		}
		stamp := strings.TrimPrefix(name, prefix)
		switch {
		case strings.HasSuffix(stamp, ext+".gz"):
			stamp = strings.TrimSuffix(stamp, ext+".gz")
		case strings.HasSuffix(stamp, ext):
			stamp = strings.TrimSuffix(stamp, ext)
		default:
			continue
		}
		t, err := time.Parse(timeFormat, stamp)
		if err != nil {
			continue
		}
		out = append(out, backup{filepath.Join(dir, name), t})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].t.After(out[j].t) })
	return out, nil
}

func (w *Writer) prune(now time.Time) error {
	if w.MaxBackups == 0 && w.MaxAge == 0 {
		return nil
	}
	list, err := w.backups()
	if err != nil {
		return err
	}
	cutoff := now.Add(-time.Duration(w.MaxAge) * 24 * time.Hour)
	for i, b := range list {
		if (w.MaxBackups > 0 && i >= w.MaxBackups) || (w.MaxAge > 0 && b.t.Before(cutoff)) {
			if err := os.Remove(b.path); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
	}
	return nil
}

func gzipFile(path string) error {
	in, err := os.Open(path)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(path+".gz", os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(out)
	if _, err := io.Copy(zw, in); err != nil {
		out.Close()
		return err
	}
	if err := zw.Close(); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Remove(path)
}
