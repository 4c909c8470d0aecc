package embedded

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"go.uber.org/zap"
)

// etcd's zap log reaches the slog logger kapi hands down, one record per
// entry with zap's fields as attributes, filtered by LogLevel and by the
// handler's own level, without the errors etcd logs when nothing is wrong.
func TestEtcdLogGoesToTheGivenLogger(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo}))
	var closing atomic.Bool
	lg, err := newLogger(log, "info", &closing)
	if err != nil {
		t.Fatal(err)
	}
	lg.Named("raft").With(zap.String("member", "kapi")).Warn("slow apply", zap.Int("took-ms", 120))
	lg.Debug("below LogLevel")
	lg.Error("failed to update storage version", zap.Error(errors.New("cluster: missing term information")))
	closing.Store(true)
	lg.Error(closingMessage)
	lg.Error("real trouble", zap.Error(errors.New("disk full")))

	got := out.String()
	for _, want := range []string{
		`level=WARN msg="slow apply" member=kapi logger=raft took-ms=120`,
		`level=ERROR msg="real trouble" error="disk full"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %q:\n%s", want, got)
		}
	}
	for _, unwanted := range []string{"below LogLevel", "failed to update storage version", closingMessage} {
		if strings.Contains(got, unwanted) {
			t.Errorf("log has %q:\n%s", unwanted, got)
		}
	}
}

// With no logger etcd's log is discarded, not written to stderr.
func TestEtcdLogWithoutLoggerIsDiscarded(t *testing.T) {
	lg, err := newLogger(nil, "debug", new(atomic.Bool))
	if err != nil {
		t.Fatal(err)
	}
	if lg.Core().Enabled(zap.ErrorLevel) {
		t.Error("a nil logger still writes etcd's errors somewhere")
	}
}
