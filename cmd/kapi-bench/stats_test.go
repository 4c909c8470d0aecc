package main

import (
	"math"
	"testing"
	"time"
)

func ms(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }

func TestPercentile(t *testing.T) {
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = ms(float64(i + 1)) // 1ms..100ms
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one sample is every percentile", []time.Duration{ms(7)}, 99, ms(7)},
		{"p50 of 100", hundred, 50, ms(50)},
		{"p99 of 100", hundred, 99, ms(99)},
		{"p100 is the max", hundred, 100, ms(100)},
		{"tiny p is the min", hundred, 0.001, ms(1)},
		{"p0 clamps to the min", hundred, 0, ms(1)},
		// Nearest rank: ceil(0.5*4)=2nd sample, not an interpolation.
		{"p50 of 4", []time.Duration{ms(1), ms(2), ms(3), ms(4)}, 50, ms(2)},
		{"p99 of 4", []time.Duration{ms(1), ms(2), ms(3), ms(4)}, 99, ms(4)},
		{"p50 of 3", []time.Duration{ms(1), ms(2), ms(30)}, 50, ms(2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentile(tt.sorted, tt.p); got != tt.want {
				t.Errorf("percentile(%v) = %v, want %v", tt.p, got, tt.want)
			}
		})
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		in   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{3, 1, 2}, 2},
		{[]float64{877.7, 1032.3, 1039.4}, 1032.3},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{-1, 5}, 2},
	}
	for _, tt := range tests {
		in := append([]float64(nil), tt.in...)
		if got := median(tt.in); got != tt.want {
			t.Errorf("median(%v) = %v, want %v", tt.in, got, tt.want)
		}
		for i := range in {
			if in[i] != tt.in[i] {
				t.Fatalf("median reordered its input: %v, was %v", tt.in, in)
			}
		}
	}
	if got := median(nil); !math.IsNaN(got) {
		t.Errorf("median(nil) = %v, want NaN", got)
	}
	if got := medianDuration([]time.Duration{ms(5), ms(1), ms(3)}); got != ms(3) {
		t.Errorf("medianDuration = %v, want 3ms", got)
	}
}

func TestPerSecond(t *testing.T) {
	if got := perSecond(500, 250*time.Millisecond); got != 2000 {
		t.Errorf("perSecond(500, 250ms) = %v, want 2000", got)
	}
	if got := perSecond(10, 0); got != 0 {
		t.Errorf("perSecond(10, 0) = %v, want 0", got)
	}
}
