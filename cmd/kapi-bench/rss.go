package main

import (
	"bytes"
	"fmt"
	"os"
	"time"
)

// rssSampler reads a process's VmRSS every interval until stopped and keeps
// the largest value: the peak resident memory during a request, at the
// sampling's resolution. A peak shorter than the interval can be missed;
// Go's heap does not shrink that fast, as memory goes back to the kernel
// only through the background scavenger.
type rssSampler struct {
	stopCh chan struct{}
	done   chan struct{}
	peak   memory // largest VmRSS seen, and the VmHWM read with it
	n      int    // samples taken
	err    error
}

// startRSSSampler takes a first sample of pid at once, then one every
// interval.
func startRSSSampler(pid int, interval time.Duration) (*rssSampler, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	s := &rssSampler{stopCh: make(chan struct{}), done: make(chan struct{})}
	// The file stays open and is read again from its start for each
	// sample, which spares an open and close per sample.
	buf := make([]byte, 16<<10)
	sample := func() {
		n, err := f.ReadAt(buf, 0)
		if n == 0 && err != nil {
			s.err = err
			return
		}
		m, err := parseProcStatus(bytes.NewReader(buf[:n]))
		if err != nil {
			s.err = err
			return
		}
		s.n++
		if m.rssKiB > s.peak.rssKiB {
			s.peak = m
		}
		s.peak.hwmKiB = max(s.peak.hwmKiB, m.hwmKiB)
	}
	sample()
	if s.err != nil {
		f.Close()
		return nil, s.err
	}
	go func() {
		defer close(s.done)
		defer f.Close()
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-s.stopCh:
				sample()
				return
			case <-tick.C:
				sample()
				if s.err != nil {
					return
				}
			}
		}
	}()
	return s, nil
}

// stop takes a last sample and returns the peak and the number of samples.
func (s *rssSampler) stop() (memory, int, error) {
	close(s.stopCh)
	<-s.done
	return s.peak, s.n, s.err
}

// resetPeakRSS sets pid's VmHWM back to its current VmRSS (writing "5" to
// /proc/<pid>/clear_refs, Linux 4.0 and later), so that VmHWM read later is
// the peak since now, exactly rather than sampled. It fails for a process
// of another user.
func resetPeakRSS(pid int) error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

// growthOverSize is how many bytes of resident memory the server added per
// byte of the response it sent: growth in KiB over the encoded size in
// bytes.
func growthOverSize(growthKiB, size int64) float64 {
	if size <= 0 {
		return 0
	}
	return float64(growthKiB) * 1024 / float64(size)
}
