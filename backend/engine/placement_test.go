package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/testsupport"
)

// boxPlacement places the tasks it names on machine "box" (a folder here
// stands for their worktrees there) and keeps where it placed them.
type boxPlacement struct {
	dir    string
	mu     sync.Mutex
	box    map[string]bool
	placed map[string]string
	lost   time.Time // when box was lost (zero: it is there)
}

func (p *boxPlacement) Place(runID, taskID string, names []string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if m := p.placed[taskID]; m != "" {
		return m // a task placed before keeps its machine
	}
	if p.box[taskID] && p.lost.IsZero() {
		p.placed[taskID] = "box"
		return "box"
	}
	return ""
}

func (p *boxPlacement) Where(runID, taskID string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.placed[taskID]
}

func (p *boxPlacement) StartTask(ctx context.Context, local, runID, taskID, from string, id session.ID) (string, error) {
	return filepath.Join(p.dir, taskID), nil
}

func (p *boxPlacement) Bring(context.Context, string, string, string) (string, error) { return "", nil }
func (p *boxPlacement) Release(runID, taskID string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.placed, taskID)
}
func (p *boxPlacement) MarkDown(string) {}
func (p *boxPlacement) Lost(string) (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lost, !p.lost.IsZero()
}
func (p *boxPlacement) EndRun(context.Context, string) error                   { return nil }
func (p *boxPlacement) Adopt(string, string, string, string, session.ID) error { return nil }

// TestMemoryHereDoesNotHoldAWorkerThere: this machine's memory holds one
// more worker; of three ready workers of a worktree run, the first runs
// here, the second is placed on a machine (whose own memory bounds it)
// and starts there all the same, the third waits for memory here.
func TestMemoryHereDoesNotHoldAWorkerThere(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	tasks := plan(planned{"a", 9, nil}, planned{"b", 5, nil}, planned{"c", 4, nil})
	h, wh := newWarmHarness(t, testTemplate(func(t *template.Template) {
		t.Config.MaxWorkers = 3
		t.Config.Isolation = template.IsolationWorktree
		t.Config.Machines = []string{"box"}
	}), heldWorkers(tasks, "a", "b", "c"))
	box := &boxPlacement{dir: t.TempDir(), box: map[string]bool{"b": true}, placed: map[string]string{}}
	h.close()
	h.worktreeRoot = filepath.Join(h.dir, "worktrees")
	h.engineOpts = func(o *Options) { o.Placement = box }
	h.open()
	wh.setRoom(session.Room{Free: 500 * mib, Each: 300 * mib, Margin: 100 * mib}) // one fits here
	repo := testsupport.GitRepo(t, filepath.Join(t.TempDir(), "project"), map[string]string{"README.md": "# Project\n"})
	id := h.createIn(repo, nil)
	h.until("a and b run", func() bool {
		ws := h.workers(id)
		return ws["a"].Status == "running" && ws["b"].Status == "running"
	})
	h.until("c waits", func() bool { return h.rec.count(EventWorkerMemory) == 1 })
	// (The fake host counts b's session in its memory too.)
	if c := h.workers(id)["c"]; c.Status != "pending" || !strings.HasPrefix(c.CurrentAction, "waiting for memory: ") {
		t.Errorf("c = %s, %q", c.Status, c.CurrentAction)
	}
	if got := box.Where(id, "b"); got != "box" {
		t.Errorf("b placed on %q", got)
	}
	if err := h.eng.Cancel(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	h.wait(id)
}

// cutOnBox makes the starts of sessions in box's folders fail as a lost
// machine's do, from the first on (the machine drops as the worker
// starts) until back is called; it counts them.
func cutOnBox(h *harness, box *boxPlacement) (starts func() int, back func()) {
	var mu sync.Mutex
	n := 0
	h.host.startErr = func(opts session.StartOptions) error {
		if !strings.HasPrefix(opts.Cwd, box.dir) {
			return nil
		}
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		box.mu.Lock()
		defer box.mu.Unlock()
		if first {
			box.lost = time.Now()
		}
		if !box.lost.IsZero() {
			return fmt.Errorf("start on box: %w", session.ErrHostLost)
		}
		return nil
	}
	starts = func() int {
		mu.Lock()
		defer mu.Unlock()
		return n
	}
	back = func() {
		box.mu.Lock()
		defer box.mu.Unlock()
		box.lost = time.Time{}
	}
	return starts, back
}

// boxRun is a worktree run of tasks a and b with b placed on box.
func boxRun(t *testing.T) (*harness, *boxPlacement, string, func() int, func()) {
	tasks := plan(planned{"a", 9, nil}, planned{"b", 5, nil})
	h := newHarness(t, testTemplate(func(t *template.Template) {
		t.Config.MaxWorkers = 2
		t.Config.Isolation = template.IsolationWorktree
		t.Config.Machines = []string{"box"}
	}), heldWorkers(tasks, "a", "b"), true)
	box := &boxPlacement{dir: t.TempDir(), box: map[string]bool{"b": true}, placed: map[string]string{}}
	starts, back := cutOnBox(h, box)
	h.close()
	h.worktreeRoot = filepath.Join(h.dir, "worktrees")
	h.engineOpts = func(o *Options) { o.Placement = box }
	h.open()
	repo := testsupport.GitRepo(t, filepath.Join(t.TempDir(), "project"), map[string]string{"README.md": "# Project\n"})
	return h, box, h.createIn(repo, nil), starts, back
}

// TestStartCutByALostMachineWaits: a worker whose start on a machine is
// cut by the machine's loss waits for the machine, as a worker running
// there does, instead of starting there again at every step; once the
// machine is back it starts there, in the session it started.
func TestStartCutByALostMachineWaits(t *testing.T) {
	t.Parallel()
	h, box, id, starts, back := boxRun(t)
	h.until("a runs and b's start was cut", func() bool { return h.workers(id)["a"].Status == "running" && starts() > 0 })
	time.Sleep(time.Second)
	if n := starts(); n != 1 {
		t.Errorf("b started %d times on the lost machine within a second, want once (it waits for the machine)", n)
	}
	if b := h.workers(id)["b"]; b.Status != "pending" || !strings.HasPrefix(b.CurrentAction, "waiting for machine box to come back") {
		t.Errorf("b is %s (%q) while its machine is lost, want pending, waiting for it", b.Status, b.CurrentAction)
	}
	back()
	h.until("b runs once its machine is back", func() bool { return h.workers(id)["b"].Status == "running" })
	if b := h.workers(id)["b"]; !strings.HasSuffix(b.SessionID, "_worker_b") || box.Where(id, "b") != "box" || starts() != 2 {
		t.Errorf("b runs in session %s on %q after %d starts there; want its first session, on box, after 2", b.SessionID, box.Where(id, "b"), starts())
	}
	if err := h.eng.Cancel(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	h.wait(id)
}

// TestStartCutByAGoneMachineRunsHere: the machine stays away past the
// bound: the worker whose start there was cut starts here, in a new
// session (the machine's host would be asked for the old one), no retry
// spent.
func TestStartCutByAGoneMachineRunsHere(t *testing.T) {
	t.Parallel()
	h, box, id, starts, _ := boxRun(t)
	h.eng.SetReconnectFor(1500 * time.Millisecond)
	h.until("b runs here", func() bool { return h.workers(id)["a"].Status == "running" && h.workers(id)["b"].Status == "running" })
	b := h.workers(id)["b"]
	if !strings.HasSuffix(b.SessionID, "_worker_b-r1") || box.Where(id, "b") != "" || starts() != 1 {
		t.Errorf("b runs in session %s on %q after %d starts there; want a new session, here, after the one cut", b.SessionID, box.Where(id, "b"), starts())
	}
	said := ""
	evs, _ := h.st.Events(context.Background(), id, 0, 10000)
	for _, e := range evs {
		if e.Name == EventWorkerRetrying && e.TaskID == "b" {
			said += string(e.Payload)
		}
	}
	if b.RetryCount != 1 || !strings.Contains(said, "waiting for machine box to come back") ||
		!strings.Contains(said, "machine box was unreachable for 2s; the worker starts again elsewhere") {
		t.Errorf("b retried %d times, saying %s; want once, saying it waited for its machine, then why it left it", b.RetryCount, said)
	}
	if err := h.eng.Cancel(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	h.wait(id)
}
