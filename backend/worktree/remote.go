package worktree

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Remote is one of the repository's remotes.
type Remote struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// ErrUnknownRemote is a push to a remote the repository does not have.
var ErrUnknownRemote = errors.New("no such remote")

// Remotes lists the remotes of the repository at repo with their push URLs,
// in git's order.
func Remotes(ctx context.Context, repo string) ([]Remote, error) {
	out, err := runGit(ctx, repo, "remote")
	if err != nil {
		return nil, err
	}
	var rs []Remote
	for _, name := range lines(out) {
		url, err := runGit(ctx, repo, "remote", "get-url", "--push", name)
		if err != nil {
			return nil, err
		}
		rs = append(rs, Remote{Name: name, URL: strings.TrimSpace(url)})
	}
	return rs, nil
}

// PushCommand is the git command that pushes the run branch to remote by
// hand.
func (r *Run) PushCommand(remote string) string {
	return fmt.Sprintf("git -C %s push %s %s", shellQuote(r.Repo), shellQuote(remote), r.Branch)
}

// Push pushes the run branch to remote (one of Remotes) under its own
// name, with the user's own git setup: their credential helpers, SSH keys
// and configuration; git never prompts on a terminal here. It returns what
// git said.
func (r *Run) Push(ctx context.Context, remote string) (string, error) {
	rs, err := Remotes(ctx, r.Repo)
	if err != nil {
		return "", err
	}
	if !slices.ContainsFunc(rs, func(x Remote) bool { return x.Name == remote }) {
		return "", fmt.Errorf("the repository %s has no remote %q: %w", r.Repo, remote, ErrUnknownRemote)
	}
	ref := "refs/heads/" + r.Branch
	if _, err := revParse(ctx, r.Repo, ref); err != nil {
		return "", fmt.Errorf("the branch %s is gone: %w", r.Branch, err)
	}
	var e *Error
	out, err := runGitCombined(ctx, r.Repo, "push", "--porcelain", remote, ref+":"+ref)
	if errors.As(err, &e) {
		return out, fmt.Errorf("push %s to %s: %s", r.Branch, remote, e.Msg)
	}
	return out, err
}

// runGitCombined is runGit whose output holds what git wrote on both
// streams (push reports on stderr).
func runGitCombined(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := runGit(ctx, dir, args...)
	var e *Error
	if errors.As(err, &e) {
		return strings.TrimSpace(out + "\n" + e.Msg), err
	}
	return strings.TrimSpace(out), err
}

// CurrentBranch is the branch checked out in the repository at repo (""
// when HEAD is detached).
func CurrentBranch(ctx context.Context, repo string) string {
	out, err := runGit(ctx, repo, "symbolic-ref", "--short", "-q", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// HasRemoteBranch reports whether the repository at repo knows branch on
// remote (a remote-tracking ref refs/remotes/<remote>/<branch>).
func HasRemoteBranch(ctx context.Context, repo, remote, branch string) bool {
	_, err := revParse(ctx, repo, "refs/remotes/"+remote+"/"+branch)
	return err == nil
}
