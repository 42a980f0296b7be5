// Package worktree isolates the workers of a run in git worktrees: a run
// branch baton/<run> made from the user's HEAD, one worktree and branch per
// task under Baton's data directory (never inside the user's repository),
// the tasks' changes committed and merged back into the run branch with
// `git merge --no-ff` in a worktree the run owns, and at the end Apply
// (merge the run branch into the user's current branch) or Discard.
//
// The git CLI does all the work; this package only runs it and reads what
// it prints. Nothing here touches the user's working tree except Apply, and
// Apply refuses when the user's uncommitted changes touch the same files.
package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// MinVersion is the oldest git this package works with (worktree remove,
// merge --no-ff in a worktree, status --porcelain=v1 -z).
const MinVersion = "2.25"

// Identity is the author and committer of Baton's own commits.
const (
	AuthorName  = "Baton"
	AuthorEmail = "baton@localhost"
)

// ErrGitMissing is returned when no git executable is found.
var ErrGitMissing = errors.New("git is not installed or not on PATH: install git " + MinVersion + " or newer, or choose shared isolation")

// gitBin is the git executable; tests never change it.
var gitBin = "git"

// runGit runs git in dir with args and returns its standard output. A
// failure carries git's own words.
func runGit(ctx context.Context, dir string, args ...string) (string, error) {
	return runGitEnv(ctx, dir, nil, args...)
}

// Git runs git in dir with args, in the environment of this package's own
// git calls plus extra (KEY=VALUE), and returns its standard output. A
// failure is an *Error with git's own words, or ErrGitMissing. Packages
// that move a run's commits elsewhere (machines) run git through it.
func Git(ctx context.Context, dir string, extra []string, args ...string) (string, error) {
	return runGitEnv(ctx, dir, extra, args...)
}

func runGitEnv(ctx context.Context, dir string, extra []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, gitBin, args...)
	cmd.Dir = dir
	cmd.Env = gitEnv(extra)
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	err := cmd.Run()
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", ErrGitMissing
		}
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = strings.TrimSpace(out.String())
		}
		return out.String(), &Error{Args: args, Msg: msg, Err: err}
	}
	return out.String(), nil
}

// gitEnv is the environment of every git call: the process's own without
// variables that would point git at another repository, in the C locale so
// its output can be read, with Baton as author and committer.
func gitEnv(extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
			"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
			"LC_ALL", "LANG", "LANGUAGE", "GIT_EDITOR", "GIT_MERGE_AUTOEDIT":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=true", "GIT_MERGE_AUTOEDIT=no",
		"GIT_AUTHOR_NAME="+AuthorName, "GIT_AUTHOR_EMAIL="+AuthorEmail,
		"GIT_COMMITTER_NAME="+AuthorName, "GIT_COMMITTER_EMAIL="+AuthorEmail)
	return append(env, extra...)
}

// Error is a git command that failed.
type Error struct {
	Args []string
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), e.Msg)
}

func (e *Error) Unwrap() error { return e.Err }

var versionRe = regexp.MustCompile(`git version (\d+)\.(\d+)(?:\.(\d+))?`)

// Version returns the version of the git on PATH, such as "2.39.5".
func Version(ctx context.Context) (string, error) {
	out, err := runGit(ctx, "", "version")
	if err != nil {
		return "", err
	}
	m := versionRe.FindStringSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("read the git version from %q", strings.TrimSpace(out))
	}
	v := m[1] + "." + m[2]
	if m[3] != "" {
		v += "." + m[3]
	}
	return v, nil
}

// CheckVersion returns the git version and an error when git is missing or
// older than MinVersion.
func CheckVersion(ctx context.Context) (string, error) {
	v, err := Version(ctx)
	if err != nil {
		return "", err
	}
	if !AtLeast(v, MinVersion) {
		return v, fmt.Errorf("git %s is too old: Baton needs git %s or newer for worktree isolation", v, MinVersion)
	}
	return v, nil
}

// AtLeast reports whether version v (dotted numbers) is min or newer.
func AtLeast(v, min string) bool {
	a, b := strings.Split(v, "."), strings.Split(min, ".")
	for i := 0; i < len(b); i++ {
		x, y := 0, 0
		if i < len(a) {
			x, _ = strconv.Atoi(a[i])
		}
		y, _ = strconv.Atoi(b[i])
		if x != y {
			return x > y
		}
	}
	return true
}

// NotRepoError says that a folder is not inside a git repository (or has no
// commit yet), and what the user can do.
type NotRepoError struct {
	Dir      string
	NoCommit bool
}

func (e *NotRepoError) Error() string {
	if e.NoCommit {
		return fmt.Sprintf("%s is a git repository without any commit, so workers cannot branch from it: make a first commit there (git add -A && git commit -m \"first commit\"), or run this template with shared isolation", e.Dir)
	}
	return fmt.Sprintf("%s is not a git repository, so workers cannot get their own worktrees: run git init && git add -A && git commit -m \"first commit\" there, or run this template with shared isolation", e.Dir)
}

// ErrNotRepo matches a NotRepoError with errors.Is.
var ErrNotRepo = errors.New("not a git repository")

func (e *NotRepoError) Is(target error) bool { return target == ErrNotRepo }

// RepoRoot returns the top folder of the git repository dir is in, or a
// NotRepoError.
func RepoRoot(ctx context.Context, dir string) (string, error) {
	out, err := runGit(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		if errors.Is(err, ErrGitMissing) {
			return "", err
		}
		return "", &NotRepoError{Dir: dir}
	}
	root := strings.TrimSpace(out)
	if _, err := runGit(ctx, root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err != nil {
		return "", &NotRepoError{Dir: dir, NoCommit: true}
	}
	return filepath.Clean(root), nil
}

// DefaultRoot is where Baton keeps its worktrees:
// $BATON_CONFIG_DIR/worktrees when that variable is set, else
// os.UserConfigDir()/baton/worktrees.
func DefaultRoot() (string, error) {
	if dir := os.Getenv("BATON_CONFIG_DIR"); dir != "" {
		return filepath.Join(dir, "worktrees"), nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the configuration directory: %w", err)
	}
	return filepath.Join(dir, "baton", "worktrees"), nil
}

// lines splits git output into its non-empty lines.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimRight(l, "\r"); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// nulFields splits NUL-terminated git output.
func nulFields(s string) []string {
	var out []string
	for _, f := range strings.Split(s, "\x00") {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}
