package flowcontrol

import (
	"testing"
	"time"
)

// TestRetryAfterFollowsTheRejections walks kube-apiserver's dropped
// requests tracker through a flood and its end: Retry-After doubles
// while a level keeps rejecting three times Retry-After requests per
// Retry-After seconds, at most once per Retry-After seconds, and comes
// down by one per rejection-second once rejections are rare.
func TestRetryAfterFollowsTheRejections(t *testing.T) {
	now := time.Unix(1000, 0)
	tracker := NewRetryAfter(func() time.Time { return now })
	at := func(second int64, rejections int) int64 {
		now = time.Unix(1000+second, 0)
		var got int64
		for range rejections {
			got = tracker.Rejected("tiny")
		}
		return got
	}
	steps := []struct {
		second     int64
		rejections int
		want       int64
	}{
		{0, 1, 1},
		{1, 3, 1}, // one rejection in the last second
		{2, 3, 2}, // three in the last second: doubled
		{3, 3, 2}, // six in the last two, but raised a second ago
		{4, 3, 4}, // six in the last two, raised two seconds ago
		{5, 12, 4},
		{8, 1, 8},  // twelve (three times four) in the last four
		{20, 1, 7}, // nothing in the last eight: down by one
		{21, 1, 6},
	}
	for _, s := range steps {
		if got := at(s.second, s.rejections); got != s.want {
			t.Fatalf("second %d: Retry-After %d, want %d", s.second, got, s.want)
		}
	}
	if got := tracker.Get("other"); got != 1 {
		t.Errorf("a level that rejected nothing: Retry-After %d, want 1", got)
	}
}

func TestRetryAfterIsBounded(t *testing.T) {
	now := time.Unix(0, 0)
	tracker := NewRetryAfter(func() time.Time { return now })
	var got int64
	for s := range int64(600) {
		now = time.Unix(s, 0)
		for range 200 {
			got = tracker.Rejected("flooded")
		}
	}
	if got != maxRetryAfter {
		t.Errorf("Retry-After %d after ten minutes of flood, want the maximum %d", got, maxRetryAfter)
	}
}
