package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/baton-app/baton/backend/journal"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/store"
)

// The journal of seed 004 (config.journal.enabled): <cwd>/.claude/journal
// is created when the plan is confirmed (an older journal there is archived
// first), each worker is told its task file and gets the computed context
// of its dependencies, a completed task's handoff is recorded (its status
// when it wrote none), and with journal.archive the journal is archived
// when the run completes. Journal problems are logged and never stop a run.

func (r *runner) journal() *journal.Journal {
	if !r.tmpl.Config.Journal.Enabled {
		return nil
	}
	return journal.New(r.run.Cwd, r.e.now)
}

// initJournal writes the journal of the confirmed tasks.
func (r *runner) initJournal(tasks []store.Task) {
	j := r.journal()
	if j == nil {
		return
	}
	if j.Exists() {
		dir, err := j.Archive(r.e.now())
		if err != nil {
			r.log().Warn("archive the previous journal", "err", err)
			return
		}
		r.log().Info("previous journal archived", "dir", dir)
	}
	var list []journal.Task
	for _, t := range tasks {
		if t.Skipped {
			continue
		}
		var def protocol.Task
		_ = json.Unmarshal(t.Definition, &def)
		list = append(list, journal.Task{ID: t.ID, Name: t.Title, Type: taskInfo(t).Type, Complexity: t.Complexity,
			Dependencies: t.Dependencies, Objective: t.Description, AcceptanceCriteria: def.AcceptanceCriteria})
	}
	if _, err := j.Init(journal.Project{Name: filepath.Base(r.run.Cwd), Request: r.run.Request}, list); err != nil {
		r.log().Warn("init the journal", "err", err)
	}
}

// journalSection tells a worker its task file and the context of the
// tasks it depends on.
func (r *runner) journalSection(t *store.Task) string {
	j := r.journal()
	if j == nil {
		return ""
	}
	ix, err := j.Load()
	if err != nil {
		r.log().Warn("load the journal", "err", err)
		return ""
	}
	jt, ok := ix.Task(t.ID)
	if !ok {
		return "" // added after planning (remediation): no task file
	}
	_ = j.SetStatus(t.ID, journal.StatusInProgress)
	sec := fmt.Sprintf("## Journal\nYour task file is .claude/journal/%s. Append your execution log entry to it, "+
		"ending with the handoff as a ```yaml block (outcome: completed, failed or partial; summary; files_created; "+
		"files_modified; files_to_read; patterns_discovered; gotchas; blockers), before you report completion.", jt.File)
	c, err := j.ComputeContext(t.ID)
	if err != nil {
		r.log().Warn("compute the journal context", "task", t.ID, "err", err)
		return sec
	}
	if ps := c.PromptSection(); ps != "" {
		sec += "\n\n" + ps
	}
	return sec
}

// journalDone records a finished task in the journal.
func (r *runner) journalDone(taskID string, completed bool) {
	j := r.journal()
	if j == nil || !j.Exists() {
		return
	}
	if ix, err := j.Load(); err != nil {
		return
	} else if _, ok := ix.Task(taskID); !ok {
		return
	}
	if !completed {
		if err := j.SetStatus(taskID, journal.StatusFailed); err != nil {
			r.log().Warn("journal status", "task", taskID, "err", err)
		}
		return
	}
	_, err := j.Record(taskID)
	if errors.Is(err, journal.ErrNoHandoff) {
		err = j.SetStatus(taskID, journal.StatusCompleted)
	}
	if err != nil {
		r.log().Warn("record the journal handoff", "task", taskID, "err", err)
	}
}

// archiveJournal archives the journal at the end of a completed run when
// journal.archive is set, and returns a sentence for the run message.
func (r *runner) archiveJournal() string {
	j := r.journal()
	if j == nil || !r.tmpl.Config.Journal.Archive || !j.Exists() {
		return ""
	}
	dir, err := j.Archive(r.e.now())
	if err != nil {
		r.log().Warn("archive the journal", "err", err)
		return ""
	}
	rel, err := filepath.Rel(r.run.Cwd, dir)
	if err != nil {
		rel = dir
	}
	return "Journal archived to " + rel + "."
}
