// Package outputs checks a task's outputs and scope against what changed
// in its folder (backend/scope), never against its report: in a worktree
// run git's list of the changes in the task's worktree since it started,
// in a shared run a snapshot of the task's scope and declared outputs taken
// before its worker started (and the files its tool calls wrote). A report
// of success whose declared outputs (the plan's expected outputs and the
// files the report names) were not written is asked again once, naming
// them; a second such report completes the task with issues. Files changed
// outside the task's scope are warnings, or fail the task when the template
// sets strictScope. It decides; the engine keeps what it says.
package outputs

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
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/transcript"
	"github.com/baton-app/baton/backend/worktree"
)

// exemptFolders are the folders Baton's own workflows write in a task's
// folder (the mailbox, skills, the journal): never a task's scope question.
var exemptFolders = []string{worktree.BatonDir, ".claude"}

// Declared are the outputs task t declares (its plan's expected outputs)
// and those its report c names (output files, files created or modified,
// artifacts), relative to the task's folder.
func Declared(folder string, t *store.Task, c *protocol.Completion) []string {
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

// Planned are the outputs task t's plan declares.
func Planned(t *store.Task) []string {
	if t == nil {
		return nil
	}
	return Declared("", t, &protocol.Completion{})
}

// SnapshotRoots are what a shared run's snapshot of task t covers: its
// scope and its planned outputs.
func SnapshotRoots(t *store.Task) []string {
	return append(slices.Clone(t.Scope), Planned(t)...)
}

// Work is what a task's worker did, as the check reads it.
type Work struct {
	// Folder is the task's folder, Task the task.
	Folder string
	Task   *store.Task
	// PlanMode: the worker ran in plan mode; it proposes its outputs in
	// its report and writes nothing, so none is missing, and what it did
	// write is judged against its scope.
	PlanMode bool
	// Worktree: the task has a worktree of its own, started from commit
	// Base (otherwise the run's workers share the folder).
	Worktree bool
	Base     string
	// Before is a shared run's snapshot taken before the worker started
	// (nil: none); ToolFiles the files its tool calls wrote.
	Before    *scope.Snapshot
	ToolFiles []string
	// Asked: the worker was asked again for its outputs already; MayAsk
	// says whether it may be asked (it runs, in a session, with re-prompts
	// left).
	Asked, MayAsk bool
}

// Judge reads what the task changed and judges its report c against it.
func (w Work) Judge(ctx context.Context, c *protocol.Completion) (scope.Verdict, error) {
	declared := Declared(w.Folder, w.Task, c)
	if w.PlanMode {
		declared = nil
	}
	var changed []string
	var written func(string) bool
	if w.Worktree {
		var err error
		if changed, err = worktree.ChangedSince(ctx, w.Folder, w.Base); err != nil {
			return scope.Verdict{}, fmt.Errorf("read what task %s changed: %w", w.Task.ID, err)
		}
	} else {
		exists := func(p string) bool {
			_, err := os.Stat(filepath.Join(w.Folder, filepath.FromSlash(p)))
			return err == nil
		}
		written = exists
		if w.Before != nil {
			changed = w.Before.Changed(w.Folder)
			written = func(p string) bool { return !w.Before.Covers(p) && exists(p) }
		}
		// What its tool calls wrote outside what the snapshot covers.
		for _, f := range w.ToolFiles {
			if f = scope.Clean(f); f != "" && (w.Before == nil || !w.Before.Covers(f)) && exists(f) && !slices.Contains(changed, f) {
				changed = append(changed, f)
			}
		}
	}
	return scope.Judge(declared, changed, w.Task.Scope, exemptFolders, written), nil
}

// Kept is what is decided on a report of success: Ask, when it declares
// outputs that are not written and the worker may be asked once, is the
// text that asks again (nothing is kept then); otherwise Missing and
// Outside are kept on the worker's row and the output files lose the
// missing ones.
type Kept struct {
	Ask              string
	Missing, Outside []string
}

// Keep decides on verdict v of the work's report.
func (w Work) Keep(v scope.Verdict) Kept {
	if len(v.Missing) > 0 && !w.Asked && w.MayAsk {
		return Kept{Ask: MissingPrompt(w.Task.ID, v.Missing)}
	}
	return Kept{Missing: v.Missing, Outside: v.Outside}
}

// MissingPrompt asks the worker of task id again for the outputs it
// declared and did not write.
func MissingPrompt(id string, missing []string) string {
	one := len(missing) == 1
	n := fmt.Sprintf("%d outputs", len(missing))
	if one {
		n = "1 output"
	}
	return fmt.Sprintf("Baton checked your folder: your task %s declares %s, which %s not written there: %s. "+
		"Write %s now, or report honestly what you did (status \"partial\" or \"failed\", with what is missing in \"error\"). "+
		"Then end your reply with your completion report again, with \"task_id\": %q.",
		id, n, map[bool]string{true: "is", false: "are"}[one],
		strings.Join(missing, ", "), map[bool]string{true: "it", false: "them"}[one], id)
}

// OutsideScope is why a task that changed files outside its scope fails
// under the template's strictScope.
func OutsideScope(files []string) string {
	return "it changed files outside its scope, which this template does not allow: " + strings.Join(files, ", ")
}
