package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/baton-app/baton/backend/session"
)

// A host that comes back without the run's main session (a fresh host, a
// session deleted meanwhile) does not end the run: the next prompt starts a
// new main session, under the same id, that first reads what the run did so
// far, so completed work is always aggregated.

// lostMain marks the main session as gone when the host says it does not
// have it. The phase's prompt is asked again (of a new session) by the next
// step. It reports whether the session is gone.
func (r *runner) lostMain(ctx context.Context) bool {
	if r.mainGone || r.run.MainSessionID == "" {
		return false
	}
	hctx, cancel := r.hostCtx(ctx)
	_, err := r.e.host.Session(hctx, session.ID(r.run.MainSessionID))
	cancel()
	if !errors.Is(err, session.ErrNoSession) {
		return false
	}
	r.log().Warn("the host no longer has the main session; the next prompt starts a new one", "session", r.run.MainSessionID)
	r.mainGone = true
	r.main.Asked = ""
	return true
}

// runSoFar is what a new main session reads before its first prompt: the
// request and every task with its outcome and report.
func (r *runner) runSoFar() string {
	var b strings.Builder
	b.WriteString("Baton continues an orchestration run in this new session: the session host no longer has the run's first main session. ")
	b.WriteString("Here is the run so far; the instructions for the current step follow it.\n\n")
	fmt.Fprintf(&b, "Request: %s\nFolder: %s\n", oneLine(r.run.Request, 2000), r.run.Cwd)
	if len(r.plan.tasks) == 0 {
		b.WriteString("No task list was made yet.\n\n")
		return b.String()
	}
	t := r.plan.tally()
	fmt.Fprintf(&b, "Tasks: %d, %d completed, %d failed, %d skipped.\n", len(r.plan.tasks), t.done, t.failed, t.skipped)
	for _, task := range r.plan.tasks {
		ws := r.plan.workers[task.ID]
		status := WorkerPending.String()
		if ws != nil {
			status = ws.status.String()
		}
		fmt.Fprintf(&b, "- %s %q: %s", task.ID, oneLine(task.Title, 200), status)
		if ws != nil {
			if ws.w.Summary != "" {
				fmt.Fprintf(&b, ". Report: %s", oneLine(ws.w.Summary, 1500))
			}
			if len(ws.w.OutputFiles) > 0 {
				fmt.Fprintf(&b, ". Files: %s", oneLine(strings.Join(ws.w.OutputFiles, ", "), 500))
			}
			if ws.w.Error != "" && ws.status != WorkerCompleted {
				fmt.Fprintf(&b, ". Problem: %s", oneLine(ws.w.Error, 500))
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	return b.String()
}

// oneLine keeps text on one line and clips it to n runes.
func oneLine(s string, n int) string {
	return clip(strings.Join(strings.Fields(s), " "), n)
}

// reattachMain looks, on a restore, whether the host still has the main
// session of a run past its first prompt; when it does not, the phase's
// prompt goes to a new main session.
func (r *runner) reattachMain(ctx context.Context) {
	if r.status.Finished() || r.status == RunCreated || r.run.MainSessionID == "" {
		return
	}
	if r.main.Asked == "" && r.main.Cursor.Index == 0 {
		return // nothing asked yet: askWith looks for itself
	}
	r.lostMain(ctx)
}
