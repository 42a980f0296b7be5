package worktree

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Applied says what Apply did.
type Applied struct {
	// Into is the user's branch the run was merged into ("HEAD" when it
	// was detached).
	Into string `json:"into"`
	// FastForward is true when the user's branch only moved forward.
	FastForward bool `json:"fastForward"`
	// Nothing is true when the user's branch already held the run's
	// changes.
	Nothing bool   `json:"nothing,omitempty"`
	Commit  string `json:"commit"`
}

// DirtyOverlapError refuses an Apply that would mix the run's changes with
// the user's uncommitted changes in the same files.
type DirtyOverlapError struct{ Files []string }

func (e *DirtyOverlapError) Error() string {
	return fmt.Sprintf("Apply refused: you have uncommitted changes in %s, which the run also changed; commit or stash them, then apply again (nothing was changed)", strings.Join(e.Files, ", "))
}

// ApplyConflictError is an Apply whose merge conflicted with commits on the
// user's branch; the merge was undone.
type ApplyConflictError struct {
	Branch string
	Files  []string
}

func (e *ApplyConflictError) Error() string {
	return fmt.Sprintf("Apply stopped: merging %s into your branch conflicts in %s; nothing was changed. Merge it yourself with git merge %s", e.Branch, strings.Join(e.Files, ", "), e.Branch)
}

// MergeCommand is the command that merges the run branch by hand.
func (r *Run) MergeCommand() string {
	return fmt.Sprintf("git -C %s merge %s", shellQuote(r.Repo), r.Branch)
}

// DiscardCommand is the command that drops the run branch by hand.
func (r *Run) DiscardCommand() string {
	return fmt.Sprintf("git -C %s branch -D %s", shellQuote(r.Repo), r.Branch)
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(c rune) bool {
		return !(c == '/' || c == '.' || c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ChangedFiles lists the files the run branch changed since it left the
// user's current HEAD.
func (r *Run) ChangedFiles(ctx context.Context) ([]string, error) {
	return r.changedSinceHead(ctx, r.Branch)
}

// changedSinceHead lists the files branch changed since it left the
// user's current HEAD.
func (r *Run) changedSinceHead(ctx context.Context, branch string) ([]string, error) {
	mb, err := runGit(ctx, r.Repo, "merge-base", "HEAD", branch)
	if err != nil {
		return nil, err
	}
	out, err := runGit(ctx, r.Repo, "diff", "--name-only", "-z", "--no-renames", strings.TrimSpace(mb), branch, "--")
	if err != nil {
		return nil, err
	}
	return nulFields(out), nil
}

// Apply merges the run branch into the user's current branch: a fast
// forward where possible, else a merge commit. It refuses, changing
// nothing, when the user's uncommitted changes touch files the run changed
// (*DirtyOverlapError), and undoes a merge that conflicts
// (*ApplyConflictError). The run branch and worktrees are left as they are:
// call Discard (or Cleanup) after.
func (r *Run) Apply(ctx context.Context) (Applied, error) {
	return r.mergeInto(ctx, r.Branch, fmt.Sprintf("Merge Baton run %s", r.ID))
}

// mergeInto merges branch into the user's current branch as Apply says,
// with message for a merge commit.
func (r *Run) mergeInto(ctx context.Context, branch, message string) (Applied, error) {
	into := "HEAD"
	if out, err := runGit(ctx, r.Repo, "symbolic-ref", "--short", "-q", "HEAD"); err == nil {
		into = strings.TrimSpace(out)
	}
	a := Applied{Into: into}
	if into == r.Branch || into == r.ApplyBranch() || strings.HasPrefix(into, "baton/"+r.ID+"-tasks/") {
		return a, fmt.Errorf("Apply refused: your repository has the run's own branch %s checked out; check out the branch to merge into first", into)
	}
	tip, err := revParse(ctx, r.Repo, "refs/heads/"+branch)
	if err != nil {
		return a, err
	}
	if _, err := runGit(ctx, r.Repo, "merge-base", "--is-ancestor", tip, "HEAD"); err == nil {
		a.Nothing = true
		a.Commit, err = revParse(ctx, r.Repo, "HEAD")
		return a, err
	}
	changed, err := r.changedSinceHead(ctx, branch)
	if err != nil {
		return a, err
	}
	dirty, err := DirtyFiles(ctx, r.Repo)
	if err != nil {
		return a, err
	}
	if both := overlap(changed, dirty); len(both) > 0 {
		return a, &DirtyOverlapError{Files: both}
	}
	if _, err := runGit(ctx, r.Repo, "merge-base", "--is-ancestor", "HEAD", tip); err == nil {
		if _, err := runGit(ctx, r.Repo, "merge", "--ff-only", "-q", branch); err != nil {
			return a, err
		}
		a.FastForward = true
	} else {
		if _, err := runGit(ctx, r.Repo, "-c", "commit.gpgsign=false", "merge", "--no-ff", "--no-verify", "-q", "-m", message, branch); err != nil {
			out, _ := runGit(ctx, r.Repo, "diff", "--name-only", "-z", "--diff-filter=U")
			files := nulFields(out)
			if _, merr := runGit(ctx, r.Repo, "rev-parse", "-q", "--verify", "MERGE_HEAD"); merr == nil {
				if _, aerr := runGit(ctx, r.Repo, "merge", "--abort"); aerr != nil {
					return a, fmt.Errorf("%v; and undoing the merge failed: %w", err, aerr)
				}
			}
			if len(files) > 0 {
				return a, &ApplyConflictError{Branch: r.Branch, Files: files}
			}
			return a, err
		}
	}
	a.Commit, err = revParse(ctx, r.Repo, "HEAD")
	return a, err
}

func overlap(a, b []string) []string {
	in := map[string]bool{}
	for _, x := range a {
		in[x] = true
	}
	var both []string
	seen := map[string]bool{}
	for _, x := range b {
		if in[x] && !seen[x] {
			seen[x] = true
			both = append(both, x)
		}
	}
	sort.Strings(both)
	return both
}
