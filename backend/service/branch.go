package service

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/pullrequest"
	"github.com/baton-app/baton/backend/report"
	"github.com/baton-app/baton/backend/view"
	"github.com/baton-app/baton/backend/worktree"
)

// The end of a worktree run, beyond Apply and Discard (runs.go): some of
// its tasks applied, its branch pushed to a remote and a pull request
// opened, its diff, and a changed file to open in the user's editor.

// ApplyTasks applies only the changes of tasks to the user's current
// branch (all of the run's when tasks is empty). A task that depends on a
// task with changes left out is refused, naming both.
func (r *Runs) ApplyTasks(ctx context.Context, runID string, tasks []string) (view.Applied, error) {
	a, err := r.engine.ApplyTasks(ctx, runID, tasks)
	return view.AppliedOf(a), err
}

// Remotes are the remotes a worktree run's branch can be pushed to.
func (r *Runs) Remotes(ctx context.Context, runID string) (view.Remotes, error) {
	rs, err := r.engine.Remotes(ctx, runID)
	if err != nil {
		return view.Remotes{}, err
	}
	snap, err := engine.LoadSnapshot(ctx, r.store, runID)
	if err != nil {
		return view.Remotes{}, err
	}
	out := view.Remotes{Remotes: view.RemotesOf(rs)}
	if out.Remotes == nil {
		out.Remotes = []view.Remote{}
	}
	out.Default = defaultRemote(rs, snap.Worktree)
	if out.Default != "" && snap.Worktree != nil {
		out.PushCommand = (&worktree.Run{Repo: snap.Worktree.Repo, Branch: snap.Worktree.Branch}).PushCommand(out.Default)
	}
	return out, nil
}

// defaultRemote is the remote to offer first: the one pushed to last, else
// origin, else the first ("" none).
func defaultRemote(rs []worktree.Remote, wt *engine.Worktree) string {
	has := func(name string) bool {
		return slices.ContainsFunc(rs, func(x worktree.Remote) bool { return x.Name == name })
	}
	if wt != nil && len(wt.Pushes) > 0 && has(wt.Pushes[len(wt.Pushes)-1].Remote) {
		return wt.Pushes[len(wt.Pushes)-1].Remote
	}
	if has("origin") {
		return "origin"
	}
	if len(rs) > 0 {
		return rs[0].Name
	}
	return ""
}

// Push pushes a finished run's branch to remote with the user's own git
// setup.
func (r *Runs) Push(ctx context.Context, runID, remote string) (view.Pushed, error) {
	out, err := r.engine.Push(ctx, runID, remote)
	return view.Pushed{Remote: remote, Output: out}, err
}

// PullRequest pushes a finished run's branch to remote and opens a pull
// request for it with gh, its title and body made from the final report.
// Without gh, or with gh not logged in or failing, nothing is opened and
// the result has the exact command and the text it would send (the text
// also written to a file the command reads).
func (r *Runs) PullRequest(ctx context.Context, runID, remote string) (view.PullRequestResult, error) {
	snap, err := engine.LoadReport(ctx, r.store, runID)
	if err != nil {
		return view.PullRequestResult{}, err
	}
	wt := snap.Worktree
	if wt == nil || wt.Repo == "" {
		return view.PullRequestResult{}, fmt.Errorf("run %s has no branch of its own: %w", runID, ErrBadRequest)
	}
	if snap.FinalReport == nil {
		return view.PullRequestResult{}, fmt.Errorf("run %s is %s; a pull request comes once it has ended: %w", runID, snap.Run.Status, ErrIllegalTransition)
	}
	if _, err := r.engine.Push(ctx, runID, remote); err != nil {
		return view.PullRequestResult{}, err
	}
	base := worktree.CurrentBranch(ctx, wt.Repo)
	if base == wt.Branch || !worktree.HasRemoteBranch(ctx, wt.Repo, remote, base) {
		base = "" // gh takes the repository's default branch
	}
	title, body := report.PullRequest(snap.Run, *snap.FinalReport)
	req := pullrequest.Request{Repo: wt.Repo, Head: wt.Branch, Base: base, Title: title, Body: body,
		BodyFile: filepath.Join(filepath.Dir(wt.RunDir), "pull-request.md")}
	res := view.PullRequestResult{Command: pullrequest.Command(req), Title: title, Body: body}
	url, err := pullrequest.Open(ctx, req)
	if err == nil {
		res.Opened, res.URL = true, url
		return res, r.engine.NotePullRequest(ctx, runID, remote, url)
	}
	var nl *pullrequest.NotLoggedInError
	switch {
	case errors.Is(err, pullrequest.ErrNoGH), errors.As(err, &nl):
		res.Reason = err.Error()
	default:
		res.Reason = "gh could not open it: " + err.Error()
	}
	if werr := pullrequest.WriteBody(req); werr != nil {
		return res, fmt.Errorf("write the pull request's text to %s: %w", req.BodyFile, werr)
	}
	res.BodyFile = req.BodyFile
	return res, nil
}

// Diff lists the files a worktree run changed, each with both versions:
// the changes of task taskID, or with taskID "" those of the whole branch.
func (r *Runs) Diff(ctx context.Context, runID, taskID string) ([]view.FileDiff, error) {
	ds, err := r.engine.Diff(ctx, runID, taskID)
	if err != nil {
		return nil, err
	}
	out := view.FileDiffsOf(ds)
	if out == nil {
		out = []view.FileDiff{}
	}
	return out, nil
}

// ChangedFile is the path at which a file a worktree run changed can be
// opened (in the run's worktree, in the user's folder once applied, or a
// read-only copy of the branch's version).
func (r *Runs) ChangedFile(ctx context.Context, runID, path string) (string, error) {
	return r.engine.ChangedFile(ctx, runID, path)
}
