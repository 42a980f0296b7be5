package engine

import (
	"context"
	"slices"

	"github.com/baton-app/baton/backend/outputs"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
)

// A task's outputs and scope are checked by backend/outputs.

// snapshotRoots are what a shared run's snapshot of task t covers
// (outputs.SnapshotRoots).
func snapshotRoots(t *store.Task) []string { return outputs.SnapshotRoots(t) }

// outsideScope is why a task that changed files outside its scope fails
// (outputs.OutsideScope).
func outsideScope(files []string) string { return outputs.OutsideScope(files) }

// outputsKept decides on worker ws's report c of success (outputs.Work):
// when it declares outputs Baton does not find written, the worker is asked
// again once, naming them (the text returned; "" when not asked); otherwise
// what was found is kept on its row: the missing outputs, the files outside
// its scope, and the output files without the missing ones. Nothing is
// judged when the changes cannot be read, for a merge task (it works in
// the run's worktree), or for a task that ran on a machine (its worktree
// is there).
func (r *runner) outputsKept(ctx context.Context, ws *workerState, c *protocol.Completion) string {
	id := ws.w.TaskID
	t := r.plan.task(id)
	if t == nil {
		return ""
	}
	work := outputs.Work{Folder: r.prompts.Folder(id), Task: t, PlanMode: r.tmpl.Config.PermissionMode == session.ModePlan,
		Before: ws.before, ToolFiles: ws.book.ToolFiles, Asked: ws.book.OutputAsks > 0,
		MayAsk: ws.status == WorkerRunning && ws.w.SessionID != "" && ws.book.Reprompts < r.tmpl.Config.MaxRetries}
	if r.iso != nil {
		it := r.iso.Tasks[id]
		if it == nil || it.Dir == "" || it.Resolves != "" || it.Machine != "" {
			return ""
		}
		work.Worktree, work.Base = true, it.Base
	}
	v, err := work.Judge(ctx, c)
	if err != nil {
		r.log.Warn("read what the task changed", "task", id, "err", err)
		return ""
	}
	kept := work.Keep(v)
	if kept.Ask != "" {
		ws.book.OutputAsks++
		return kept.Ask
	}
	ws.w.MissingOutputs = kept.Missing
	ws.w.OutOfScope = kept.Outside
	ws.w.OutputFiles = slices.DeleteFunc(ws.w.OutputFiles, func(f string) bool { return slices.Contains(kept.Missing, f) })
	return ""
}
