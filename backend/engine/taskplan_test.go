package engine

import (
	"errors"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/store"
)

func newTestPlan(t *testing.T, tasks ...store.Task) *taskPlan {
	t.Helper()
	p := &taskPlan{}
	if _, err := p.replace("r1", tasks); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPlanReadinessAndBusy(t *testing.T) {
	t.Parallel()
	p := newTestPlan(t,
		store.Task{ID: "a", Priority: 1},
		store.Task{ID: "b", Priority: 9},
		store.Task{ID: "c", Priority: 5, Dependencies: []string{"a"}},
		store.Task{ID: "d", Priority: 5, Skipped: true},
		store.Task{ID: "e", Priority: 5, Dependencies: []string{"d"}})
	ready := func() string {
		var ids []string
		for _, t := range p.ready() {
			ids = append(ids, t.ID)
		}
		return strings.Join(ids, ",")
	}
	// e depends on a task the user skipped: it may start.
	if got := ready(); got != "b,e,a" {
		t.Errorf("ready = %s, want b,e,a (by priority)", got)
	}
	if p.busy() != 0 || p.allDone() {
		t.Errorf("busy %d, all done %v", p.busy(), p.allDone())
	}
	a := p.workers["a"]
	for _, s := range []WorkerStatus{WorkerSpawning, WorkerRunning} {
		if err := a.move(s); err != nil {
			t.Fatal(err)
		}
	}
	if p.busy() != 1 || ready() != "b,e" {
		t.Errorf("a running: busy %d, ready %s", p.busy(), ready())
	}
	// Paused while running still holds its place.
	a.w.SessionID = "s"
	if err := a.move(WorkerPaused); err != nil {
		t.Fatal(err)
	}
	a.book.Resume = WorkerRunning.String()
	if p.busy() != 1 {
		t.Errorf("a paused while running: busy %d", p.busy())
	}
	if err := a.move(WorkerRunning); err != nil {
		t.Fatal(err)
	}
	if err := a.move(WorkerCompleted); err != nil {
		t.Fatal(err)
	}
	if got := ready(); got != "b,c,e" {
		t.Errorf("a completed: ready = %s", got)
	}
}

func TestPlanSkipDependentsAndDependsOn(t *testing.T) {
	t.Parallel()
	p := newTestPlan(t,
		store.Task{ID: "a"},
		store.Task{ID: "b", Dependencies: []string{"a"}},
		store.Task{ID: "c", Dependencies: []string{"b"}},
		store.Task{ID: "d", Dependencies: []string{"a"}},
		store.Task{ID: "e"})
	// d already has a session: it is not skipped.
	p.workers["d"].w.SessionID = "s"
	skipped, err := p.skipDependents("a", "skipped because a failed")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids(skipped), ","); got != "b,c" {
		t.Fatalf("skipped %s, want b,c", got)
	}
	for _, id := range []string{"b", "c"} {
		ws := p.workers[id]
		if ws.status != WorkerCancelled || !ws.w.Skipped || ws.book.SkippedBy != "a" || ws.w.Error != "skipped because a failed" {
			t.Errorf("%s = %s %+v", id, ws.status, ws.w)
		}
	}
	if !p.dependsOn("c", "a") || p.dependsOn("a", "c") || p.dependsOn("e", "a") {
		t.Error("dependsOn is wrong")
	}
}

func TestPlanDeadlock(t *testing.T) {
	t.Parallel()
	p := newTestPlan(t,
		store.Task{ID: "a"},
		store.Task{ID: "b", Dependencies: []string{"a"}},
		store.Task{ID: "c"})
	if why := p.deadlock(); why != "" {
		t.Errorf("fresh plan: deadlock %q", why)
	}
	a := p.workers["a"]
	_ = a.move(WorkerFailed)
	c := p.workers["c"]
	for _, s := range []WorkerStatus{WorkerSpawning, WorkerRunning} {
		_ = c.move(s)
	}
	if why := p.deadlock(); why != "" {
		t.Errorf("c running: deadlock %q", why)
	}
	_ = c.move(WorkerCompleted)
	if why := p.deadlock(); why != "b waits for a (failed)" {
		t.Errorf("deadlock = %q", why)
	}
}

func TestWorkerMoveIsGuarded(t *testing.T) {
	t.Parallel()
	ws := newWorker("r1", "a")
	err := ws.move(WorkerRunning)
	if !errors.Is(err, ErrIllegalTransition) || ws.status != WorkerPending || ws.w.Status != "" {
		t.Fatalf("pending → running = %v, status %s %q", err, ws.status, ws.w.Status)
	}
	if err := ws.move(WorkerSpawning); err != nil || ws.w.Status != "spawning" {
		t.Fatalf("pending → spawning = %v, row status %q", err, ws.w.Status)
	}
}
