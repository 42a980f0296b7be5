package isolation

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/baton-app/baton/backend/worktree"
)

// dependencyDirs are the folders a project's checks need that git does not
// hold (installed packages); a check-out links them from the user's folder.
var dependencyDirs = []string{"node_modules", ".venv", "venv"}

// CheckTree checks rev of the run's repository out, detached, for the
// project's checks (the run's base for the baseline, the run branch for
// the result), and returns the folder in it that stands for the run's
// folder cwd, and the function that removes the check-out. The packages
// the user installed in cwd that git does not hold (node_modules, .venv,
// venv) are linked into it, so a check finds them as it would in the
// user's folder. It reads run and changes nothing else of it: it may run
// beside the run's goroutine.
func CheckTree(ctx context.Context, run worktree.Run, cwd, rev string) (string, func(), error) {
	wr := run
	dir, err := wr.CheckOut(ctx, rev)
	if err != nil {
		return "", func() {}, err
	}
	done := func() {
		if err := wr.RemoveCheckOut(context.WithoutCancel(ctx)); err != nil && !errors.Is(err, context.Canceled) {
			_ = os.RemoveAll(dir)
		}
	}
	folder := subfolder(wr.Repo, cwd, dir)
	for _, name := range dependencyDirs {
		from := filepath.Join(cwd, name)
		to := filepath.Join(folder, name)
		if st, err := os.Stat(from); err != nil || !st.IsDir() {
			continue
		}
		if _, err := os.Lstat(to); err == nil {
			continue
		}
		if err := os.MkdirAll(folder, 0o755); err != nil {
			continue
		}
		_ = os.Symlink(from, to)
	}
	return folder, done, nil
}

// subfolder is the folder inside worktree dir that stands for cwd, a
// folder of the repository repo (the run may work in a subfolder of it).
func subfolder(repo, cwd, dir string) string {
	if ev, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = ev
	}
	rel, err := filepath.Rel(repo, cwd)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return dir
	}
	return filepath.Join(dir, rel)
}
