package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/worktree"
)

// Worktree isolation (template config.isolation "worktree"): each worker
// runs in its own git worktree on its own branch, made from the run branch
// baton/<run> when the worker starts; when a task completes, its changes
// are committed (by Baton when the worker did not) and merged into the run
// branch with git merge --no-ff in the run's own worktree, in dependency
// order. A task starts only once its dependencies are merged. A merge that
// conflicts becomes the run's conflict: a merge task resolves it in the
// run's worktree, and when that fails the user does (ResolveConflict).
// Aggregation and verification look at the run's worktree. When the run
// ends, every worktree is removed; the run branch stays until Apply or
// Discard. The git work is done by backend/worktree.

// Events of worktree isolation.
const (
	// EventWorkerMerged: a task's changes were merged into the run branch
	// (the message says how much).
	EventWorkerMerged = "worker:merged"
	// EventMergeConflict: merging a task conflicts; Payload.Tasks holds the
	// merge task, or none when the user is asked.
	EventMergeConflict = "orchestrator:mergeConflict"
	// EventWorktree: a note about the run's branch (uncommitted changes
	// left out, applied, discarded).
	EventWorktree = "orchestrator:worktree"
)

// isoState is the run's worktree state, stored in the run's state.
type isoState struct {
	Run      *worktree.Run       `json:"run,omitempty"`
	Tasks    map[string]*isoTask `json:"tasks,omitempty"`
	Conflict *isoConflict        `json:"conflict,omitempty"`
	// Cleaned: the worktrees were removed when the run ended.
	Cleaned bool `json:"cleaned,omitempty"`
	// Outcome is "applied", "discarded" or "empty" (nothing changed) once
	// the run branch is gone.
	Outcome string `json:"outcome,omitempty"`
	// Applied says how Apply merged the run branch.
	Applied *worktree.Applied `json:"applied,omitempty"`
	// Dirty lists the user's uncommitted changes when the run was created.
	Dirty []string `json:"dirty,omitempty"`

	opened bool // the worktrees were checked in this process
}

// isoTask is one task's worktree and, once merged, its changes.
type isoTask struct {
	Branch string           `json:"branch,omitempty"`
	Dir    string           `json:"dir,omitempty"`
	Base   string           `json:"base,omitempty"`
	Merged *worktree.Merged `json:"merged,omitempty"`
	// Resolves names the task whose conflict this merge task resolves.
	Resolves string `json:"resolves,omitempty"`
	// Dropped: the user gave up the task's conflicting merge.
	Dropped bool   `json:"dropped,omitempty"`
	Error   string `json:"error,omitempty"`
}

// isoConflict is a merge stopped on conflicts in the run's worktree.
type isoConflict struct {
	Task  string   `json:"task"`
	Files []string `json:"files"`
	Base  string   `json:"base"`
	Tip   string   `json:"tip"`
	// Resolver is the merge task that resolves it, or "user".
	Resolver string                `json:"resolver"`
	Changes  []worktree.FileChange `json:"changes,omitempty"`
}

const resolverUser = "user"

// isolated reports whether runs of tmpl get worktrees from this engine.
func (e *Engine) isolated(tmpl template.Template) bool {
	return e.worktreeRoot != "" && tmpl.Config.Worktree()
}

// checkIsolation refuses to create a worktree run in a folder that cannot
// have one, with the sentence that says what to do. The note it returns
// tells the user, before anything starts, that their uncommitted changes
// are not part of the run.
func (e *Engine) checkIsolation(ctx context.Context, cwd string, tmpl template.Template) ([]string, error) {
	if !e.isolated(tmpl) {
		return nil, nil
	}
	if _, err := worktree.CheckVersion(ctx); err != nil {
		return nil, fmt.Errorf("%w: %w", err, ErrBadRequest)
	}
	repo, err := worktree.RepoRoot(ctx, cwd)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", err, ErrBadRequest)
	}
	dirty, err := worktree.DirtyFiles(ctx, repo)
	if err != nil {
		return nil, fmt.Errorf("read the state of %s: %w", repo, err)
	}
	return dirty, nil
}

// isoCreated stores, with the new run, that it isolates its workers and
// which uncommitted changes it leaves out, so the run says so before
// anything starts.
func (r *runner) isoCreated(run *store.Run, dirty []string) {
	if r.iso == nil {
		return
	}
	r.iso.Dirty = dirty
	if len(dirty) > 0 {
		run.Message = strings.TrimSpace(dirtyNote(dirty))
		r.run.Message = run.Message
	}
	run.State, _ = json.Marshal(runState{Worktree: r.iso})
}

func dirtyNote(dirty []string) string {
	return fmt.Sprintf("Your uncommitted changes (%s) are not part of this run: it starts from your last commit without them and never touches them. ",
		clip(strings.Join(dirty, ", "), 300))
}

// isoOpen makes the run's branch and worktree the first time a worker
// needs them, or checks them again after a restart.
func (r *runner) isoOpen(ctx context.Context) error {
	if r.iso.opened {
		return nil
	}
	if r.iso.Tasks == nil {
		r.iso.Tasks = map[string]*isoTask{}
	}
	if r.iso.Run == nil {
		wr, err := worktree.Start(ctx, r.run.Cwd, r.e.worktreeRoot, r.run.ID)
		if err != nil {
			return err
		}
		r.iso.Run = wr
		r.iso.opened = true
		msg := fmt.Sprintf("The workers work on the branch %s in their own git worktrees; your branch changes only when you choose Apply.", wr.Branch)
		if len(wr.Dirty) > 0 {
			msg = dirtyNote(wr.Dirty) + msg
		}
		return r.commit(ctx, store.Change{}, nil, r.ev(EventWorktree, nil, msg))
	}
	wr, err := worktree.Open(ctx, *r.iso.Run)
	if err != nil {
		return err
	}
	if err := wr.Resume(ctx); err != nil {
		return err
	}
	r.iso.Run = wr
	r.iso.opened = true
	return nil
}

// isoSub is the folder inside a worktree that stands for the run's folder
// (the run may work in a subfolder of its repository).
func (r *runner) isoSub(dir string) string {
	cwd := r.run.Cwd
	if ev, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = ev
	}
	rel, err := filepath.Rel(r.iso.Run.Repo, cwd)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return dir
	}
	return filepath.Join(dir, rel)
}

// workerCwd is where the worker of task t runs: the run's folder, or with
// worktree isolation its own worktree (made from the run branch as it is
// now), or for a merge task the run's worktree.
func (r *runner) workerCwd(ctx context.Context, t *store.Task) (string, error) {
	if r.iso == nil {
		return r.run.Cwd, nil
	}
	if err := r.isoOpen(ctx); err != nil {
		return "", err
	}
	if it := r.iso.Tasks[t.ID]; it != nil && it.Resolves != "" {
		return r.isoSub(r.iso.Run.RunDir()), nil
	}
	wt, err := r.iso.Run.StartTask(ctx, t.ID)
	if err != nil {
		return "", err
	}
	r.iso.Tasks[t.ID] = &isoTask{Branch: wt.Branch, Dir: wt.Dir, Base: wt.Base}
	cwd := r.isoSub(wt.Dir)
	if r.tmpl.Config.Transport == TransportMailbox {
		// The file mailbox is the run's, in its folder: the worker finds
		// its assignment and writes its report there (never committed).
		link := filepath.Join(cwd, worktree.BatonDir)
		if _, err := os.Lstat(link); errors.Is(err, os.ErrNotExist) {
			if err := os.MkdirAll(cwd, 0o755); err != nil {
				return "", err
			}
			if err := os.Symlink(filepath.Join(r.run.Cwd, worktree.BatonDir), link); err != nil {
				return "", fmt.Errorf("link the run's mailbox into the worktree: %w", err)
			}
		}
	}
	return cwd, nil
}

// isoTaskDir is the folder the prompt of task id names ("" the run's).
func (r *runner) isoTaskDir(id string) string {
	if r.iso == nil || r.iso.Run == nil {
		return ""
	}
	it := r.iso.Tasks[id]
	switch {
	case it == nil:
		return ""
	case it.Resolves != "":
		return r.isoSub(r.iso.Run.RunDir())
	case it.Dir != "":
		return r.isoSub(it.Dir)
	}
	return ""
}

// filesRoot is the folder a worker's file paths are relative to: its
// worktree (standing for the run's folder) or the run's folder.
func (r *runner) filesRoot(taskID string) string {
	if d := r.isoTaskDir(taskID); d != "" {
		return d
	}
	return r.run.Cwd
}

// isoPhaseValues points aggregation and verification at the run's
// worktree, where the merged changes are.
func (r *runner) isoPhaseValues(phase template.Phase, values map[string]any) map[string]any {
	if r.iso == nil || r.iso.Run == nil || (phase != template.PhaseAggregation && phase != template.PhaseVerification) {
		return values
	}
	if values == nil {
		values = map[string]any{}
	}
	values[template.VarCWD] = r.isoSub(r.iso.Run.RunDir())
	return values
}

// isoReady filters the ready tasks: with isolation a task starts only when
// its dependencies' changes are on the run branch.
func (r *runner) isoReady(tasks []*store.Task) []*store.Task {
	if r.iso == nil {
		return tasks
	}
	out := tasks[:0:0]
	for _, t := range tasks {
		ok := true
		for _, d := range t.Dependencies {
			if ws := r.plan.workers[d]; ws != nil && ws.status == WorkerCompleted && !r.isoMerged(d) {
				ok = false
			}
		}
		if ok {
			out = append(out, t)
		}
	}
	return out
}

func (r *runner) isoMerged(id string) bool {
	it := r.iso.Tasks[id]
	return it == nil || it.Merged != nil || it.Resolves != "" || it.Dropped
}

// isoSettled reports whether every completed task is merged and no
// conflict waits: only then may the run aggregate.
func (r *runner) isoSettled() bool {
	if r.iso == nil {
		return true
	}
	if r.iso.Conflict != nil {
		return false
	}
	for id, ws := range r.plan.workers {
		if ws.status == WorkerCompleted && !r.isoMerged(id) {
			return false
		}
	}
	return true
}

// isoMerge merges the completed tasks into the run branch, each after the
// tasks it depends on, and follows a conflict's resolution.
func (r *runner) isoMerge(ctx context.Context) error {
	if r.iso == nil || r.iso.Run == nil || r.status.Finished() {
		return nil
	}
	if err := r.isoOpen(ctx); err != nil {
		// Without its worktree nothing can be merged: the run cannot go on.
		return r.fail(ctx, "the run's git worktree cannot be opened: "+err.Error())
	}
	for {
		if r.iso.Conflict != nil {
			if err := r.isoFollowConflict(ctx); err != nil || r.iso.Conflict != nil {
				return err
			}
		}
		ws := r.isoNext()
		if ws == nil {
			return nil
		}
		if err := r.isoMergeTask(ctx, ws); err != nil {
			return err
		}
	}
}

// isoNext is the first completed, unmerged task whose dependencies are
// merged.
func (r *runner) isoNext() *workerState {
	for _, ws := range r.plan.inOrder() {
		id := ws.w.TaskID
		if ws.status != WorkerCompleted || r.isoMerged(id) {
			continue
		}
		t := r.plan.task(id)
		ready := true
		for _, d := range t.Dependencies {
			if dw := r.plan.workers[d]; dw != nil && dw.status == WorkerCompleted && !r.isoMerged(d) {
				ready = false
			}
		}
		if ready {
			return ws
		}
	}
	return nil
}

func (r *runner) isoMergeTask(ctx context.Context, ws *workerState) error {
	id := ws.w.TaskID
	it := r.iso.Tasks[id]
	if it == nil {
		it = &isoTask{}
		r.iso.Tasks[id] = it
	}
	title := id
	if t := r.plan.task(id); t != nil {
		title = t.Title
	}
	msg := fmt.Sprintf("%s: %s", id, title)
	if ws.w.Summary != "" {
		msg += "\n\n" + clip(ws.w.Summary, 2000)
	}
	if _, err := r.iso.Run.Commit(ctx, id, msg); err != nil {
		return r.isoTaskError(ctx, ws, it, fmt.Sprintf("commit the changes of %s: %v", id, err))
	}
	m, err := r.iso.Run.Merge(ctx, id, fmt.Sprintf("Baton: merge %s (%s)", id, clip(title, 60)))
	var ce *worktree.ConflictError
	if errors.As(err, &ce) {
		return r.isoConflict(ctx, ws, m, ce)
	}
	if err != nil {
		return r.isoTaskError(ctx, ws, it, fmt.Sprintf("merge %s into %s: %v", id, r.iso.Run.Branch, err))
	}
	it.Merged = &m
	if err := r.iso.Run.RemoveTask(ctx, id); err != nil {
		r.log().Warn("remove a merged task's worktree", "task", id, "err", err)
	}
	it.Dir = ""
	return r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerMerged, ws, mergedText(r.iso.Run.Branch, m.Changes)))
}

// isoTaskError records a git failure for a task and goes on without its
// changes (its branch stays until the run ends).
func (r *runner) isoTaskError(ctx context.Context, ws *workerState, it *isoTask, reason string) error {
	it.Error = reason
	it.Dropped = true
	r.run.Message = "Its changes are not on the run branch: " + reason
	return r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerMerged, ws, r.run.Message))
}

func mergedText(branch string, changes []worktree.FileChange) string {
	if len(changes) == 0 {
		return "no changes to merge"
	}
	add, del := 0, 0
	for _, c := range changes {
		add += max(c.Added, 0)
		del += max(c.Removed, 0)
	}
	return fmt.Sprintf("merged into %s: %d %s, +%d −%d", branch, len(changes), plural(len(changes), "file", "files"), add, del)
}

// isoConflict makes a merge conflict the run's: a merge task resolves it
// in the run's worktree.
func (r *runner) isoConflict(ctx context.Context, ws *workerState, m worktree.Merged, ce *worktree.ConflictError) error {
	id := ws.w.TaskID
	c := &isoConflict{Task: id, Files: ce.Files, Base: m.Base, Tip: m.Tip, Changes: m.Changes}
	r.iso.Conflict = c
	mt := r.mergeTask(ws, c)
	c.Resolver = mt.ID
	r.iso.Tasks[mt.ID] = &isoTask{Resolves: id}
	added := r.plan.add(r.run.ID, []store.Task{mt})
	r.run.Message = fmt.Sprintf("Merging %s into %s conflicts in %s; the merge task %s resolves it in the run's worktree %s.",
		id, r.iso.Run.Branch, strings.Join(ce.Files, ", "), mt.ID, r.iso.Run.RunDir())
	ev := r.ev(EventMergeConflict, ws, r.run.Message)
	ev.p.Tasks = []store.Task{mt}
	return r.commit(ctx, store.Change{Tasks: []store.Task{mt}}, append([]*workerState{ws}, added...), ev)
}

// mergeTask is the task that resolves conflict c: the conflicting files and
// the reports of the task and of the merged tasks that changed them.
func (r *runner) mergeTask(ws *workerState, c *isoConflict) store.Task {
	id := "merge-" + c.Task
	for n := 2; r.plan.task(id) != nil; n++ {
		id = fmt.Sprintf("merge-%s-%d", c.Task, n)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Git stopped merging task %s into the run branch %s because it and tasks merged before changed the same lines. "+
		"The merge is in progress in this folder, the run's own git worktree (%s). Resolve the conflicts in %s: edit each file so it keeps "+
		"what both sides meant, and remove every conflict marker (<<<<<<<, =======, >>>>>>>). Do not commit and do not abort the merge: "+
		"Baton commits it when you report success. Change nothing else.\n",
		c.Task, r.iso.Run.Branch, r.isoSub(r.iso.Run.RunDir()), strings.Join(c.Files, ", "))
	report := func(id string, w *workerState) {
		t := r.plan.task(id)
		fmt.Fprintf(&b, "\nReport of %s (%s): %s\n", id, t.Title, clip(w.w.Summary, 1500))
		if w.w.Output != "" {
			fmt.Fprintf(&b, "%s\n", clip(w.w.Output, 1500))
		}
	}
	report(c.Task, ws)
	for _, o := range r.plan.inOrder() {
		it := r.iso.Tasks[o.w.TaskID]
		if it == nil || it.Merged == nil || o.w.TaskID == c.Task {
			continue
		}
		for _, ch := range it.Merged.Changes {
			if slices.Contains(c.Files, ch.Path) {
				report(o.w.TaskID, o)
				break
			}
		}
	}
	complexity := ""
	if t := r.plan.task(c.Task); t != nil {
		complexity = t.Complexity
	}
	return store.Task{RunID: r.run.ID, ID: id, Title: "Resolve the merge conflict of " + c.Task, Description: b.String(),
		Scope: c.Files, Priority: 10, Complexity: complexity, Dependencies: []string{}, Position: len(r.plan.tasks)}
}

// isoFollowConflict finishes the merge once its merge task completed, or
// hands the conflict to the user when the merge task failed or left
// markers.
func (r *runner) isoFollowConflict(ctx context.Context) error {
	c := r.iso.Conflict
	if c.Resolver == resolverUser {
		return nil
	}
	rw := r.plan.workers[c.Resolver]
	if rw == nil {
		return r.isoAskUser(ctx, "its merge task is gone")
	}
	switch {
	case rw.status == WorkerCompleted:
		err := r.iso.Run.FinishMerge(ctx, c.Files)
		var ue *worktree.UnresolvedError
		if errors.As(err, &ue) {
			return r.isoAskUser(ctx, ue.Error())
		}
		if err != nil {
			return r.isoAskUser(ctx, err.Error())
		}
		return r.isoResolved(ctx, "resolved by "+c.Resolver)
	case rw.status.Done():
		return r.isoAskUser(ctx, fmt.Sprintf("the merge task %s did not complete", c.Resolver))
	}
	return nil
}

// isoAskUser leaves the conflict to the user (Inbox, ResolveConflict).
func (r *runner) isoAskUser(ctx context.Context, why string) error {
	c := r.iso.Conflict
	c.Resolver = resolverUser
	r.run.Message = fmt.Sprintf("The merge conflict of %s in %s needs you (%s): resolve the files in %s and choose Resolved, or drop the task's changes.",
		c.Task, strings.Join(c.Files, ", "), why, r.iso.Run.RunDir())
	return r.commit(ctx, store.Change{}, nil, r.ev(EventMergeConflict, nil, r.run.Message))
}

// isoResolved records the finished merge of the conflicting task.
func (r *runner) isoResolved(ctx context.Context, how string) error {
	c := r.iso.Conflict
	head, err := r.iso.Run.Head(ctx)
	if err != nil {
		return err
	}
	it := r.iso.Tasks[c.Task]
	if it == nil {
		it = &isoTask{}
		r.iso.Tasks[c.Task] = it
	}
	it.Merged = &worktree.Merged{Base: c.Base, Tip: c.Tip, Commit: head, Changes: c.Changes}
	r.iso.Conflict = nil
	if err := r.iso.Run.RemoveTask(ctx, c.Task); err != nil {
		r.log().Warn("remove a merged task's worktree", "task", c.Task, "err", err)
	}
	it.Dir = ""
	r.run.Message = ""
	ws := r.plan.workers[c.Task]
	return r.commit(ctx, store.Change{}, nil, r.ev(EventWorkerMerged, ws, mergedText(r.iso.Run.Branch, c.Changes)+" ("+how+")"))
}

// resolveConflict is the user's answer to the run's conflict: resolved
// (the files in the run's worktree were fixed) or not (the task's changes
// are left out of the run branch).
func (r *runner) resolveConflict(ctx context.Context, resolved bool) error {
	if r.iso == nil || r.iso.Conflict == nil {
		return fmt.Errorf("the run has no merge conflict to resolve: %w", ErrBadRequest)
	}
	c := r.iso.Conflict
	if c.Resolver != resolverUser {
		if rw := r.plan.workers[c.Resolver]; rw != nil && !rw.status.Done() {
			return fmt.Errorf("the merge task %s is resolving the conflict: %w", c.Resolver, ErrBadRequest)
		}
	}
	if err := r.isoOpen(ctx); err != nil {
		return err
	}
	if !resolved {
		if err := r.iso.Run.AbortMerge(ctx); err != nil {
			return err
		}
		if it := r.iso.Tasks[c.Task]; it != nil {
			it.Dropped = true
			it.Error = "its merge conflicted and you left its changes out"
		}
		r.iso.Conflict = nil
		r.run.Message = ""
		return r.commit(ctx, store.Change{}, nil, r.ev(EventWorkerMerged, r.plan.workers[c.Task],
			fmt.Sprintf("the changes of %s were left out of %s", c.Task, r.iso.Run.Branch)))
	}
	if err := r.iso.Run.FinishMerge(ctx, c.Files); err != nil {
		return fmt.Errorf("%w: %w", err, ErrBadRequest)
	}
	return r.isoResolved(ctx, "resolved by you")
}

// isoFinish removes the run's worktrees when it ends (completed, failed or
// cancelled); the run branch stays for Apply or Discard, unless nothing
// changed.
func (r *runner) isoFinish(ctx context.Context) {
	if r.iso == nil || r.iso.Run == nil || r.iso.Cleaned {
		return
	}
	ctx = context.WithoutCancel(ctx)
	wr, err := worktree.Open(ctx, *r.iso.Run)
	if err == nil {
		err = wr.Cleanup(ctx)
	}
	if err != nil {
		r.log().Warn("remove the run's worktrees", "err", err)
		return
	}
	r.iso.Cleaned = true
	r.iso.Conflict = nil
	head, err := wr.Head(ctx)
	if err == nil && head == wr.Base {
		if err := wr.Discard(ctx); err == nil {
			r.iso.Outcome = "empty"
		}
		return
	}
	note := fmt.Sprintf("The changes are on the branch %s: Apply merges them into your branch (or run %s), Discard drops them.", wr.Branch, wr.MergeCommand())
	r.run.Message = strings.TrimSpace(r.run.Message + "\n" + note)
}

// Worktree is a run's worktree isolation as a view shows it.
type Worktree struct {
	Repo   string `json:"repo"`
	Branch string `json:"branch"`
	Base   string `json:"base"`
	// RunDir is the run's own worktree (gone once the run ended).
	RunDir string   `json:"runDir"`
	Dirty  []string `json:"dirty,omitempty"`
	// MergeCommand merges the run branch by hand.
	MergeCommand string         `json:"mergeCommand"`
	Tasks        []TaskChanges  `json:"tasks"`
	Conflict     *ConflictState `json:"conflict,omitempty"`
	// Outcome is "", "applied", "discarded" or "empty".
	Outcome string            `json:"outcome,omitempty"`
	Applied *worktree.Applied `json:"applied,omitempty"`
	Cleaned bool              `json:"cleaned"`
}

// TaskChanges are the files one task changed on the run branch.
type TaskChanges struct {
	TaskID  string                `json:"taskId"`
	Merged  bool                  `json:"merged"`
	Dropped bool                  `json:"dropped,omitempty"`
	Error   string                `json:"error,omitempty"`
	Changes []worktree.FileChange `json:"changes"`
	// Resolves names the task whose conflict this merge task resolved.
	Resolves string `json:"resolves,omitempty"`
}

// ConflictState is the run's merge conflict.
type ConflictState struct {
	TaskID   string   `json:"taskId"`
	Files    []string `json:"files"`
	Resolver string   `json:"resolver"`
	// ByUser is true when the conflict waits for the user.
	ByUser bool `json:"byUser"`
}

// storedIso reads the worktree state of a stored run (nil without one).
func storedIso(run store.Run) (*isoState, error) {
	if len(run.State) == 0 {
		return nil, nil
	}
	var rs runState
	if err := json.Unmarshal(run.State, &rs); err != nil {
		return nil, fmt.Errorf("run state: %w", err)
	}
	return rs.Worktree, nil
}

func worktreeView(run store.Run, tasks []store.Task) (*Worktree, error) {
	iso, err := storedIso(run)
	if err != nil || iso == nil {
		return nil, err
	}
	if iso.Run == nil {
		// Before the first worker: the branch it will make (none when the
		// run ended before).
		w := &Worktree{Branch: worktree.RunBranch(run.ID), Dirty: iso.Dirty, Tasks: []TaskChanges{}}
		if store.Finished(run.Status) {
			w.Outcome, w.Cleaned = "empty", true
		}
		return w, nil
	}
	w := &Worktree{Repo: iso.Run.Repo, Branch: iso.Run.Branch, Base: iso.Run.Base, RunDir: iso.Run.RunDir(), Dirty: iso.Run.Dirty,
		MergeCommand: iso.Run.MergeCommand(), Outcome: iso.Outcome, Applied: iso.Applied, Cleaned: iso.Cleaned, Tasks: []TaskChanges{}}
	for _, t := range tasks {
		it := iso.Tasks[t.ID]
		if it == nil {
			continue
		}
		tc := TaskChanges{TaskID: t.ID, Merged: it.Merged != nil, Dropped: it.Dropped, Error: it.Error, Resolves: it.Resolves, Changes: []worktree.FileChange{}}
		if it.Merged != nil {
			tc.Changes = it.Merged.Changes
		}
		w.Tasks = append(w.Tasks, tc)
	}
	if c := iso.Conflict; c != nil {
		w.Conflict = &ConflictState{TaskID: c.Task, Files: c.Files, Resolver: c.Resolver, ByUser: c.Resolver == resolverUser}
	}
	return w, nil
}

// TaskPatch returns the patch of one task's merged changes (git diff).
func (e *Engine) TaskPatch(ctx context.Context, runID, taskID string) (string, error) {
	run, err := e.store.Run(ctx, runID)
	if errors.Is(err, store.ErrNotFound) {
		return "", fmt.Errorf("run %s: %w", runID, ErrUnknownRun)
	}
	if err != nil {
		return "", err
	}
	iso, err := storedIso(run)
	if err != nil {
		return "", err
	}
	if iso == nil || iso.Run == nil {
		return "", fmt.Errorf("run %s has no worktrees: %w", runID, ErrBadRequest)
	}
	it := iso.Tasks[taskID]
	switch {
	case it == nil:
		return "", fmt.Errorf("task %s of run %s: %w", taskID, runID, ErrUnknownTask)
	case it.Merged != nil:
		return iso.Run.Patch(ctx, it.Merged.Base, it.Merged.Tip)
	case iso.Conflict != nil && iso.Conflict.Task == taskID:
		return iso.Run.Patch(ctx, iso.Conflict.Base, iso.Conflict.Tip)
	}
	return "", nil
}

// ResolveConflict answers the run's merge conflict for the user: resolved
// (the conflicting files in the run's worktree were fixed; Baton commits
// the merge) or not (the task's changes are left out of the run branch).
func (e *Engine) ResolveConflict(ctx context.Context, runID string, resolved bool) error {
	return e.do(ctx, runID, func(ctx context.Context, r *runner) error { return r.resolveConflict(ctx, resolved) })
}

// Apply merges a finished run's branch into the user's current branch (a
// fast forward where possible) and removes the branch. It refuses, changing
// nothing, when the user's uncommitted changes touch the same files.
func (e *Engine) Apply(ctx context.Context, runID string) (worktree.Applied, error) {
	var applied worktree.Applied
	err := e.endBranch(ctx, runID, "applied", func(wr *worktree.Run) error {
		var err error
		if applied, err = wr.Apply(ctx); err != nil {
			return err
		}
		return wr.Discard(ctx)
	}, func(iso *isoState) string {
		iso.Applied = &applied
		how := "merged"
		switch {
		case applied.Nothing:
			how = "already held by"
		case applied.FastForward:
			how = "fast-forwarded into"
		}
		return fmt.Sprintf("The changes of %s were %s your branch %s.", iso.Run.Branch, how, applied.Into)
	})
	return applied, err
}

// Discard drops a finished run's branch and worktrees; the user's branch
// stays as it is.
func (e *Engine) Discard(ctx context.Context, runID string) error {
	return e.endBranch(ctx, runID, "discarded", func(wr *worktree.Run) error { return wr.Discard(ctx) },
		func(iso *isoState) string { return fmt.Sprintf("The branch %s was discarded.", iso.Run.Branch) })
}

func (e *Engine) endBranch(ctx context.Context, runID, outcome string, do func(*worktree.Run) error, note func(*isoState) string) error {
	run, err := e.store.Run(ctx, runID)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("run %s: %w", runID, ErrUnknownRun)
	}
	if err != nil {
		return err
	}
	if !store.Finished(run.Status) {
		return fmt.Errorf("run %s is %s; Apply and Discard come when it has ended: %w", runID, run.Status, ErrIllegalTransition)
	}
	var rs runState
	if err := json.Unmarshal(run.State, &rs); err != nil {
		return fmt.Errorf("run state: %w", err)
	}
	iso := rs.Worktree
	if iso == nil || iso.Run == nil {
		return fmt.Errorf("run %s has no branch of its own: %w", runID, ErrBadRequest)
	}
	if iso.Outcome != "" {
		return fmt.Errorf("the branch of run %s is already %s: %w", runID, iso.Outcome, ErrIllegalTransition)
	}
	wr, err := worktree.Open(ctx, *iso.Run)
	if err != nil {
		return err
	}
	if err := do(wr); err != nil {
		return err
	}
	iso.Outcome, iso.Cleaned = outcome, true
	msg := note(iso)
	run.State, _ = json.Marshal(rs)
	p := Payload{RunID: run.ID, Status: run.Status, Phase: run.Phase, Message: msg}
	pj, _ := json.Marshal(p)
	if err := e.store.Commit(ctx, run.ID, store.Change{Run: &run, Events: []store.Event{{Name: EventWorktree, Payload: pj}}}); err != nil {
		return err
	}
	r := run
	p.Run = &r
	e.emit(EventWorktree, p)
	return nil
}
