package main

import (
	"os"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/internal/required"
)

func TestGrowthOverSize(t *testing.T) {
	// 20 MiB of growth for a 10 MiB response.
	if got := growthOverSize(20*1024, 10<<20); got != 2 {
		t.Errorf("got %v, want 2", got)
	}
	if got := growthOverSize(5, 0); got != 0 {
		t.Errorf("no response: got %v", got)
	}
}

func TestRSSSampler(t *testing.T) {
	s, err := startRSSSampler(os.Getpid(), time.Millisecond)
	if err != nil {
		required.Missing(t, "/proc (kapi-bench measures servers through it, on Linux)", err)
	}
	// Touch 32 MiB so that the peak is above where it started.
	ballast := make([]byte, 32<<20)
	for i := range ballast {
		if i%4096 == 0 {
			ballast[i] = 1
		}
	}
	time.Sleep(20 * time.Millisecond)
	peak, n, err := s.stop()
	if err != nil {
		t.Fatal(err)
	}
	if n < 2 || peak.rssKiB < 32*1024 || peak.hwmKiB < peak.rssKiB {
		t.Errorf("%d samples, peak %+v", n, peak)
	}
	_ = ballast[len(ballast)-1]
	if _, err := startRSSSampler(-1, time.Millisecond); err == nil {
		t.Error("no error for a missing process")
	}
}
