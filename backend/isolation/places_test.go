package isolation

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/session"
)

// placement is a Placement in memory: tasks placed on machines, the
// machines lost since when, and the calls that freed places or marked
// machines down.
type placement struct {
	where    map[string]string
	lost     map[string]time.Time
	released []string
	down     []string
}

func (p *placement) Place(runID, taskID string, names []string) string { return p.where[taskID] }
func (p *placement) Where(runID, taskID string) string                 { return p.where[taskID] }
func (p *placement) StartTask(context.Context, string, string, string, string, session.ID) (string, error) {
	return "", nil
}
func (p *placement) Bring(context.Context, string, string, string) (string, error) { return "", nil }
func (p *placement) Release(runID, taskID string) {
	p.released = append(p.released, taskID)
	delete(p.where, taskID)
}
func (p *placement) MarkDown(name string)                                   { p.down = append(p.down, name) }
func (p *placement) EndRun(context.Context, string) error                   { return nil }
func (p *placement) Adopt(string, string, string, string, session.ID) error { return nil }
func (p *placement) Lost(name string) (time.Time, bool) {
	t, ok := p.lost[name]
	return t, ok
}

// A worker on a machine that is lost waits for it until the bound from
// when it was lost, then runs elsewhere (its place freed, the machine kept
// from new workers); a worker here, or on a machine that is reachable,
// goes on.
func TestAway(t *testing.T) {
	lostAt := time.Date(2026, 11, 26, 17, 0, 0, 0, time.Local)
	p := &placement{where: map[string]string{"task_001": "box", "task_002": "up"}, lost: map[string]time.Time{"box": lostAt}}
	pl := NewPlaces(p, "run1", []string{"box", "up"}, false, quiet)
	const bound = 2 * time.Minute

	for _, tc := range []struct {
		task string
		at   time.Time
		want Away
	}{
		{"task_003", lostAt.Add(time.Second), Here}, // runs here
		{"task_002", lostAt.Add(time.Second), Here}, // its machine is up
		{"task_001", lostAt.Add(time.Second), Wait},
		{"task_001", lostAt.Add(bound - time.Millisecond), Wait},
	} {
		if got, msg := pl.Away(tc.task, tc.at, bound); got != tc.want {
			t.Errorf("Away(%s, +%s) = %v %q, want %v", tc.task, tc.at.Sub(lostAt), got, msg, tc.want)
		}
	}
	_, msg := pl.Away("task_001", lostAt.Add(time.Second), bound)
	if !strings.Contains(msg, "waiting for machine box to come back (lost at 17:00:00; the worker runs elsewhere at 17:02:00)") {
		t.Errorf("the wait says %q", msg)
	}
	if len(p.released)+len(p.down) != 0 {
		t.Fatalf("a wait freed %v and marked %v down", p.released, p.down)
	}
	got, msg := pl.Away("task_001", lostAt.Add(bound), bound)
	if got != Elsewhere || msg != "machine box was unreachable for 2m0s; the worker starts again elsewhere" {
		t.Fatalf("at the bound: %v %q", got, msg)
	}
	if len(p.released)+len(p.down) != 0 {
		t.Fatalf("Away freed %v and marked %v down", p.released, p.down)
	}
	pl.Leave("task_001")
	if len(p.released) != 1 || p.released[0] != "task_001" || len(p.down) != 1 || p.down[0] != "box" {
		t.Fatalf("Leave: freed %v, down %v", p.released, p.down)
	}
	// Its place is freed: it is no longer the machine's worker.
	if got, _ := pl.Away("task_001", lostAt.Add(bound), bound); got != Here {
		t.Errorf("after it went elsewhere: %v", got)
	}
	pl.Leave("task_001")
	if len(p.released) != 1 || len(p.down) != 1 {
		t.Errorf("a second Leave: freed %v, down %v", p.released, p.down)
	}
	var none *Places
	if got, _ := none.Away("task_001", lostAt, bound); got != Here {
		t.Errorf("no places: %v", got)
	}
}
