package machines

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/baton-app/baton/backend/worktree"
)

// Repo is a local repository's copy on a machine: a bare repository in
// the workspace (repos/<key>.git) that receives the commits tasks start
// from, and one worktree per task (worktrees/<key>/<run>/<task>) on the
// same branch names as local worktrees (worktree.TaskBranch), whose
// commits are fetched back into the local repository to be merged there.
// git runs on both ends over the machine's shared connection; nothing is
// written on the machine outside the workspace.
type Repo struct {
	client *Client
	// Local is the top folder of the local repository.
	Local string
	// Key names the repository in the workspace: the local folder's name
	// and a hash of its path.
	Key string
	// Bare is the bare repository on the machine, Worktrees the folder of
	// its task worktrees there.
	Bare      string
	Worktrees string
}

var keyUnsafe = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// repoKey names the repository at root in a workspace.
func repoKey(root string) string {
	sum := sha256.Sum256([]byte(root))
	base := strings.Trim(keyUnsafe.ReplaceAllString(filepath.Base(root), "-"), "-")
	if len(base) > 40 {
		base = base[:40]
	}
	if base == "" {
		base = "repo"
	}
	return base + "-" + hex.EncodeToString(sum[:6])
}

// gitPrelude starts every git script on the machine: git's messages in
// the C locale, no prompts, no editor, Baton as the author of its commits.
var gitPrelude = fmt.Sprintf(`export LC_ALL=C GIT_TERMINAL_PROMPT=0 GIT_EDITOR=true GIT_MERGE_AUTOEDIT=no
export GIT_AUTHOR_NAME=%[1]s GIT_COMMITTER_NAME=%[1]s GIT_AUTHOR_EMAIL=%[2]s GIT_COMMITTER_EMAIL=%[2]s
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_COMMON_DIR
`, shellQuote(worktree.AuthorName), shellQuote(worktree.AuthorEmail))

// OpenRepo makes (or finds) the bare copy on the client's machine of the
// repository that local is in.
func OpenRepo(ctx context.Context, c *Client, local string) (*Repo, error) {
	root, err := worktree.RepoRoot(ctx, local)
	if err != nil {
		return nil, err
	}
	ws, err := c.Workspace(ctx)
	if err != nil {
		return nil, err
	}
	key := repoKey(root)
	r := &Repo{client: c, Local: root, Key: key, Bare: path.Join(ws, "repos", key+".git"), Worktrees: path.Join(ws, "worktrees", key)}
	if _, err := c.Run(ctx, "make the repository copy", gitPrelude+`b=$1
[ -d "$b" ] && exit 0
mkdir -p -- "${b%/*}" && git init -q --bare "$b" >&2 || exit 3`, r.Bare); err != nil {
		return nil, err
	}
	return r, nil
}

// TaskDir is the worktree of a task on the machine.
func (r *Repo) TaskDir(runID, taskID string) string { return path.Join(r.Worktrees, runID, taskID) }

// git runs git in the local repository with the machine's connection.
func (r *Repo) git(ctx context.Context, args ...string) (string, error) {
	if err := r.client.Connect(ctx); err != nil {
		return "", err
	}
	out, err := worktree.Git(ctx, r.Local, []string{"GIT_SSH_COMMAND=" + r.client.GitSSHCommand()}, args...)
	var ge *worktree.Error
	if errors.As(err, &ge) && strings.Contains(ge.Msg, "Could not read from remote repository") {
		// ssh failed under git: say why as for any ssh command.
		return out, r.client.classify(ctx, strings.ReplaceAll(ge.Msg, "fatal: Could not read from remote repository.", ""))
	}
	return out, err
}

// Push sends commit (anything git rev-parse reads in the local repository)
// to the branch of the copy on the machine, replacing what it held.
func (r *Repo) Push(ctx context.Context, commit, branch string) (string, error) {
	sha, err := worktree.Git(ctx, r.Local, nil, "rev-parse", "--verify", "--quiet", commit+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("push %s to %s: no such commit here: %w", commit, r.client.target.Name, err)
	}
	sha = strings.TrimSpace(sha)
	if _, err := r.git(ctx, "push", "--quiet", "--no-verify", r.client.dest.GitURL(r.Bare), "+"+sha+":refs/heads/"+branch); err != nil {
		return "", fmt.Errorf("push %s to %s: %w", short(sha), r.client.target.Name, err)
	}
	return sha, nil
}

// StartTask gives task taskID of run runID its worktree on the machine,
// on branch worktree.TaskBranch made from commit from, which is pushed
// there first as the run branch (worktree.RunBranch). A worktree the task
// has there already is kept as it is, so a resumed or retried worker
// finds its work. Task.Dir is the folder on the machine.
func (r *Repo) StartTask(ctx context.Context, runID, taskID, from string) (worktree.Task, error) {
	if err := worktree.CheckName("run", runID); err != nil {
		return worktree.Task{}, err
	}
	if err := worktree.CheckName("task", taskID); err != nil {
		return worktree.Task{}, err
	}
	sha, err := r.Push(ctx, from, worktree.RunBranch(runID))
	if err != nil {
		return worktree.Task{}, err
	}
	t := worktree.Task{ID: taskID, Branch: worktree.TaskBranch(runID, taskID), Dir: r.TaskDir(runID, taskID)}
	out, err := r.client.Run(ctx, "make the worktree of task "+taskID, gitPrelude+`b=$1 d=$2 tb=$3 rb=$4 from=$5
cd -- "$b" || exit 3
if git rev-parse -q --verify "refs/heads/$tb" >/dev/null && [ -e "$d/.git" ]; then
  git merge-base "refs/heads/$rb" "refs/heads/$tb" || exit 3
  exit 0
fi
git worktree prune >&2 || exit 3
rm -rf -- "$d"
mkdir -p -- "${d%/*}" || exit 3
git worktree add -q -B "$tb" "$d" "$from" >&2 || exit 3
printf '%s\n' "$from"`, r.Bare, t.Dir, t.Branch, worktree.RunBranch(runID), sha)
	if err != nil {
		return worktree.Task{}, err
	}
	t.Base = strings.TrimSpace(out)
	return t, nil
}

// Commit commits on the machine everything the worker changed in its
// worktree that it did not commit itself (as worktree.Run.Commit does
// locally: new files included, ignored files and worktree.BatonDir not).
// It reports whether there was anything to commit.
func (r *Repo) Commit(ctx context.Context, runID, taskID, message string) (bool, error) {
	if err := worktree.CheckName("run", runID); err != nil {
		return false, err
	}
	if err := worktree.CheckName("task", taskID); err != nil {
		return false, err
	}
	if message == "" {
		message = "Baton: changes of task " + taskID
	}
	out, err := r.client.Run(ctx, "commit the changes of task "+taskID, gitPrelude+`d=$1 msg=$2 bd=$3
cd -- "$d" || exit 3
git add -A -- . ":(exclude,glob)**/$bd" ":(exclude,glob)**/$bd/**" >&2 || exit 3
if git diff --cached --quiet; then echo nothing; exit 0; fi
git -c commit.gpgsign=false commit --no-verify -q -m "$msg" >&2 || exit 3
echo committed`, r.TaskDir(runID, taskID), message, worktree.BatonDir)
	if err != nil {
		return false, err
	}
	return strings.TrimSpace(out) == "committed", nil
}

// Fetch brings the task's branch from the machine into the local
// repository (refs/heads/<worktree.TaskBranch>, replacing what it held),
// where worktree.Run.Merge merges it, and returns its tip.
func (r *Repo) Fetch(ctx context.Context, runID, taskID string) (string, error) {
	if err := worktree.CheckName("run", runID); err != nil {
		return "", err
	}
	if err := worktree.CheckName("task", taskID); err != nil {
		return "", err
	}
	ref := "refs/heads/" + worktree.TaskBranch(runID, taskID)
	if _, err := r.git(ctx, "fetch", "--quiet", "--no-tags", r.client.dest.GitURL(r.Bare), "+"+ref+":"+ref); err != nil {
		return "", fmt.Errorf("fetch task %s from %s: %w", taskID, r.client.target.Name, err)
	}
	tip, err := worktree.Git(ctx, r.Local, nil, "rev-parse", "--verify", ref)
	return strings.TrimSpace(tip), err
}

// RemoveTask removes the task's worktree and branch on the machine.
func (r *Repo) RemoveTask(ctx context.Context, runID, taskID string) error {
	if err := worktree.CheckName("run", runID); err != nil {
		return err
	}
	if err := worktree.CheckName("task", taskID); err != nil {
		return err
	}
	_, err := r.client.Run(ctx, "remove the worktree of task "+taskID, gitPrelude+`b=$1 d=$2 tb=$3
cd -- "$b" || exit 3
[ -e "$d" ] && { git worktree remove --force "$d" >&2 || rm -rf -- "$d"; }
git worktree prune >&2
git rev-parse -q --verify "refs/heads/$tb" >/dev/null && { git branch -D -q "$tb" >&2 || exit 3; }
exit 0`, r.Bare, r.TaskDir(runID, taskID), worktree.TaskBranch(runID, taskID))
	return err
}

// Cleanup removes everything of the run on the machine: its task
// worktrees, its branches and its folder.
func (r *Repo) Cleanup(ctx context.Context, runID string) error {
	if err := worktree.CheckName("run", runID); err != nil {
		return err
	}
	_, err := r.client.Run(ctx, "clean up run "+runID, gitPrelude+`b=$1 d=$2 rb=$3
cd -- "$b" || exit 3
rm -rf -- "$d"
git worktree prune >&2 || exit 3
for ref in $(git for-each-ref --format='%(refname:short)' "refs/heads/$rb" "refs/heads/$rb-tasks/"); do
  git branch -D -q "$ref" >&2 || exit 3
done
exit 0`, r.Bare, path.Join(r.Worktrees, runID), worktree.RunBranch(runID))
	return err
}

func short(sha string) string { return sha[:min(len(sha), 12)] }
