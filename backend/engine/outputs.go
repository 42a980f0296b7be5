package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/scope"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/transcript"
	"github.com/baton-app/baton/backend/worktree"
)

// A task's outputs and scope are checked against what changed in its
// folder (backend/scope), never taken from its report: in a worktree run
// git's list of the changes in the task's worktree since it started, in a
// shared run a snapshot of the task's scope and declared outputs taken
// before its worker started (and the files its tool calls wrote). A report
// of success whose declared outputs (the plan's expected outputs and the
// files the report names) were not written is asked again once, naming
// them; a second such report completes the task with issues. Files changed
// outside the task's scope are warnings, or fail the task when the
// template sets strictScope.

// exemptFolders are the folders Baton's own workflows write in a task's
// folder (the mailbox, skills, the journal): never a task's scope question.
var exemptFolders = []string{worktree.BatonDir, ".claude"}

// declaredOutputs are the outputs task t declares (its plan's expected
// outputs) and those its report c names (output files, files created or
// modified, artifacts), relative to the task's folder.
func declaredOutputs(folder string, t *store.Task, c *protocol.Completion) []string {
	var planned []string
	if t != nil && len(t.Definition) > 0 {
		var def protocol.Task
		if json.Unmarshal(t.Definition, &def) == nil {
			planned = def.ExpectedOutputs
			for _, a := range def.OutputArtifacts {
				planned = append(planned, a.Path)
			}
		}
	}
	var art []string
	for _, a := range c.Artifacts {
		art = append(art, a.Path)
	}
	return transcript.RelFiles(folder, planned, c.OutputFiles, c.FilesCreated, c.FilesModified, art)
}

// plannedOutputs are the outputs task t's plan declares.
func plannedOutputs(t *store.Task) []string {
	if t == nil {
		return nil
	}
	return declaredOutputs("", t, &protocol.Completion{})
}

// snapshotRoots are what a shared run's snapshot of task t covers: its
// scope and its planned outputs.
func snapshotRoots(t *store.Task) []string {
	return append(slices.Clone(t.Scope), plannedOutputs(t)...)
}

// checkOutputs reads what worker ws's task changed and judges its report
// c against it. ok is false when the changes could not be read (nothing is
// judged then).
func (r *runner) checkOutputs(ctx context.Context, ws *workerState, c *protocol.Completion) (v scope.Verdict, ok bool) {
	id := ws.w.TaskID
	t := r.plan.task(id)
	if t == nil {
		return v, false
	}
	folder := r.prompts.Folder(id)
	declared := declaredOutputs(folder, t, c)
	if r.tmpl.Config.PermissionMode == session.ModePlan {
		// A worker in plan mode proposes its outputs in its report and
		// writes nothing: none is missing; what it did write is judged
		// against its scope.
		declared = nil
	}
	var changed []string
	var written func(string) bool
	switch {
	case r.iso != nil:
		it := r.iso.Tasks[id]
		if it == nil || it.Dir == "" || it.Resolves != "" {
			return v, false // a merge task works in the run's worktree
		}
		var err error
		if changed, err = worktree.ChangedSince(ctx, folder, it.Base); err != nil {
			r.log.Warn("read what the task changed", "task", id, "err", err)
			return v, false
		}
	default:
		exists := func(p string) bool {
			_, err := os.Stat(filepath.Join(folder, filepath.FromSlash(p)))
			return err == nil
		}
		written = exists
		if ws.before != nil {
			changed = ws.before.Changed(folder)
			written = func(p string) bool { return !ws.before.Covers(p) && exists(p) }
		}
		// What its tool calls wrote outside what the snapshot covers.
		for _, f := range ws.book.ToolFiles {
			if f = scope.Clean(f); f != "" && (ws.before == nil || !ws.before.Covers(f)) && exists(f) && !slices.Contains(changed, f) {
				changed = append(changed, f)
			}
		}
	}
	return scope.Judge(declared, changed, t.Scope, exemptFolders, written), true
}

// outputsKept decides on worker ws's report c of success: when it declares
// outputs Baton does not find written, the worker is asked again once,
// naming them (the text returned; "" when not asked); otherwise what was
// found is kept on its row: the missing outputs, the files outside its
// scope, and the output files without the missing ones.
func (r *runner) outputsKept(ctx context.Context, ws *workerState, c *protocol.Completion) string {
	v, ok := r.checkOutputs(ctx, ws, c)
	if !ok {
		return ""
	}
	if len(v.Missing) > 0 && ws.book.OutputAsks == 0 && ws.status == WorkerRunning && ws.w.SessionID != "" &&
		ws.book.Reprompts < r.tmpl.Config.MaxRetries {
		ws.book.OutputAsks++
		return missingOutputsPrompt(ws.w.TaskID, v.Missing)
	}
	ws.w.MissingOutputs = v.Missing
	ws.w.OutOfScope = v.Outside
	ws.w.OutputFiles = slices.DeleteFunc(ws.w.OutputFiles, func(f string) bool { return slices.Contains(v.Missing, f) })
	return ""
}

// missingOutputsPrompt asks the worker of task id again for the outputs it
// declared and did not write.
func missingOutputsPrompt(id string, missing []string) string {
	return fmt.Sprintf("Baton checked your folder: your task %s declares %s, which %s not written there: %s. "+
		"Write %s now, or report honestly what you did (status \"partial\" or \"failed\", with what is missing in \"error\"). "+
		"Then end your reply with your completion report again, with \"task_id\": %q.",
		id, countOf(len(missing), "output", "outputs"), map[bool]string{true: "is", false: "are"}[len(missing) == 1],
		strings.Join(missing, ", "), map[bool]string{true: "it", false: "them"}[len(missing) == 1], id)
}

// outsideScope is why a task that changed files outside its scope fails
// under the template's strictScope.
func outsideScope(files []string) string {
	return "it changed files outside its scope, which this template does not allow: " + strings.Join(files, ", ")
}
