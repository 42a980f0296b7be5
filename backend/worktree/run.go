package worktree

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

var namePart = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$`)

// ErrInvalidName is returned for a run or task id that cannot be part of a
// branch name or a folder name.
var ErrInvalidName = errors.New("invalid name for a branch or folder")

// CheckName returns an error matching ErrInvalidName unless s, the id of
// a kind ("run", "task"), can be part of a branch name and a folder name.
func CheckName(kind, s string) error { return checkName(kind, s) }

func checkName(kind, s string) error {
	if !namePart.MatchString(s) {
		return fmt.Errorf("%s id %q: %w", kind, s, ErrInvalidName)
	}
	return nil
}

// Run is the git side of one run: its branch, the commit it started from,
// and the folder under Baton's data directory that holds its worktrees.
// It is plain data, stored with the run; Open rebuilds one after a restart.
type Run struct {
	// Repo is the top folder of the user's repository.
	Repo string `json:"repo"`
	// ID is the run's id.
	ID string `json:"id"`
	// Branch is the run branch, baton/<id>.
	Branch string `json:"branch"`
	// Base is the commit (the user's HEAD) the run branch started from.
	Base string `json:"base"`
	// Dir is the folder that holds the run's worktrees: Dir/run is the
	// run's own, Dir/tasks/<task> each task's.
	Dir string `json:"dir"`
	// Dirty lists the paths that had uncommitted changes in the user's
	// tree when the run started: the run starts without them and never
	// touches them.
	Dirty []string `json:"dirty,omitempty"`
}

// RunBranch is the name of a run's branch.
func RunBranch(runID string) string { return "baton/" + runID }

// TaskBranch is the name of a task's branch. (It cannot be
// baton/<run>/<task>: git cannot hold a branch baton/<run> and branches
// below it at once.)
func TaskBranch(runID, taskID string) string { return "baton/" + runID + "-tasks/" + taskID }

// RunDir is the run's own worktree, where merges happen.
func (r *Run) RunDir() string { return filepath.Join(r.Dir, "run") }

// CopiesDir holds read-only copies of files of the run branch, made to be
// opened after the run's worktrees are gone; Cleanup removes it.
func (r *Run) CopiesDir() string { return r.Dir + "-files" }

// removeAll removes dir, read-only files and folders included.
func removeAll(dir string) error {
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// TaskDir is the worktree of one task.
func (r *Run) TaskDir(taskID string) string { return filepath.Join(r.Dir, "tasks", taskID) }

// Start makes the run branch baton/<runID> from the HEAD of the repository
// cwd is in and checks it out in a worktree under root/<runID>. The user's
// working tree is only read: uncommitted changes are listed in Run.Dirty
// and stay where they are. Start again with the same id reuses what is
// there (a resume).
func Start(ctx context.Context, cwd, root, runID string) (*Run, error) {
	if err := checkName("run", runID); err != nil {
		return nil, err
	}
	repo, err := RepoRoot(ctx, cwd)
	if err != nil {
		return nil, err
	}
	if root == "" {
		return nil, errors.New("start the run's worktree: no folder for worktrees")
	}
	root, err = filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	r := &Run{Repo: repo, ID: runID, Branch: RunBranch(runID), Dir: filepath.Join(root, runID)}
	if inside(r.Dir, repo) {
		return nil, fmt.Errorf("Baton's worktree folder %s is inside the repository %s: choose a data folder outside it", root, repo)
	}
	dirty, err := DirtyFiles(ctx, repo)
	if err != nil {
		return nil, err
	}
	r.Dirty = dirty
	if base, err := revParse(ctx, repo, "refs/heads/"+r.Branch); err == nil {
		// The branch is there from before: a resume.
		r.Base = base
		if mb, err := runGit(ctx, repo, "merge-base", "HEAD", r.Branch); err == nil {
			r.Base = strings.TrimSpace(mb)
		}
	} else {
		head, err := revParse(ctx, repo, "HEAD")
		if err != nil {
			return nil, err
		}
		if _, err := runGit(ctx, repo, "branch", r.Branch, head); err != nil {
			return nil, err
		}
		r.Base = head
	}
	if err := os.MkdirAll(filepath.Join(r.Dir, "tasks"), 0o700); err != nil {
		return nil, fmt.Errorf("make the run's worktree folder: %w", err)
	}
	if err := r.ensureWorktree(ctx, r.RunDir(), r.Branch, ""); err != nil {
		return nil, err
	}
	return r, nil
}

// Open rebuilds a run from its stored fields after a restart and prunes
// the worktrees git knows of whose folders are gone. Its worktrees are made
// again by Resume or StartTask when they are needed.
func Open(ctx context.Context, stored Run) (*Run, error) {
	r := stored
	if r.Repo == "" || r.Dir == "" || r.Branch == "" {
		return nil, errors.New("open the run's worktrees: the stored run has no repository")
	}
	if _, err := runGit(ctx, r.Repo, "worktree", "prune"); err != nil {
		return nil, err
	}
	return &r, nil
}

// Resume makes sure the run's own worktree exists (after a crash or a
// cleanup that removed it) and prunes stale worktree records.
func (r *Run) Resume(ctx context.Context) error {
	if _, err := runGit(ctx, r.Repo, "worktree", "prune"); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(r.Dir, "tasks"), 0o700); err != nil {
		return fmt.Errorf("make the run's worktree folder: %w", err)
	}
	return r.ensureWorktree(ctx, r.RunDir(), r.Branch, "")
}

// ensureWorktree checks branch out in dir unless a worktree of it is there;
// with from set, the branch is made (or reset) from that commit first.
func (r *Run) ensureWorktree(ctx context.Context, dir, branch, from string) error {
	if wts, err := r.worktrees(ctx); err == nil {
		for _, w := range wts {
			if samePath(w.Path, dir) {
				if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
					return nil
				}
			}
		}
	}
	if _, err := runGit(ctx, r.Repo, "worktree", "prune"); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("clear the worktree folder %s: %w", dir, err)
	}
	args := []string{"worktree", "add"}
	if from != "" {
		args = append(args, "-B", branch, dir, from)
	} else {
		args = append(args, dir, branch)
	}
	if _, err := runGit(ctx, r.Repo, args...); err != nil {
		return err
	}
	return nil
}

// Task is one task's worktree.
type Task struct {
	ID     string `json:"id"`
	Branch string `json:"branch"`
	Dir    string `json:"dir"`
	// Base is the run branch's commit the task started from.
	Base string `json:"base"`
}

// StartTask gives task taskID its worktree on branch TaskBranch, made from
// the run branch as it is now (so a task that depends on others sees their
// merged changes). An existing worktree of the task is kept as it is, so a
// resumed or retried worker finds its work.
func (r *Run) StartTask(ctx context.Context, taskID string) (Task, error) {
	if err := checkName("task", taskID); err != nil {
		return Task{}, err
	}
	t := Task{ID: taskID, Branch: TaskBranch(r.ID, taskID), Dir: r.TaskDir(taskID)}
	if _, err := revParse(ctx, r.Repo, "refs/heads/"+t.Branch); err == nil {
		if _, err := os.Stat(filepath.Join(t.Dir, ".git")); err == nil {
			mb, err := runGit(ctx, r.Repo, "merge-base", r.Branch, t.Branch)
			if err != nil {
				return Task{}, err
			}
			t.Base = strings.TrimSpace(mb)
			return t, r.ensureWorktree(ctx, t.Dir, t.Branch, "")
		}
	}
	tip, err := revParse(ctx, r.Repo, "refs/heads/"+r.Branch)
	if err != nil {
		return Task{}, err
	}
	t.Base = tip
	if err := os.MkdirAll(filepath.Dir(t.Dir), 0o700); err != nil {
		return Task{}, fmt.Errorf("make the task's worktree folder: %w", err)
	}
	return t, r.ensureWorktree(ctx, t.Dir, t.Branch, tip)
}

// BatonDir is Baton's own folder in a project (the file mailbox of seed
// 001); Commit never commits it.
const BatonDir = ".claude-orchestrator"

// Commit commits everything the worker changed in its worktree that it did
// not commit itself (new files included, ignored files and BatonDir not),
// as Baton. It reports whether there was anything to commit.
func (r *Run) Commit(ctx context.Context, taskID, message string) (bool, error) {
	if err := checkName("task", taskID); err != nil {
		return false, err
	}
	dir := r.TaskDir(taskID)
	if _, err := os.Stat(dir); err != nil {
		return false, fmt.Errorf("commit the changes of task %s: its worktree is gone: %w", taskID, err)
	}
	if _, err := runGit(ctx, dir, "add", "-A", "--", ".", ":(exclude,glob)**/"+BatonDir, ":(exclude,glob)**/"+BatonDir+"/**"); err != nil {
		return false, err
	}
	if _, err := runGit(ctx, dir, "diff", "--cached", "--quiet"); err == nil {
		return false, nil
	}
	if message == "" {
		message = "Baton: changes of task " + taskID
	}
	if _, err := runGit(ctx, dir, "-c", "commit.gpgsign=false", "commit", "--no-verify", "-q", "-m", message); err != nil {
		return false, err
	}
	return true, nil
}

// FileChange is one file a task changed, with its added and removed lines
// (both -1 for a binary file).
type FileChange struct {
	Path    string `json:"path"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// Changes lists the files changed between two commits (git diff --numstat).
func (r *Run) Changes(ctx context.Context, from, to string) ([]FileChange, error) {
	out, err := runGit(ctx, r.Repo, "diff", "--numstat", "-z", "--no-renames", from, to, "--")
	if err != nil {
		return nil, err
	}
	return parseNumstat(out), nil
}

func parseNumstat(out string) []FileChange {
	var fc []FileChange
	for _, f := range nulFields(out) {
		parts := strings.SplitN(strings.TrimLeft(f, "\n"), "\t", 3)
		if len(parts) != 3 {
			continue
		}
		c := FileChange{Path: parts[2], Added: -1, Removed: -1}
		if a, err := strconv.Atoi(parts[0]); err == nil {
			c.Added = a
		}
		if d, err := strconv.Atoi(parts[1]); err == nil {
			c.Removed = d
		}
		fc = append(fc, c)
	}
	return fc
}

// Patch is the unified diff between two commits (git diff).
func (r *Run) Patch(ctx context.Context, from, to string) (string, error) {
	return runGit(ctx, r.Repo, "diff", "--no-color", "--no-ext-diff", from, to, "--")
}

// Merged is a task merged into the run branch.
type Merged struct {
	// Base and Tip are the commits the task's changes lie between; Changes
	// and Patch take them.
	Base string `json:"base"`
	Tip  string `json:"tip"`
	// Commit is the merge commit on the run branch ("" when the task
	// changed nothing).
	Commit  string       `json:"commit,omitempty"`
	Changes []FileChange `json:"changes"`
}

// ConflictError is a merge that stopped on conflicting files. The merge is
// left in progress in the run's worktree to be resolved there (see
// FinishMerge), or given up (AbortMerge).
type ConflictError struct {
	Task  string
	Files []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("merging task %s into the run branch conflicts in %s", e.Task, strings.Join(e.Files, ", "))
}

// ErrMergeInProgress is returned by Merge while an earlier conflict is not
// resolved.
var ErrMergeInProgress = errors.New("a merge conflict in the run's worktree is waiting to be resolved")

// Merge merges the task's branch into the run branch with git merge --no-ff
// in the run's worktree. A conflict returns a *ConflictError and leaves the
// merge in progress.
func (r *Run) Merge(ctx context.Context, taskID, message string) (Merged, error) {
	if err := checkName("task", taskID); err != nil {
		return Merged{}, err
	}
	if r.Merging(ctx) {
		return Merged{}, ErrMergeInProgress
	}
	branch := TaskBranch(r.ID, taskID)
	tip, err := revParse(ctx, r.Repo, "refs/heads/"+branch)
	if err != nil {
		return Merged{}, err
	}
	mb, err := runGit(ctx, r.Repo, "merge-base", r.Branch, branch)
	if err != nil {
		return Merged{}, err
	}
	m := Merged{Base: strings.TrimSpace(mb), Tip: tip}
	if m.Changes, err = r.Changes(ctx, m.Base, m.Tip); err != nil {
		return Merged{}, err
	}
	if m.Base == m.Tip {
		return m, nil // nothing to merge
	}
	if message == "" {
		message = "Baton: merge task " + taskID
	}
	_, err = runGit(ctx, r.RunDir(), "-c", "commit.gpgsign=false", "merge", "--no-ff", "--no-verify", "-q", "-m", message, branch)
	if err != nil {
		files, uerr := r.Unmerged(ctx)
		if uerr == nil && len(files) > 0 {
			return m, &ConflictError{Task: taskID, Files: files}
		}
		if r.Merging(ctx) {
			_ = r.AbortMerge(ctx)
		}
		return Merged{}, err
	}
	if m.Commit, err = revParse(ctx, r.RunDir(), "HEAD"); err != nil {
		return Merged{}, err
	}
	return m, nil
}

// Merging reports whether a merge is in progress in the run's worktree.
func (r *Run) Merging(ctx context.Context) bool {
	_, err := runGit(ctx, r.RunDir(), "rev-parse", "-q", "--verify", "MERGE_HEAD")
	return err == nil
}

// Unmerged lists the files with conflicts in the run's worktree.
func (r *Run) Unmerged(ctx context.Context) ([]string, error) {
	out, err := runGit(ctx, r.RunDir(), "diff", "--name-only", "-z", "--diff-filter=U")
	if err != nil {
		return nil, err
	}
	return nulFields(out), nil
}

// UnresolvedError is a FinishMerge with conflict markers still in files.
type UnresolvedError struct{ Files []string }

func (e *UnresolvedError) Error() string {
	return "the conflict is not resolved yet: conflict markers remain in " + strings.Join(e.Files, ", ")
}

// FinishMerge commits a merge whose conflicts were resolved in the run's
// worktree. It refuses (with *UnresolvedError) while a file of files still
// holds conflict markers. A merge the resolver committed itself is left as
// it is.
func (r *Run) FinishMerge(ctx context.Context, files []string) error {
	if !r.Merging(ctx) {
		return nil
	}
	var left []string
	for _, f := range files {
		if hasMarkers(filepath.Join(r.RunDir(), f)) {
			left = append(left, f)
		}
	}
	if len(left) > 0 {
		return &UnresolvedError{Files: left}
	}
	if _, err := runGit(ctx, r.RunDir(), "add", "-A"); err != nil {
		return err
	}
	if files, err := r.Unmerged(ctx); err != nil {
		return err
	} else if len(files) > 0 {
		return &UnresolvedError{Files: files}
	}
	_, err := runGit(ctx, r.RunDir(), "-c", "commit.gpgsign=false", "commit", "--no-verify", "--no-edit", "-q")
	return err
}

// hasMarkers reports whether a file holds a line that starts a or ends a
// conflict (<<<<<<< or >>>>>>> with a space).
func hasMarkers(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false // deleted: a resolution too
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "<<<<<<< ") || strings.HasPrefix(l, ">>>>>>> ") || l == "<<<<<<<" || l == ">>>>>>>" {
			return true
		}
	}
	return false
}

// AbortMerge gives up a merge in progress in the run's worktree.
func (r *Run) AbortMerge(ctx context.Context) error {
	if !r.Merging(ctx) {
		return nil
	}
	_, err := runGit(ctx, r.RunDir(), "merge", "--abort")
	return err
}

// Head is the run branch's commit.
func (r *Run) Head(ctx context.Context) (string, error) {
	return revParse(ctx, r.Repo, "refs/heads/"+r.Branch)
}

// RemoveTask removes a task's worktree and deletes its branch. Its commits
// stay reachable from the run branch when they were merged.
func (r *Run) RemoveTask(ctx context.Context, taskID string) error {
	if err := checkName("task", taskID); err != nil {
		return err
	}
	dir := r.TaskDir(taskID)
	if err := r.removeWorktree(ctx, dir); err != nil {
		return err
	}
	return r.deleteBranch(ctx, TaskBranch(r.ID, taskID))
}

func (r *Run) removeWorktree(ctx context.Context, dir string) error {
	wts, err := r.worktrees(ctx)
	if err != nil {
		return err
	}
	for _, w := range wts {
		if samePath(w.Path, dir) {
			if _, err := runGit(ctx, r.Repo, "worktree", "remove", "--force", "--force", w.Path); err != nil {
				return err
			}
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	_, err = runGit(ctx, r.Repo, "worktree", "prune")
	return err
}

func (r *Run) deleteBranch(ctx context.Context, branch string) error {
	if _, err := revParse(ctx, r.Repo, "refs/heads/"+branch); err != nil {
		return nil
	}
	_, err := runGit(ctx, r.Repo, "branch", "-D", "-q", branch)
	return err
}

// Cleanup removes every worktree of the run (the run's own too) and the
// tasks' branches, prunes git's worktree records and removes the run's
// folder. The run branch stays: it holds the result until Apply or
// Discard.
func (r *Run) Cleanup(ctx context.Context) error {
	var errs []error
	if r.Merging(ctx) {
		errs = append(errs, r.AbortMerge(ctx))
	}
	wts, err := r.worktrees(ctx)
	if err != nil {
		return err
	}
	for _, w := range wts {
		if inside(w.Path, r.Dir) {
			if _, err := runGit(ctx, r.Repo, "worktree", "remove", "--force", "--force", w.Path); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if _, err := runGit(ctx, r.Repo, "worktree", "prune"); err != nil {
		errs = append(errs, err)
	}
	for _, dir := range []string{r.Dir, r.CopiesDir()} {
		if err := removeAll(dir); err != nil {
			errs = append(errs, err)
		}
	}
	out, err := runGit(ctx, r.Repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/baton/"+r.ID+"-tasks/")
	if err != nil {
		errs = append(errs, err)
	}
	for _, b := range append(lines(out), r.ApplyBranch()) {
		if err := r.deleteBranch(ctx, b); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Discard cleans up and deletes the run branch: the run leaves nothing in
// the repository.
func (r *Run) Discard(ctx context.Context) error {
	if err := r.Cleanup(ctx); err != nil {
		return err
	}
	return r.deleteBranch(ctx, r.Branch)
}

type worktreeEntry struct {
	Path   string
	Branch string
}

// worktrees lists the repository's worktrees (git worktree list).
func (r *Run) worktrees(ctx context.Context) ([]worktreeEntry, error) {
	return List(ctx, r.Repo)
}

// List returns the worktrees git knows of in the repository at repo
// (git worktree list --porcelain), the main one first.
func List(ctx context.Context, repo string) ([]worktreeEntry, error) {
	out, err := runGit(ctx, repo, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	var wts []worktreeEntry
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "worktree "):
			wts = append(wts, worktreeEntry{Path: strings.TrimPrefix(l, "worktree ")})
		case strings.HasPrefix(l, "branch ") && len(wts) > 0:
			wts[len(wts)-1].Branch = strings.TrimPrefix(strings.TrimPrefix(l, "branch "), "refs/heads/")
		}
	}
	return wts, nil
}

func revParse(ctx context.Context, dir, rev string) (string, error) {
	out, err := runGit(ctx, dir, "rev-parse", "--verify", "-q", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("find %s: %w", rev, err)
	}
	return strings.TrimSpace(out), nil
}

// DirtyFiles lists the paths with uncommitted changes (untracked files
// included, ignored files not) in the working tree at dir.
func DirtyFiles(ctx context.Context, dir string) ([]string, error) {
	out, err := runGit(ctx, dir, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return nil, err
	}
	var files []string
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 {
			continue
		}
		files = append(files, f[3:])
		if f[0] == 'R' || f[0] == 'C' {
			// A rename names its source in the next field.
			if i+1 < len(fields) && fields[i+1] != "" {
				files = append(files, fields[i+1])
			}
			i++
		}
	}
	return files, nil
}

func canon(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if ev, err := filepath.EvalSymlinks(p); err == nil {
		return ev
	}
	// The path may not exist (any more): resolve its parent.
	if ev, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(ev, filepath.Base(p))
	}
	return filepath.Clean(p)
}

func samePath(a, b string) bool { return canon(a) == canon(b) }

// inside reports whether path is dir or below it.
func inside(path, dir string) bool {
	p, d := canon(path), canon(dir)
	if p == d {
		return true
	}
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// CheckDir is the folder of the run's check-out: where Baton runs the
// project's checks on a commit of the run (CheckOut).
func (r *Run) CheckDir() string { return filepath.Join(r.Dir, "checks") }

// CheckOut checks commit rev out, detached, in the run's check folder
// (CheckDir), replacing what was there, and returns the folder. Nothing
// the checks write there reaches a branch; RemoveCheckOut removes it.
func (r *Run) CheckOut(ctx context.Context, rev string) (string, error) {
	dir := r.CheckDir()
	if err := r.removeWorktree(ctx, dir); err != nil {
		return "", err
	}
	if _, err := runGit(ctx, r.Repo, "worktree", "add", "--detach", dir, rev); err != nil {
		return "", err
	}
	return dir, nil
}

// RemoveCheckOut removes the run's check-out (CheckOut).
func (r *Run) RemoveCheckOut(ctx context.Context) error {
	return r.removeWorktree(ctx, r.CheckDir())
}

// Ignored reports whether git ignores path (relative to the repository) in
// the user's repository.
func (r *Run) Ignored(ctx context.Context, path string) bool {
	_, err := runGit(ctx, r.Repo, "check-ignore", "-q", "--", path)
	return err == nil
}

// Result lists the files the run's result holds that the run wrote: those
// the run branch added or changed since its base, relative to the
// repository's top. A run branch that is gone holds nothing.
func (r *Run) Result(ctx context.Context) (map[string]bool, error) {
	out := map[string]bool{}
	if _, err := revParse(ctx, r.Repo, "refs/heads/"+r.Branch); err != nil {
		return out, nil
	}
	list, err := runGit(ctx, r.Repo, "diff", "--name-only", "-z", "--no-renames", "--diff-filter=d", r.Base, r.Branch, "--")
	if err != nil {
		return nil, err
	}
	for _, p := range nulFields(list) {
		out[p] = true
	}
	return out, nil
}

// ChangedSince lists the files a worker changed in its worktree folder dir
// since commit base: what it committed and what it left uncommitted,
// removed files included, and the new files git does not ignore. The
// paths are relative to dir (which may be a folder inside the worktree).
func ChangedSince(ctx context.Context, dir, base string) ([]string, error) {
	diff, err := runGit(ctx, dir, "diff", "--name-only", "--relative", "-z", base, "--")
	if err != nil {
		return nil, err
	}
	untracked, err := runGit(ctx, dir, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, p := range append(nulFields(diff), nulFields(untracked)...) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, nil
}
