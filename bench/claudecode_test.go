package main

import (
	"testing"
	"time"
)

// allRunning finds the longest stretch of samples with all workers
// running.
func TestAllRunning(t *testing.T) {
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	var s []cpuSample
	for i, n := range []int{0, 3, 5, 5, 2, 5, 5, 5, 5, 1} {
		s = append(s, cpuSample{At: at.Add(time.Duration(i) * time.Second), Running: n})
	}
	if a, b := allRunning(s, 5); a != 5 || b != 8 {
		t.Errorf("allRunning = %d, %d; want 5, 8", a, b)
	}
	if a, b := allRunning(s, 6); a != -1 || b != -1 {
		t.Errorf("allRunning with none = %d, %d", a, b)
	}
}

func TestGib(t *testing.T) {
	if g := gib(3 << 30); g != "3.00 GiB" {
		t.Errorf("gib = %q", g)
	}
	if g := gib(200 << 20); g != "200 MiB" {
		t.Errorf("gib = %q", g)
	}
}
