package flowcontrol

import (
	"sync"
	"time"
)

// maxRetryAfter bounds the Retry-After of a rejection, in seconds.
const maxRetryAfter = 32

// RetryAfter tells rejected clients when to come back, per priority
// level, as kube-apiserver's dropped-requests tracker does: it starts at
// one second; when a level rejected at least three times Retry-After
// requests in the last Retry-After seconds (the current second left out),
// and did not raise it in the last Retry-After seconds, Retry-After
// doubles, up to 32; when it rejected fewer than Retry-After requests in
// that window, it goes down by one. The effect is that clients of a
// level that keeps rejecting are told to wait longer, which spreads their
// retries, and told less once the flood is over.
type RetryAfter struct {
	now    func() time.Time
	mu     sync.Mutex
	levels map[string]*droppedStats
}

// NewRetryAfter returns a tracker that reads the time from now (nil is
// time.Now).
func NewRetryAfter(now func() time.Time) *RetryAfter {
	if now == nil {
		now = time.Now
	}
	return &RetryAfter{now: now, levels: map[string]*droppedStats{}}
}

// droppedStats are one level's rejections, counted by the second.
type droppedStats struct {
	// history holds the counts of past seconds, oldest first, for at
	// most the last 2*retryAfter seconds.
	history []secondCount
	current secondCount
	// retryAfter is the current answer; raisedAt the second it was
	// last doubled.
	retryAfter int64
	raisedAt   int64
}

type secondCount struct {
	unix, count int64
}

// Rejected records a rejection by level and returns the Retry-After, in
// seconds, to answer it with.
func (t *RetryAfter) Rejected(level string) int64 {
	now := t.now().Unix()
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.levels[level]
	if s == nil {
		s = &droppedStats{retryAfter: 1}
		t.levels[level] = s
	}
	if s.current.unix != now {
		if s.current.count > 0 {
			s.history = append(s.history, s.current)
		}
		s.current = secondCount{unix: now}
		s.trim(now)
		s.update(now)
	}
	s.current.count++
	return s.retryAfter
}

// Get returns a level's current Retry-After without recording anything.
func (t *RetryAfter) Get(level string) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.levels[level]; s != nil {
		return s.retryAfter
	}
	return 1
}

func (s *droppedStats) trim(now int64) {
	keep := min(2*s.retryAfter, maxRetryAfter)
	i := 0
	for i < len(s.history) && now-s.history[i].unix > keep {
		i++
	}
	s.history = s.history[i:]
}

// update adjusts retryAfter at the start of second now.
func (s *droppedStats) update(now int64) {
	var dropped int64
	for i := len(s.history) - 1; i >= 0 && now-s.history[i].unix <= s.retryAfter; i-- {
		dropped += s.history[i].count
	}
	switch {
	case now-s.raisedAt >= s.retryAfter && dropped >= 3*s.retryAfter:
		s.retryAfter = min(2*s.retryAfter, maxRetryAfter)
		s.raisedAt = now
	case dropped < s.retryAfter && s.retryAfter > 1:
		s.retryAfter--
	}
}
