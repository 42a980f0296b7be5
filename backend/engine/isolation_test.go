package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/mailbox"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/testsupport"
	"github.com/baton-app/baton/backend/worktree"
)

// Worktree isolation with real git and the fake host: the scripted workers
// write real files in the folder they were started in.

func newIsoHarness(t *testing.T, mut func(*template.Template), agent agentFunc) (*harness, string) {
	t.Helper()
	dir := t.TempDir()
	tmpl := testTemplate(func(tm *template.Template) {
		tm.Config.Isolation = template.IsolationWorktree
		if mut != nil {
			mut(tm)
		}
	})
	h := &harness{t: t, dir: dir, path: dir + "/baton.db", host: newFakeHost(agent, true), tmpl: tmpl,
		clock: &fakeClock{t: time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC)}, worktreeRoot: filepath.Join(dir, "worktrees")}
	h.open()
	t.Cleanup(func() { h.close() })
	repo := filepath.Join(t.TempDir(), "project")
	testsupport.Git(t, "", "init", "-q", "-b", "main", repo)
	testsupport.WriteFile(t, filepath.Join(repo, "a.txt"), lines10)
	testsupport.WriteFile(t, filepath.Join(repo, "README.md"), "# Project\n")
	testsupport.Git(t, repo, "add", "-A")
	testsupport.Git(t, repo, "commit", "-q", "-m", "first")
	return h, repo
}

const lines10 = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// replaceLine returns lines10 with line n replaced.
func replaceLine(body string, n int, with string) string {
	ls := strings.Split(body, "\n")
	ls[n-1] = with
	return strings.Join(ls, "\n")
}

func reportDone(h *fakeHost, s *fakeSession, task string) {
	s.say(block("completion", map[string]any{"task_id": task, "status": "success", "summary": "Did " + task}))
	s.endTurn(h)
}

func (h *harness) createIn(cwd string, o *Overrides) string {
	h.t.Helper()
	run, err := h.eng.Create(context.Background(), CreateRequest{TemplateID: "test", Cwd: cwd, Request: "Change a.txt", Overrides: o})
	if err != nil {
		h.t.Fatal(err)
	}
	if err := h.eng.Start(context.Background(), run.ID); err != nil {
		h.t.Fatal(err)
	}
	return run.ID
}

// batonWorktrees lists the worktrees of repo other than repo itself.
func batonWorktrees(t *testing.T, repo string) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(testsupport.Git(t, repo, "worktree", "list", "--porcelain"), "\n") {
		if p, ok := strings.CutPrefix(l, "worktree "); ok {
			if ev, _ := filepath.EvalSymlinks(repo); p != repo && p != ev {
				out = append(out, p)
			}
		}
	}
	return out
}

func branchList(t *testing.T, repo string) []string {
	return strings.Fields(testsupport.Git(t, repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/"))
}

func TestWorktreeTwoWorkersOneFileMergedApplied(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"t1", 5, nil}, planned{"t2", 5, nil})
	var mu sync.Mutex
	cwds := map[string]string{}
	h, repo := newIsoHarness(t, nil, scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		mu.Lock()
		cwds[task] = s.opts.Cwd
		mu.Unlock()
		path := filepath.Join(s.opts.Cwd, "a.txt")
		body, _ := os.ReadFile(path)
		n := 1
		if task == "t2" {
			n = 9
		}
		_ = os.WriteFile(path, []byte(replaceLine(string(body), n, "line by "+task)), 0o644)
		_ = os.WriteFile(filepath.Join(s.opts.Cwd, task+".txt"), []byte("new\n"), 0o644)
		reportDone(h, s, task)
		return true
	}))
	id := h.createIn(repo, nil)
	run := h.wait(id)
	if run.Status != "completed" || run.TasksCompleted != 2 {
		t.Fatalf("run = %s (%d completed): %s %s", run.Status, run.TasksCompleted, run.Error, run.Message)
	}
	if cwds["t1"] == cwds["t2"] || cwds["t1"] == repo || strings.HasPrefix(cwds["t1"], repo) {
		t.Fatalf("workers did not get worktrees of their own: %v", cwds)
	}
	branch := worktree.RunBranch(id)
	want := replaceLine(replaceLine(lines10, 1, "line by t1"), 9, "line by t2")
	if got := testsupport.Git(t, repo, "show", branch+":a.txt"); got != want {
		t.Fatalf("run branch a.txt = %q, want %q (a line was lost)", got, want)
	}
	// Merges are --no-ff merge commits, one per task.
	if merges := strings.Fields(testsupport.Git(t, repo, "rev-list", "--merges", "main.."+branch)); len(merges) != 2 {
		t.Fatalf("merge commits on the run branch = %v", merges)
	}
	// The user's branch and files are untouched until Apply.
	if readFile(t, filepath.Join(repo, "a.txt")) != lines10 || strings.TrimSpace(testsupport.Git(t, repo, "rev-list", "--count", "main")) != "1" {
		t.Fatal("the user's branch changed before Apply")
	}
	if wts := batonWorktrees(t, repo); len(wts) != 0 {
		t.Fatalf("worktrees left after the run: %v", wts)
	}
	if got := branchList(t, repo); !slices.Equal(got, []string{branch, "main"}) {
		t.Fatalf("branches after the run = %v", got)
	}
	if !strings.Contains(run.Message, branch) || !strings.Contains(run.Message, "Apply") {
		t.Fatalf("the run's message does not name its branch: %q", run.Message)
	}
	snap, err := h.eng.Snapshot(context.Background(), id)
	if err != nil || snap.Worktree == nil {
		t.Fatalf("snapshot worktree = %+v, %v", snap.Worktree, err)
	}
	if len(snap.Worktree.Tasks) != 2 || !snap.Worktree.Cleaned {
		t.Fatalf("worktree view = %+v", snap.Worktree)
	}
	for _, tc := range snap.Worktree.Tasks {
		if !tc.Merged || !slices.Contains(tc.Changes, worktree.FileChange{Path: "a.txt", Added: 1, Removed: 1}) ||
			!slices.Contains(tc.Changes, worktree.FileChange{Path: tc.TaskID + ".txt", Added: 1}) {
			t.Fatalf("changes of %s = %+v", tc.TaskID, tc)
		}
	}
	patch, err := h.eng.TaskPatch(context.Background(), id, "t2")
	if err != nil || !strings.Contains(patch, "+line by t2") || strings.Contains(patch, "line by t1") {
		t.Fatalf("patch of t2 = %q, %v", patch, err)
	}
	if h.rec.count(EventWorkerMerged) != 2 {
		t.Fatalf("worker:merged events = %d", h.rec.count(EventWorkerMerged))
	}
	applied, err := h.eng.Apply(context.Background(), id)
	if err != nil || !applied.FastForward || applied.Into != "main" {
		t.Fatalf("Apply = %+v, %v", applied, err)
	}
	if readFile(t, filepath.Join(repo, "a.txt")) != want {
		t.Fatal("Apply did not bring the run's changes")
	}
	if got := branchList(t, repo); !slices.Equal(got, []string{"main"}) {
		t.Fatalf("branches after Apply = %v", got)
	}
	if _, err := h.eng.Apply(context.Background(), id); !errors.Is(err, ErrIllegalTransition) {
		t.Fatalf("a second Apply: %v", err)
	}
	snap, _ = h.eng.Snapshot(context.Background(), id)
	if snap.Worktree.Outcome != "applied" {
		t.Fatalf("outcome = %q", snap.Worktree.Outcome)
	}
	// The run no longer offers Apply ("baton show", the run view).
	if m := snap.Run.Message; strings.Contains(m, "Apply merges") || !strings.Contains(m, "were fast-forwarded into your branch main") {
		t.Errorf("the message after Apply: %q", m)
	}
}

func TestWorktreeConflictResolvedByMergeTask(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"t1", 5, nil}, planned{"t2", 5, nil})
	var mergeCwd string
	h, repo := newIsoHarness(t, nil, scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		path := filepath.Join(s.opts.Cwd, "a.txt")
		if strings.HasPrefix(task, "merge-") {
			mergeCwd = s.opts.Cwd
			body, _ := os.ReadFile(path)
			if !strings.Contains(string(body), "<<<<<<<") {
				s.say(block("completion", map[string]any{"task_id": task, "status": "failed", "error": "no conflict here"}))
				s.endTurn(h)
				return true
			}
			_ = os.WriteFile(path, []byte(replaceLine(lines10, 1, "line by t1 and t2")), 0o644)
			reportDone(h, s, task)
			return true
		}
		_ = os.WriteFile(path, []byte(replaceLine(lines10, 1, "line by "+task)), 0o644)
		reportDone(h, s, task)
		return true
	}))
	id := h.createIn(repo, nil)
	run := h.wait(id)
	if run.Status != "completed" {
		t.Fatalf("run = %s: %s %s", run.Status, run.Error, run.Message)
	}
	branch := worktree.RunBranch(id)
	if got := testsupport.Git(t, repo, "show", branch+":a.txt"); got != replaceLine(lines10, 1, "line by t1 and t2") {
		t.Fatalf("resolved a.txt = %q", got)
	}
	if h.rec.count(EventMergeConflict) != 1 {
		t.Fatalf("mergeConflict events = %d", h.rec.count(EventMergeConflict))
	}
	if !strings.HasSuffix(mergeCwd, filepath.Join(id, "run")) {
		t.Fatalf("the merge task ran in %s, not the run's worktree", mergeCwd)
	}
	ws := h.workers(id)
	if ws["merge-t2"].Status != "completed" {
		t.Fatalf("merge task = %+v", ws["merge-t2"])
	}
	tasksStored, _ := h.st.Tasks(context.Background(), id)
	var desc string
	for _, tk := range tasksStored {
		if tk.ID == "merge-t2" {
			desc = tk.Description
		}
	}
	if !strings.Contains(desc, "a.txt") || !strings.Contains(desc, "Report of t2") || !strings.Contains(desc, "Report of t1") {
		t.Fatalf("the merge task does not carry the files and both reports: %q", desc)
	}
	if wts := batonWorktrees(t, repo); len(wts) != 0 {
		t.Fatalf("worktrees left: %v", wts)
	}
}

func TestWorktreeConflictLeftToUser(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"t1", 5, nil}, planned{"t2", 5, nil})
	h, repo := newIsoHarness(t, nil, scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		if strings.HasPrefix(task, "merge-") {
			reportDone(h, s, task) // claims success, leaves the markers
			return true
		}
		_ = os.WriteFile(filepath.Join(s.opts.Cwd, "a.txt"), []byte(replaceLine(lines10, 1, "line by "+task)), 0o644)
		reportDone(h, s, task)
		return true
	}))
	id := h.createIn(repo, nil)
	h.until("the conflict waits for the user", func() bool {
		snap, _ := h.eng.Snapshot(context.Background(), id)
		return snap.Worktree != nil && snap.Worktree.Conflict != nil && snap.Worktree.Conflict.ByUser
	})
	if st := h.status(id); st != "running" {
		t.Fatalf("run = %s while its conflict waits", st)
	}
	snap, _ := h.eng.Snapshot(context.Background(), id)
	if err := h.eng.ResolveConflict(context.Background(), id, true); err == nil {
		t.Fatal("Resolved with markers left was accepted")
	}
	testsupport.WriteFile(t, filepath.Join(snap.Worktree.RunDir, "a.txt"), replaceLine(lines10, 1, "mine"))
	if err := h.eng.ResolveConflict(context.Background(), id, true); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed" {
		t.Fatalf("run = %s: %s", run.Status, run.Error)
	}
	if got := testsupport.Git(t, repo, "show", worktree.RunBranch(id)+":a.txt"); got != replaceLine(lines10, 1, "mine") {
		t.Fatalf("a.txt = %q", got)
	}
}

func TestWorktreeDependantSeesDependency(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"t1", 5, nil}, planned{"t2", 5, []string{"t1"}})
	var seen string
	h, repo := newIsoHarness(t, nil, scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		if task == "t1" {
			_ = os.WriteFile(filepath.Join(s.opts.Cwd, "lib.go"), []byte("package lib\n"), 0o644)
		} else {
			b, _ := os.ReadFile(filepath.Join(s.opts.Cwd, "lib.go"))
			seen = string(b)
			_ = os.WriteFile(filepath.Join(s.opts.Cwd, "lib.go"), append(b, "func F() {}\n"...), 0o644)
		}
		reportDone(h, s, task)
		return true
	}))
	id := h.createIn(repo, nil)
	if run := h.wait(id); run.Status != "completed" {
		t.Fatalf("run = %s: %s", run.Status, run.Error)
	}
	if seen != "package lib\n" {
		t.Fatalf("the dependant saw %q of its dependency's file", seen)
	}
	if got := testsupport.Git(t, repo, "show", worktree.RunBranch(id)+":lib.go"); got != "package lib\nfunc F() {}\n" {
		t.Fatalf("lib.go = %q", got)
	}
}

func TestWorktreeDirtyTreeAndApplyRefused(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"t1", 5, nil})
	var sawUserEdit bool
	h, repo := newIsoHarness(t, nil, scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		b, _ := os.ReadFile(filepath.Join(s.opts.Cwd, "a.txt"))
		sawUserEdit = strings.Contains(string(b), "user's")
		_ = os.WriteFile(filepath.Join(s.opts.Cwd, "a.txt"), []byte(replaceLine(lines10, 5, "by the run")), 0o644)
		reportDone(h, s, task)
		return true
	}))
	mine := replaceLine(lines10, 2, "the user's own edit")
	testsupport.WriteFile(t, filepath.Join(repo, "a.txt"), mine)
	id := h.createIn(repo, nil)
	h.rec.mu.Lock()
	created := h.rec.byRun[id][0]
	h.rec.mu.Unlock()
	if created.Run == nil || !strings.Contains(created.Run.Message, "uncommitted changes (a.txt)") {
		t.Fatalf("the created run does not say it leaves the uncommitted change out: %+v", created)
	}
	if run := h.wait(id); run.Status != "completed" {
		t.Fatalf("run = %s: %s", run.Status, run.Error)
	}
	if sawUserEdit {
		t.Fatal("the run started with the user's uncommitted change")
	}
	if readFile(t, filepath.Join(repo, "a.txt")) != mine {
		t.Fatal("the user's uncommitted change was touched")
	}
	if h.rec.count(EventWorktree) == 0 {
		t.Fatal("no note about the uncommitted changes")
	}
	evs, _ := h.st.Events(context.Background(), id, 0, 1000)
	noted := false
	for _, e := range evs {
		if e.Name == EventWorktree && strings.Contains(string(e.Payload), "a.txt") && strings.Contains(string(e.Payload), "uncommitted") {
			noted = true
		}
	}
	if !noted {
		t.Fatal("the run does not say that it starts without the uncommitted changes")
	}
	_, err := h.eng.Apply(context.Background(), id)
	var de *worktree.DirtyOverlapError
	if !errors.As(err, &de) || !slices.Equal(de.Files, []string{"a.txt"}) {
		t.Fatalf("Apply on a conflicting dirty tree = %v", err)
	}
	if readFile(t, filepath.Join(repo, "a.txt")) != mine {
		t.Fatal("a refused Apply touched the user's file")
	}
	if err := h.eng.Discard(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if got := branchList(t, repo); !slices.Equal(got, []string{"main"}) {
		t.Fatalf("branches after Discard = %v", got)
	}
	if readFile(t, filepath.Join(repo, "a.txt")) != mine {
		t.Fatal("Discard touched the user's file")
	}
}

// t1MergedT2Running starts a worktree run of two tasks and returns once
// t1's work (t1.txt) is merged while t2, which wrote t2.txt, never reports.
func t1MergedT2Running(t *testing.T) (*harness, string, string) {
	t.Helper()
	tasks := plan(planned{"t1", 5, nil}, planned{"t2", 5, nil})
	h, repo := newIsoHarness(t, nil, scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		_ = os.WriteFile(filepath.Join(s.opts.Cwd, task+".txt"), []byte(task+"\n"), 0o644)
		if task == "t1" {
			reportDone(h, s, task)
		}
		return true // t2 never reports
	}))
	id := h.createIn(repo, nil)
	h.until("t1 merged, t2 running", func() bool {
		snap, _ := h.eng.Snapshot(context.Background(), id)
		w := h.workers(id)
		return w["t2"].Status == "running" && snap.Worktree != nil && len(snap.Worktree.Tasks) == 2 && snap.Worktree.Tasks[0].Merged
	})
	return h, repo, id
}

func TestWorktreeCancelLeavesNoWorktree(t *testing.T) {
	t.Parallel()
	h, repo, id := t1MergedT2Running(t)
	if len(batonWorktrees(t, repo)) == 0 {
		t.Fatal("no worktrees while workers run")
	}
	if err := h.eng.Cancel(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if run := h.wait(id); run.Status != "cancelled" {
		t.Fatalf("run = %s", run.Status)
	}
	if wts := batonWorktrees(t, repo); len(wts) != 0 {
		t.Fatalf("worktrees left after cancel: %v", wts)
	}
	if _, err := os.Stat(filepath.Join(h.worktreeRoot, id)); !os.IsNotExist(err) {
		t.Fatalf("the run's folder is left: %v", err)
	}
	// What was merged stays on the run branch until Discard.
	branch := worktree.RunBranch(id)
	if got := branchList(t, repo); !slices.Equal(got, []string{branch, "main"}) {
		t.Fatalf("branches after cancel = %v", got)
	}
	if err := h.eng.Discard(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if got := branchList(t, repo); !slices.Equal(got, []string{"main"}) {
		t.Fatalf("branches after Discard = %v", got)
	}
}

// A cancelled run's branch applies like any finished run's: the tasks
// merged before the cancel, not the half-done work of the others.
func TestWorktreeApplyACancelledRun(t *testing.T) {
	t.Parallel()
	h, repo, id := t1MergedT2Running(t)
	if err := h.eng.Cancel(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if run := h.wait(id); run.Status != "cancelled" {
		t.Fatalf("run = %s", run.Status)
	}
	if _, err := h.eng.Apply(context.Background(), id); err != nil {
		t.Fatalf("Apply of a cancelled run: %v", err)
	}
	if readFile(t, filepath.Join(repo, "t1.txt")) != "t1\n" {
		t.Fatal("t1's merged change is not in the user's branch")
	}
	if _, err := os.Stat(filepath.Join(repo, "t2.txt")); !os.IsNotExist(err) {
		t.Fatalf("t2's unfinished work reached the user's branch: %v", err)
	}
	if got := branchList(t, repo); !slices.Equal(got, []string{"main"}) {
		t.Fatalf("branches after Apply = %v", got)
	}
}

func TestWorktreeResumeAfterCrash(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"t1", 5, nil}, planned{"t2", 5, []string{"t1"}})
	h, repo := newIsoHarness(t, nil, scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		_ = os.WriteFile(filepath.Join(s.opts.Cwd, task+".txt"), []byte(task+"\n"), 0o644)
		if task == "t2" {
			reportDone(h, s, task)
		}
		return true // t1 reports after the crash
	}))
	id := h.createIn(repo, nil)
	h.until("t1 running", func() bool { return h.workers(id)["t1"].Status == "running" })
	// The process dies with the worktrees present.
	h.close()
	sid, _ := WorkerSessionID(id, "t1")
	h.host.finishTurn(sid, block("completion", map[string]any{"task_id": "t1", "status": "success", "summary": "t1 done"}))
	h.open()
	if n, err := h.eng.Restore(context.Background()); err != nil || n != 1 {
		t.Fatalf("Restore = %d, %v", n, err)
	}
	run := h.wait(id)
	if run.Status != "completed" || run.TasksCompleted != 2 {
		t.Fatalf("run = %s (%d): %s", run.Status, run.TasksCompleted, run.Error)
	}
	branch := worktree.RunBranch(id)
	for _, f := range []string{"t1.txt", "t2.txt"} {
		if got := testsupport.Git(t, repo, "show", branch+":"+f); strings.TrimSpace(got) != strings.TrimSuffix(f, ".txt") {
			t.Fatalf("%s on the run branch = %q", f, got)
		}
	}
	if wts := batonWorktrees(t, repo); len(wts) != 0 {
		t.Fatalf("worktrees left: %v", wts)
	}
}

func TestWorktreeNotARepository(t *testing.T) {
	t.Parallel()
	h, _ := newIsoHarness(t, nil, scripted(plan(planned{"t1", 5, nil}), nil))
	plain := t.TempDir()
	_, err := h.eng.Create(context.Background(), CreateRequest{TemplateID: "test", Cwd: plain, Request: "x"})
	if !errors.Is(err, worktree.ErrNotRepo) || !errors.Is(err, ErrBadRequest) ||
		!strings.Contains(err.Error(), "git init") || !strings.Contains(err.Error(), "shared") {
		t.Fatalf("Create in a plain folder = %v", err)
	}
	shared := template.IsolationShared
	id := h.createIn(plain, &Overrides{Isolation: &shared})
	if run := h.wait(id); run.Status != "completed" {
		t.Fatalf("shared run = %s: %s", run.Status, run.Error)
	}
	if snap, _ := h.eng.Snapshot(context.Background(), id); snap.Worktree != nil {
		t.Fatalf("a shared run has a worktree: %+v", snap.Worktree)
	}
}

// A repository that disappears under a running run fails the run with the
// reason instead of leaving it waiting for merges that cannot happen.
func TestWorktreeRepositoryGone(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"t1", 5, nil})
	h, repo := newIsoHarness(t, nil, scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		return true // reports after the restart
	}))
	id := h.createIn(repo, nil)
	h.until("t1 running", func() bool { return h.workers(id)["t1"].Status == "running" })
	if err := os.RemoveAll(filepath.Join(repo, ".git")); err != nil {
		t.Fatal(err)
	}
	// A restart loses the opened worktree; the resume cannot open it again.
	h.close()
	sid, _ := WorkerSessionID(id, "t1")
	h.host.finishTurn(sid, block("completion", map[string]any{"task_id": "t1", "status": "success"}))
	h.open()
	if _, err := h.eng.Restore(context.Background()); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "error" || !strings.Contains(run.Error, "git worktree") {
		t.Fatalf("run = %s: %q", run.Status, run.Error)
	}
}

// With the file mailbox, a worker in its worktree finds its assignment and
// leaves its report in the run's mailbox; the mailbox is never committed.
func TestWorktreeMailbox(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil})
	var assignment string
	h, repo := newIsoHarness(t, func(tp *template.Template) { tp.Config.Transport = TransportMailbox },
		scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
			dir := filepath.Join(s.opts.Cwd, mailbox.DirName)
			b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(mailbox.ToDeveloper)))
			assignment = string(b)
			_ = os.WriteFile(filepath.Join(s.opts.Cwd, "code.go"), []byte("package x\n"), 0o644)
			msg, _ := json.Marshal(map[string]any{"type": "completion_report", "taskId": task, "platform": "web",
				"status": "awaiting_review", "summary": "Built " + task, "filesCreated": []string{"code.go"},
				"filesModified": []string{}, "buildResult": map[string]any{"status": "success", "command": "go build", "errors": 0},
				"timestamp": "2026-11-22T07:00:00Z"})
			out, _ := json.Marshal(map[string]any{"messages": []json.RawMessage{msg}, "lastRead": nil})
			_ = os.WriteFile(filepath.Join(dir, filepath.FromSlash(mailbox.ToTeamLead)), out, 0o644)
			s.tool("Write", map[string]any{"file_path": filepath.Join(dir, filepath.FromSlash(mailbox.ToTeamLead))})
			return true // reports only in the mailbox
		}))
	id := h.createIn(repo, nil)
	run := h.wait(id)
	if run.Status != "completed" {
		t.Fatalf("run = %s: %s", run.Status, run.Error)
	}
	if !strings.Contains(assignment, "task_001") {
		t.Fatalf("the worker did not find its assignment in its worktree: %q", assignment)
	}
	tree := testsupport.Git(t, repo, "ls-tree", "-r", "--name-only", worktree.RunBranch(id))
	if !strings.Contains(tree, "code.go") || strings.Contains(tree, mailbox.DirName) {
		t.Fatalf("run branch holds %q", tree)
	}
	if _, err := os.Stat(filepath.Join(repo, mailbox.DirName, filepath.FromSlash(mailbox.ToTeamLead))); err != nil {
		t.Fatalf("the report is not in the run's mailbox: %v", err)
	}
}
