package engine

import (
	"context"
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
}

func (p *boxPlacement) Place(runID, taskID string, names []string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.box[taskID] {
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
func (p *boxPlacement) MarkDown(string)                                        {}
func (p *boxPlacement) Lost(string) (time.Time, bool)                          { return time.Time{}, false }
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
