package workflows

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/baton-app/baton/backend/journal"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/skills"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// The journal of seed 004 (config.journal.enabled): <cwd>/.claude/journal
// is created when the plan is confirmed (an older journal there is resumed
// from its last checkpoint, or archived first with journal.fresh), each
// worker is told its task file and gets the computed context of its
// dependencies, a completed task's handoff is recorded (one made from its
// completion report when it wrote none), and with journal.archive the journal is archived
// when the run completes. Journal problems are logged and never stop a run.

// journalHook keeps the run's journal. Its methods write files: Seeds
// call them on their writer goroutine.
type journalHook struct {
	enabled bool
	keep    bool // journal.archive: archive it when the run completes
	fresh   bool // journal.fresh: archive a journal found at the start instead of resuming it
	cwd     string
	request string
	now     func() time.Time
	log     *slog.Logger
}

func newJournalHook(cfg template.Journal, cwd, request string, now func() time.Time, log *slog.Logger) *journalHook {
	return &journalHook{enabled: cfg.Enabled, keep: cfg.Archive, fresh: cfg.Fresh, cwd: cwd, request: request, now: now, log: log}
}

func (h *journalHook) on() bool { return h.enabled }

func (h *journalHook) journal() *journal.Journal { return journal.New(h.cwd, h.now) }

// init writes the journal of the confirmed tasks. A journal already in
// the folder is resumed (seed 004 1.1), or archived first when the template
// says journal.fresh. Skipped tasks are registered as skipped.
func (h *journalHook) init(tasks []store.Task) {
	j := h.journal()
	var list []journal.Task
	for _, t := range tasks {
		jt := journalTask(t)
		if t.Skipped {
			jt.Status = journal.StatusSkipped
		}
		list = append(list, jt)
	}
	p := journal.Project{Name: filepath.Base(h.cwd), Request: h.request, Domain: skills.DetectDomains(h.cwd)}
	if j.Exists() && h.fresh {
		dir, err := j.Archive(h.now())
		if err != nil {
			h.log.Warn("archive the previous journal", "err", err)
			return
		}
		h.log.Info("previous journal archived (journal.fresh)", "dir", dir)
	}
	if j.Exists() {
		_, resumed, err := j.Resume(p, list)
		if err != nil {
			h.log.Warn("resume the journal", "err", err)
			return
		}
		h.log.Info("journal resumed from its last checkpoint", "tasks resumed", resumed)
		return
	}
	if _, err := j.Init(p, list); err != nil {
		h.log.Warn("init the journal", "err", err)
	}
}

// journalTask is a task's registry entry.
func journalTask(t store.Task) journal.Task {
	var def protocol.Task
	_ = json.Unmarshal(t.Definition, &def)
	return journal.Task{ID: t.ID, Name: t.Title, Type: taskInfo(t).Type, Complexity: t.Complexity,
		Dependencies: t.Dependencies, Objective: t.Description, AcceptanceCriteria: def.AcceptanceCriteria}
}

// skipped marks tasks that will not run as skipped.
func (h *journalHook) skipped(ids []string) {
	j := h.journal()
	if !j.Exists() {
		return
	}
	for _, id := range ids {
		if err := j.SetStatus(id, journal.StatusSkipped); err != nil && !errors.Is(err, journal.ErrUnknownTask) {
			h.log.Warn("journal status", "task", id, "err", err)
		}
	}
}

// section tells a worker its task file and the context of the tasks it
// depends on, and marks the task in progress.
func (h *journalHook) section(t *store.Task) string {
	j := h.journal()
	ix, err := j.Load()
	if err != nil {
		h.log.Warn("load the journal", "err", err)
		return ""
	}
	jt, ok := ix.Task(t.ID)
	if !ok {
		// Added after planning (remediation, a task the user added): it
		// gets its task file now.
		if _, err := j.AddTasks([]journal.Task{journalTask(*t)}); err != nil {
			h.log.Warn("add the task to the journal", "task", t.ID, "err", err)
			return ""
		}
		if ix, err = j.Load(); err != nil {
			h.log.Warn("load the journal", "err", err)
			return ""
		}
		if jt, ok = ix.Task(t.ID); !ok {
			return ""
		}
	}
	if err := j.SetStatus(t.ID, journal.StatusInProgress); err != nil {
		h.log.Warn("journal status", "task", t.ID, "err", err)
	}
	sec := fmt.Sprintf("## Journal\nYour task file is .claude/journal/%s. Append your execution log entry to it, "+
		"ending with the handoff as a ```yaml block (outcome: completed, failed or partial; summary; files_created; "+
		"files_modified; files_to_read; patterns_discovered; gotchas; blockers), before you report completion.", jt.File)
	c, err := j.ComputeContext(t.ID)
	if err != nil {
		h.log.Warn("compute the journal context", "task", t.ID, "err", err)
		return sec
	}
	if ps := c.PromptSection(); ps != "" {
		sec += "\n\n" + ps
	}
	return sec
}

// done records a finished task in the journal: its worker's handoff, or,
// when the worker wrote none, an entry made from its completion report.
func (h *journalHook) done(taskID string, completed bool, d Done) {
	j := h.journal()
	if !j.Exists() {
		return
	}
	if ix, err := j.Load(); err != nil {
		return
	} else if _, ok := ix.Task(taskID); !ok {
		return
	}
	if !completed {
		if err := j.SetStatus(taskID, journal.StatusFailed); err != nil {
			h.log.Warn("journal status", "task", taskID, "err", err)
		}
		return
	}
	_, err := j.Record(taskID)
	if errors.Is(err, journal.ErrNoHandoff) {
		h := journal.Handoff{Outcome: journal.OutcomeCompleted, Summary: d.Summary, FilesCreated: d.Files}
		for _, n := range d.Notes {
			h.Gotchas = append(h.Gotchas, journal.Note{Description: n})
		}
		err = j.RecordReport(taskID, h)
	}
	if err != nil {
		h.log.Warn("record the journal handoff", "task", taskID, "err", err)
	}
}

// archive archives the journal at the end of a completed run when
// journal.archive is set, and returns a sentence for the run message.
func (h *journalHook) archive() string {
	j := h.journal()
	if !h.keep || !j.Exists() {
		return ""
	}
	dir, err := j.Archive(h.now())
	if err != nil {
		h.log.Warn("archive the journal", "err", err)
		return ""
	}
	rel, err := filepath.Rel(h.cwd, dir)
	if err != nil {
		rel = dir
	}
	return "Journal archived to " + rel + "."
}
