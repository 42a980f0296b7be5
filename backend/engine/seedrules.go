package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/skills"
	"github.com/baton-app/baton/backend/store"
)

// The seeds' rules on a worker's report, as the seeds write them:
//
//   - seed 003: conflict_detected is "a conflict … that prevents task
//     completion": the task fails with its conflicts recorded (no retry:
//     another attempt meets the same conflict), its dependants are skipped,
//     and the conflicts go to the user (the worker card, the final report)
//     and to the main session (the aggregation prompt lists them as
//     "Conflict to resolve").
//   - seed 004: "IF handoff.outcome == 'partial' AND iterations < 3:
//     Re-queue task with additional context from failure": a partial
//     report runs the task again in a new session, told what the last
//     attempt left undone, until its third iteration, whose report stands.
//   - seed 004: the model follows the task's complexity, whichever word the
//     planning prompt allowed for it (low/medium/high, easy/normal/complex).

// partialIterations is seed 004's iteration limit for a partial outcome.
const partialIterations = 3

// conflictReport fails a task whose worker reported a conflict.
func (r *runner) conflictReport(ctx context.Context, ws *workerState, c *protocol.Completion) error {
	ws.w.Conflicts = conflicts(c)
	ws.w.Questions = nil
	if ws.w.SessionID != "" {
		r.archive.add(session.ID(ws.w.SessionID))
	}
	return r.finalFail(ctx, ws, "conflict: "+strings.Join(ws.w.Conflicts, "; "))
}

// partialReport re-queues a task reported partly done while it has
// iterations left; it returns false when the report stands.
func (r *runner) partialReport(ctx context.Context, ws *workerState, c *protocol.Completion) (bool, error) {
	if ws.book.Partials+1 >= partialIterations {
		return false, nil
	}
	ws.book.Partials++
	left := strings.TrimSpace(c.Error)
	if left == "" {
		left = "(the report does not say)"
	}
	var fb strings.Builder
	fmt.Fprintf(&fb, "Your previous attempt at this task (iteration %d of at most %d) reported it partly done.\n",
		ws.book.Partials, partialIterations)
	if s := strings.TrimSpace(c.Summary); s != "" {
		fmt.Fprintf(&fb, "What it did: %s\n", s)
	}
	fmt.Fprintf(&fb, "What was left: %s\n", left)
	if len(ws.w.OutputFiles) > 0 {
		fmt.Fprintf(&fb, "Files it touched: %s\n", strings.Join(ws.w.OutputFiles, ", "))
	}
	fb.WriteString("Finish what was left, then report completion again.")
	ws.book.Feedback = fb.String()
	r.stopSession(ctx, ws)
	return true, r.requeue(ctx, ws, fmt.Sprintf("partly done (iteration %d of %d): %s", ws.book.Partials,
		partialIterations, left), false, true)
}

// modelFor is the model of a task's worker: the template's model for the
// task's complexity, in any of the words the planning prompts allow.
func (r *runner) modelFor(t *store.Task) string {
	return r.tmpl.Config.Models.For(skills.NormalizeComplexity(t.Complexity))
}
