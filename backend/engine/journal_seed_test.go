package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/baton-app/baton/backend/journal"
	"github.com/baton-app/baton/backend/template"
)

// Seed 004's journal keeps every task: a task skipped because its
// dependency failed is "skipped" in the registry, a remediation task gets a
// task file, and a second run in the same folder resumes the journal (seed
// 004 1.1) instead of failing or archiving it: the earlier logs stay, the
// failed task runs again from its file.
func TestJournalKeepsSkippedRemediationAndResumes(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil}, planned{"task_002", 4, []string{"task_001"}})
	var failFirst atomic.Bool
	failFirst.Store(true)
	worker := func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
		m := taskFileRe.FindStringSubmatch(s.opts.Message)
		if m == nil {
			t.Errorf("%s prompt names no task file:\n%s", task, s.opts.Message)
			return false
		}
		path := filepath.Join(s.opts.Cwd, m[1])
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Errorf("open the task file of %s: %v", task, err)
			return false
		}
		_, _ = f.WriteString("\n### Entry by " + string(s.id) + "\n")
		f.Close()
		if task == "task_001" && failFirst.Load() {
			s.say(block("completion", map[string]any{"task_id": task, "status": "failed", "error": "the build fails"}))
			s.endTurn(h)
			return true
		}
		return false
	}
	h := newHarness(t, testTemplate(func(tp *template.Template) {
		tp.Config.Journal = template.Journal{Enabled: true}
		tp.Config.MaxRetries = 0
		tp.Phases.Verification.MaxRemediationRounds = 1
	}), func() agentFunc {
		// Only the second run's verification fails (once).
		pass, failOnce := verifying(scripted(tasks, worker), 0), verifying(scripted(tasks, worker), 1)
		return func(h *fakeHost, s *fakeSession, text string) {
			if failFirst.Load() {
				pass(h, s, text)
			} else {
				failOnce(h, s, text)
			}
		}
	}(), true)
	ctx := context.Background()
	first := h.create()
	if err := h.eng.Start(ctx, first); err != nil {
		t.Fatal(err)
	}
	h.wait(first)
	j := journal.New(h.dir, nil)
	ix, err := j.Load()
	if err != nil {
		t.Fatal(err)
	}
	status := func(ix *journal.Index, id string) string {
		jt, ok := ix.Task(id)
		if !ok {
			return "(none)"
		}
		return jt.Status
	}
	if got := status(ix, "task_001"); got != journal.StatusFailed {
		t.Errorf("journal task_001 = %s, want failed", got)
	}
	if got := status(ix, "task_002"); got != journal.StatusSkipped {
		t.Errorf("journal task_002 = %s, want skipped (its dependency failed)", got)
	}
	jt1, _ := ix.Task("task_001")
	file1 := jt1.File

	// The second run in the same folder resumes the journal.
	failFirst.Store(false)
	second := h.create()
	if err := h.eng.Start(ctx, second); err != nil {
		t.Fatal(err)
	}
	run := h.wait(second)
	if run.TasksCompleted != run.TasksTotal || run.TasksTotal < 3 {
		t.Fatalf("second run = %s %d/%d: %s %s", run.Status, run.TasksCompleted, run.TasksTotal, run.Message, run.Error)
	}
	if _, err := os.Stat(filepath.Join(h.dir, ".claude", "journal", "archive")); !os.IsNotExist(err) {
		t.Errorf("the journal was archived instead of resumed: %v", err)
	}
	if ix, err = j.Load(); err != nil {
		t.Fatal(err)
	}
	jt1, _ = ix.Task("task_001")
	if jt1.File != file1 || jt1.Status != journal.StatusCompleted {
		t.Errorf("resumed task_001 = %+v, want its file %s, completed", jt1, file1)
	}
	log, err := os.ReadFile(filepath.Join(j.Dir(), file1))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), "### Entry by "); n != 2 {
		t.Errorf("task_001's file holds %d entries, want the failed one and the new one:\n%s", n, log)
	}
	// The verification failed once: its remediation task has a file.
	fix, ok := ix.Task("qa1-fix-01")
	if !ok || fix.Status != journal.StatusCompleted || !strings.HasPrefix(fix.File, "task-003-") {
		t.Errorf("remediation task in the journal = %+v, %v (want task-003-…, completed)", fix, ok)
	} else if _, err := os.Stat(filepath.Join(j.Dir(), fix.File)); err != nil {
		t.Errorf("remediation task file: %v", err)
	}
	if p := workerPrompts(h.host, "qa1-fix-01"); len(p) == 0 || !strings.Contains(p[len(p)-1], "Your task file is .claude/journal/"+fix.File) {
		t.Errorf("the remediation worker is not told its task file: %q", p)
	}
}
