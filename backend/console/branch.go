package console

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/view"
)

// The end of a worktree run in the terminal: "baton apply", "baton
// discard" and "baton push", each with the git command that does the same
// by hand.

const (
	applyUsage   = "baton apply RUN_ID [--task ID]..."
	discardUsage = "baton discard RUN_ID [--yes]"
	pushUsage    = "baton push RUN_ID [--remote NAME] [--pull-request]"
)

const applyDetails = `Merges the branch of a finished worktree run (completed, completed with
issues, failed or cancelled: the tasks that were merged) into your current
branch, a fast forward where possible. With --task, only those tasks'
changes are applied: their merges are replayed, in the order they were
made, on a branch from the commit the run started from, then merged into
your branch; a task whose dependency you leave out is refused, naming it. The
run branch keeps the other tasks' changes until every one is applied or you
discard it. Apply changes nothing when your uncommitted changes touch the
same files. The git command that does the same by hand is printed too.`

const discardDetails = `Says what it deletes: the run branch with the changes of the tasks not
applied yet (how many tasks, how many files) and the run's worktrees; your
branch and your uncommitted changes stay, and so does a copy already
pushed. It asks first unless --yes, then deletes them and prints the git
command that does the same by hand.`

const pushDetails = `Pushes the branch of a finished worktree run to a remote of its repository
(--remote, default origin or the remote pushed to last) with your own git
setup: your credential helpers, SSH keys and configuration. With
--pull-request it then opens a pull request whose title and text come from
the run's final report, with the GitHub CLI (gh) when it is installed and
logged in; otherwise it prints the exact gh command and writes the text to
a file that command reads.`

// applyFlagSet defines the flags of "baton apply".
func applyFlagSet() (*flag.FlagSet, *listFlag) {
	fs := noFlags("apply")
	tasks := &listFlag{}
	fs.Var(tasks, "task", "apply only this task's changes (repeatable)")
	return fs, tasks
}

// discardFlagSet defines the flags of "baton discard".
func discardFlagSet() (*flag.FlagSet, *bool) {
	fs := noFlags("discard")
	return fs, fs.Bool("yes", false, "discard without asking")
}

// pushFlagSet defines the flags of "baton push".
func pushFlagSet() (*flag.FlagSet, *string, *bool) {
	fs := noFlags("push")
	remote := fs.String("remote", "", "the remote to push to (default: the one pushed to last, else origin)")
	pr := fs.Bool("pull-request", false, "open a pull request for the branch after the push")
	return fs, remote, pr
}

// listFlag is a repeatable flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

// branchRun opens the services and reads the worktree state of finished
// run id for command name; ok is false when it printed why not (code).
func branchRun(name, id string, stderr io.Writer) (svc *service.Services, wt *view.Worktree, code int) {
	svc, err := service.Open(service.Options{Logger: quietLogger(stderr)})
	if err != nil {
		fmt.Fprintf(stderr, "baton %s: %v\n", name, err)
		return nil, nil, ExitError
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	snap, err := svc.Runs.Snapshot(ctx, id)
	switch {
	case errors.Is(err, service.ErrUnknownRun):
		fmt.Fprintf(stderr, "baton %s: there is no run %q; \"baton history\" lists the runs.\n", name, id)
	case err != nil:
		fmt.Fprintf(stderr, "baton %s: %v\n", name, err)
	case snap.Worktree == nil || snap.Worktree.Repo == "":
		fmt.Fprintf(stderr, "baton %s: run %s has no branch of its own: its workers shared the folder, so its changes are there already.\n", name, id)
	case !view.Finished(snap.Run.Status):
		fmt.Fprintf(stderr, "baton %s: run %s is %s; its branch can be applied, discarded or pushed once it has ended.\n", name, id, statusLabel(snap.Run.Status))
	case snap.Worktree.Outcome != "":
		fmt.Fprintf(stderr, "baton %s: the branch %s of run %s was %s already.\n", name, snap.Worktree.Branch, id, outcomeWord(snap.Worktree.Outcome))
	default:
		return svc, snap.Worktree, ExitOK
	}
	closeServices(svc, stderr)
	return nil, nil, ExitError
}

func outcomeWord(outcome string) string {
	if outcome == "empty" {
		return "removed (no task changed a file)"
	}
	return outcome
}

// ApplyCLI is "baton apply RUN_ID [--task ID]...".
func ApplyCLI(args []string, stdout, stderr io.Writer) int {
	fs, tasks := applyFlagSet()
	id, err := oneRunID(fs, args)
	if err != nil {
		fmt.Fprintf(stderr, "baton apply: %s.\nusage: %s\n", strings.TrimSuffix(err.Error(), "."), applyUsage)
		return ExitUsage
	}
	svc, wt, code := branchRun("apply", id, stderr)
	if svc == nil {
		return code
	}
	defer closeServices(svc, stderr)
	printChanges(stdout, wt, *tasks)
	byHand := wt.MergeCommand
	if len(*tasks) > 0 {
		byHand = wt.PickCommand(*tasks)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	a, err := svc.Runs.ApplyTasks(ctx, id, *tasks)
	if err != nil {
		fmt.Fprintf(stderr, "baton apply: %s\n", plainError(err))
		fmt.Fprintf(stderr, "By hand: %s\n", byHand)
		return ExitError
	}
	printApplied(stdout, a)
	fmt.Fprintf(stdout, "By hand it is: %s\n", byHand)
	if after, err := svc.Runs.Snapshot(ctx, id); err == nil && after.Worktree != nil && after.Worktree.Outcome == "" {
		fmt.Fprintf(stdout, "The branch %s keeps the other tasks' changes: \"baton apply %s --task ID\" applies them, \"baton discard %s\" drops them.\n", wt.Branch, id, id)
	}
	return ExitOK
}

// printApplied says what Apply did to the user's branch.
func printApplied(w io.Writer, a view.Applied) {
	switch {
	case a.Nothing:
		fmt.Fprintf(w, "Applied: %s already held the changes.\n", a.Into)
	case a.FastForward:
		fmt.Fprintf(w, "Applied: %s fast-forwarded to %s.\n", a.Into, short(a.Commit))
	default:
		fmt.Fprintf(w, "Applied: merged into %s (%s).\n", a.Into, short(a.Commit))
	}
}

// printChanges lists each task's changed files (only tasks, when given).
func printChanges(w io.Writer, wt *view.Worktree, tasks []string) {
	fmt.Fprintf(w, "Branch %s of %s:\n", wt.Branch, wt.Repo)
	for _, t := range wt.Tasks {
		if len(t.Changes) == 0 && !t.Dropped || len(tasks) > 0 && !slices.Contains(tasks, t.TaskID) {
			continue
		}
		fmt.Fprintf(w, "  %s", t.TaskID)
		if t.Machine != "" {
			fmt.Fprintf(w, " (ran on %s)", t.Machine)
		}
		fmt.Fprint(w, ":")
		switch {
		case t.Applied:
			fmt.Fprint(w, " (applied)")
		case t.Dropped:
			fmt.Fprintf(w, " not merged (%s)", t.Error)
		}
		for _, c := range t.Changes {
			if c.Added < 0 {
				fmt.Fprintf(w, " %s (binary)", c.Path)
			} else {
				fmt.Fprintf(w, " %s +%d -%d", c.Path, c.Added, c.Removed)
			}
		}
		fmt.Fprintln(w)
	}
}

// DiscardCLI is "baton discard RUN_ID [--yes]": it says what is deleted and
// asks first, unless --yes.
func DiscardCLI(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, yes := discardFlagSet()
	id, err := oneRunID(fs, args)
	if err != nil {
		fmt.Fprintf(stderr, "baton discard: %s.\nusage: %s\n", strings.TrimSuffix(err.Error(), "."), discardUsage)
		return ExitUsage
	}
	svc, wt, code := branchRun("discard", id, stderr)
	if svc == nil {
		return code
	}
	defer closeServices(svc, stderr)
	fmt.Fprintln(stdout, DiscardWarning(wt))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if !*yes {
		fmt.Fprint(stdout, "Discard it? [y/N] ")
		text, _ := newLineReader(stdin).ReadLine(ctx)
		if a := strings.ToLower(strings.TrimSpace(text)); a != "y" && a != "yes" {
			fmt.Fprintln(stdout, "\nNothing was discarded.")
			return ExitCancelled
		}
	}
	if err := svc.Runs.Discard(ctx, id); err != nil {
		fmt.Fprintf(stderr, "baton discard: %s\nBy hand: %s\n", plainError(err), wt.DiscardCommand)
		return ExitError
	}
	fmt.Fprintf(stdout, "Discarded: the branch %s and the run's worktrees are gone; your branch is as it was.\nBy hand it is: %s\n", wt.Branch, wt.DiscardCommand)
	return ExitOK
}

// DiscardWarning says what Discard deletes: the branch, with how many
// tasks' changes to how many files, and that the user's branch stays.
func DiscardWarning(wt *view.Worktree) string {
	tasks, files := 0, map[string]bool{}
	for _, t := range wt.Tasks {
		if len(t.Changes) == 0 || t.Applied {
			continue
		}
		tasks++
		for _, c := range t.Changes {
			files[c.Path] = true
		}
	}
	s := fmt.Sprintf("Discard deletes the branch %s with the changes of %d %s to %d %s", wt.Branch, tasks, plural(tasks, "task", "tasks"),
		len(files), plural(len(files), "file", "files"))
	s += ", and the run's worktrees; they cannot be brought back. Your branch and your uncommitted changes stay as they are."
	if len(wt.Pushes) > 0 {
		s += fmt.Sprintf(" The copy pushed to %s stays there.", wt.Pushes[len(wt.Pushes)-1].Remote)
	}
	return s
}

// PushCLI is "baton push RUN_ID [--remote NAME] [--pull-request]".
func PushCLI(args []string, stdout, stderr io.Writer) int {
	fs, remote, pr := pushFlagSet()
	id, err := oneRunID(fs, args)
	if err != nil {
		fmt.Fprintf(stderr, "baton push: %s.\nusage: %s\n", strings.TrimSuffix(err.Error(), "."), pushUsage)
		return ExitUsage
	}
	svc, wt, code := branchRun("push", id, stderr)
	if svc == nil {
		return code
	}
	defer closeServices(svc, stderr)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rs, err := svc.Runs.Remotes(ctx, id)
	if err != nil {
		fmt.Fprintf(stderr, "baton push: %s\n", plainError(err))
		return ExitError
	}
	if *remote == "" {
		*remote = rs.Default
	}
	if *remote == "" {
		fmt.Fprintf(stderr, "baton push: the repository %s has no remote; add one with: git -C %s remote add origin URL\n", wt.Repo, wt.Repo)
		return ExitError
	}
	byHand := strings.Replace(rs.PushCommand, " push "+rs.Default+" ", " push "+*remote+" ", 1)
	if !*pr {
		out, err := svc.Runs.Push(ctx, id, *remote)
		if err != nil {
			fmt.Fprintf(stderr, "baton push: %s\nBy hand: %s\n", plainError(err), byHand)
			return ExitError
		}
		fmt.Fprintf(stdout, "Pushed %s to %s.\n%s\nBy hand it is: %s\n", wt.Branch, *remote, line(out.Output), byHand)
		return ExitOK
	}
	res, err := svc.Runs.PullRequest(ctx, id, *remote)
	if err != nil {
		fmt.Fprintf(stderr, "baton push: %s\nBy hand: %s\n", plainError(err), byHand)
		return ExitError
	}
	fmt.Fprintf(stdout, "Pushed %s to %s.\n", wt.Branch, *remote)
	if res.Opened {
		fmt.Fprintf(stdout, "Pull request: %s\n", res.URL)
		return ExitOK
	}
	fmt.Fprintf(stdout, "No pull request was opened: %s.\nOpen it with:\n  %s\n(its text is in %s)\n", strings.TrimSuffix(res.Reason, "."), res.Command, res.BodyFile)
	return ExitOK
}

// plainError is an error's text without the sentinel at its end.
func plainError(err error) string {
	msg := err.Error()
	for _, s := range []error{service.ErrBadRequest, service.ErrIllegalTransition} {
		msg = strings.TrimSuffix(msg, ": "+s.Error())
	}
	return msg
}
