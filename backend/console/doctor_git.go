package console

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/baton-app/baton/backend/worktree"
)

// printGitCheck adds the git line to the doctor's report: worktree
// isolation needs git worktree.MinVersion or newer. Shared isolation works
// without git, so the line does not fail the doctor.
func printGitCheck(w io.Writer) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v, err := worktree.CheckVersion(ctx)
	if err != nil {
		fmt.Fprintf(w, "warn %-9s %v\n", "git", err)
		fmt.Fprintf(w, "     fix: install git %s or newer for worktree isolation (templates with \"isolation\": \"shared\" run without it)\n", worktree.MinVersion)
		return
	}
	fmt.Fprintf(w, "ok   %-9s git %s (worktree isolation needs %s or newer)\n", "git", v, worktree.MinVersion)
}
