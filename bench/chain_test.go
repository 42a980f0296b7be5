package main

import (
	"reflect"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/store"
)

// The chain tests' clock: at(n) is n ms after t0; msec(n) is n ms.
var t0 = time.Date(2026, 11, 26, 14, 0, 0, 0, time.UTC)

func at(n int) time.Time       { return t0.Add(msec(n)) }
func msec(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// TestSplitChain: the chain runs back from the task completed last through
// each task's dependency completed last, and its phases add up to the wall
// time.
func TestSplitChain(t *testing.T) {
	rec := newRecorder()
	called := map[string]time.Time{}
	// a and b have no dependencies, c depends on both; b completes after a.
	type times struct{ call, first, result, done int }
	plan := map[string]times{"a": {10, 20, 100, 105}, "b": {12, 30, 200, 210}, "c": {250, 260, 400, 404}}
	rec.completed["r"] = map[string]time.Time{}
	for task, tm := range plan {
		sid := "s-" + task
		called[sid] = at(tm.call)
		rec.onEntry(sid, at(tm.first))
		rec.onEntry(sid, at(tm.result))
		rec.completed["r"][task] = at(tm.done)
	}
	snap := engine.Snapshot{Run: store.Run{ID: "r"},
		Tasks:   []store.Task{{ID: "a"}, {ID: "b"}, {ID: "c", Dependencies: []string{"a", "b"}}},
		Workers: []store.Worker{{TaskID: "a", SessionID: "s-a"}, {TaskID: "b", SessionID: "s-b"}, {TaskID: "c", SessionID: "s-c"}}}
	c, err := splitChain(rec, snap, t0, called)
	if err != nil {
		t.Fatal(err)
	}
	want := chainSplit{Tasks: 2, First: msec(12), Start: msec(18 + 10), Starts: []time.Duration{msec(18), msec(10)}, Agent: msec(170 + 140), Detect: msec(10 + 4), Schedule: msec(40)}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("split %+v, want %+v (through b, completed after a)", c, want)
	}
	if c.Overhead()+c.Agent != msec(404) {
		t.Errorf("phases add up to %s, want the wall time 404ms", c.Overhead()+c.Agent)
	}
	called = map[string]time.Time{}
	if _, err := splitChain(rec, snap, t0, called); err == nil {
		t.Error("no error without the Start calls")
	}
}

// TestSplitChainRetried: a task retried in a new session adds each of its
// sessions' start and agent time, and the time from the failed attempt's
// result to the retry's Start call as retry overhead; the phases still add
// up to the wall time.
func TestSplitChainRetried(t *testing.T) {
	sid := func(part string) string { return workerSession(t, "orch_r", part) }
	rec := newRecorder()
	called := map[string]time.Time{}
	session := func(id string, call, first, result int) {
		called[id] = at(call)
		rec.onEntry(id, at(first))
		rec.onEntry(id, at(result))
	}
	session(sid("a"), 0, 10, 100)
	session(sid("b"), 110, 120, 300) // failed, retried
	session(sid("b-r1"), 350, 360, 500)
	rec.completed["orch_r"] = map[string]time.Time{"a": at(105), "b": at(505)}
	snap := engine.Snapshot{Run: store.Run{ID: "orch_r"},
		Tasks:   []store.Task{{ID: "a"}, {ID: "b", Dependencies: []string{"a"}}},
		Workers: []store.Worker{{TaskID: "a", SessionID: sid("a")}, {TaskID: "b", SessionID: sid("b-r1"), RetryCount: 1}}}
	c, err := splitChain(rec, snap, t0, called)
	if err != nil {
		t.Fatal(err)
	}
	want := chainSplit{Tasks: 2, First: 0, Start: msec(30), Starts: []time.Duration{msec(10), msec(10), msec(10)}, Agent: msec(90 + 180 + 140),
		Detect: msec(5 + 5), Schedule: msec(5), Retry: msec(50), Retries: 1}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("split %+v, want %+v", c, want)
	}
	if c.Overhead()+c.Agent != msec(505) {
		t.Errorf("phases add up to %s, want the wall time 505ms", c.Overhead()+c.Agent)
	}
}

// TestSplitChainStartFailed: an attempt whose Start failed (no Start call
// recorded, though the session wrote entries) is not a phase of its own:
// its time is part of the retry's.
func TestSplitChainStartFailed(t *testing.T) {
	sid := func(part string) string { return workerSession(t, "orch_f", part) }
	rec := newRecorder()
	rec.onEntry(sid("a"), at(40)) // its Start failed; no call recorded
	called := map[string]time.Time{sid("a-r1"): at(100)}
	rec.onEntry(sid("a-r1"), at(110))
	rec.onEntry(sid("a-r1"), at(300))
	rec.completed["orch_f"] = map[string]time.Time{"a": at(305)}
	snap := engine.Snapshot{Run: store.Run{ID: "orch_f"}, Tasks: []store.Task{{ID: "a"}},
		Workers: []store.Worker{{TaskID: "a", SessionID: sid("a-r1"), RetryCount: 1}}}
	c, err := splitChain(rec, snap, t0, called)
	if err != nil {
		t.Fatal(err)
	}
	want := chainSplit{Tasks: 1, First: msec(100), Start: msec(10), Starts: []time.Duration{msec(10)}, Agent: msec(190), Detect: msec(5)}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("split %+v, want %+v", c, want)
	}
}
