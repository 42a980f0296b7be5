// Package workflows is the seed workflows of a run, as the engine calls
// them at fixed points of its loop (the engine's Workflows interface): the
// file mailbox of seed 001 (config.transport "mailbox"), and the skills and
// the journal of seed 004 (config.skills, config.journal). backend/mailbox,
// backend/skills and backend/journal do the file work; this package decides
// what they are told and when.
//
// The workflows never touch the run's state. Their file writes run in order
// on a writer goroutine owned by the run, waited for before the run counts
// as finished (Flush) and when its goroutine ends (Close). The engine waits
// only where it needs an answer: a mailbox assignment's error, a worker's
// prompt sections (gathered on the goroutine that starts the worker's
// session) and the journal's archive at completion.
package workflows

import (
	"context"
	"log/slog"
	"time"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// Run is what the workflows of one run are opened with.
type Run struct {
	ID      string
	Cwd     string
	Request string
	Config  template.Config
	// Values are the run's variables (PLATFORM and ARCHITECTURE name the
	// mailbox's platform and architecture).
	Values map[string]any
	// Delimiters frame the blocks the template's prompts ask for.
	Delimiters protocol.Delimiters
	// Home is the folder whose .claude/skills holds the user's skills (""
	// for os.UserHomeDir()).
	Home string
	Now  func() time.Time
	Log  *slog.Logger
}

// Report is a completion report that came outside a worker's transcript
// (the file mailbox's to-team-lead.json), or why a message there cannot be
// used.
type Report struct {
	TaskID     string
	Completion *protocol.Completion
	Err        error
}

// Seeds are the workflows of seeds 001 (mailbox) and 004 (skills, journal)
// of one run.
type Seeds struct {
	skills  *skillsHook
	journal *journalHook
	mail    *mailHook
	w       *writer
}

// Open returns the workflows of run r; those its template does not switch
// on do nothing. Close releases them.
func Open(r Run) *Seeds {
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Log == nil {
		r.Log = slog.Default()
	}
	return &Seeds{
		skills:  newSkillsHook(r.Config.Skills, r.Cwd, r.Home),
		journal: newJournalHook(r.Config.Journal, r.Cwd, r.Request, r.Now, r.Log),
		mail:    newMailHook(r.Config, r.Cwd, r.ID, r.Values, r.Delimiters, r.Log),
		w:       newWriter(r.Log),
	}
}

// Planned annotates tasks that were planned, edited or added (their
// matched skills) and returns a note for the run's message ("" none).
func (s *Seeds) Planned(tasks []store.Task) string { return s.skills.match(tasks) }

// Confirmed: the plan was confirmed; the journal is written.
func (s *Seeds) Confirmed(tasks []store.Task) {
	if s.journal.on() {
		s.w.do(func() { s.journal.init(tasks) })
	}
}

// Assign: the worker of task t is about to start; its mailbox assignment is
// written. An error fails the task.
func (s *Seeds) Assign(ctx context.Context, t *store.Task) error {
	if !s.mail.on() {
		return nil
	}
	var err error
	s.w.call(func() { err = s.mail.assign(ctx, t) })
	return err
}

// Sections are what the workflows add to the worker prompt of task t (its
// skills, its journal task file and the context of its dependencies). It
// is called off the run's goroutine, before the worker starts.
func (s *Seeds) Sections(t *store.Task) []string {
	var out []string
	if sec := s.skills.section(t); sec != "" {
		out = append(out, sec)
	}
	if s.journal.on() {
		var sec string
		s.w.call(func() { sec = s.journal.section(t) })
		if sec != "" {
			out = append(out, sec)
		}
	}
	return out
}

// CheckReport applies the mailbox's rules to a completion of a mailbox run
// that says the task is done: nil when it may be taken (and always for a
// run without the mailbox), else what is wrong with it.
func (s *Seeds) CheckReport(taskID string, c *protocol.Completion) error {
	if !s.mail.on() {
		return nil
	}
	return s.mail.check(taskID, c)
}

// Reprompt is what a worker is told when its completion report could not be
// used because of problem: for a mailbox run the corrected
// completion_report it must send; "" when the workflows add no words of
// their own.
func (s *Seeds) Reprompt(taskID, problem string) string {
	if !s.mail.on() {
		return ""
	}
	return mailReprompt(taskID, problem, s.mail.delimiters)
}

// AwaitingReview: a completion waits for its review; the mailbox shows it.
func (s *Seeds) AwaitingReview(taskID string, c *protocol.Completion) {
	if s.mail.on() {
		s.w.do(func() { s.mail.reported(taskID, c) })
	}
}

// Decided: a review decision was taken; the mailbox records it.
func (s *Seeds) Decided(taskID string, d *protocol.Review) {
	if s.mail.on() {
		s.w.do(func() { s.mail.decided(taskID, d) })
	}
}

// Done is what a finished task's worker reported: the journal records it
// for a worker that wrote no handoff of its own.
type Done struct {
	Summary string
	Files   []string
	// Notes are the warnings and issues of its completion report.
	Notes []string
}

// Finished: a task completed, or failed for good, its worker having
// reported done; the journal records it.
func (s *Seeds) Finished(taskID string, completed bool, done Done) {
	if s.journal.on() {
		s.w.do(func() { s.journal.done(taskID, completed, done) })
	}
}

// Skipped: tasks that will not run (a dependency failed, the user skipped
// them).
func (s *Seeds) Skipped(ids []string) {
	if s.journal.on() && len(ids) > 0 {
		s.w.do(func() { s.journal.skipped(ids) })
	}
}

// Completed: the run completed; the journal is archived when the template
// says so. It returns a sentence for the run's message ("" none).
func (s *Seeds) Completed() string {
	if !s.journal.on() {
		return ""
	}
	var note string
	s.w.call(func() { note = s.journal.archive() })
	return note
}

// Restored: a restored run that is past confirmation is taken up; its
// mailbox is opened again.
func (s *Seeds) Restored() {
	if s.mail.on() {
		s.w.call(s.mail.reopen)
	}
}

// Reports carries the reports found in the mailbox to the run's loop (nil
// without the mailbox).
func (s *Seeds) Reports() <-chan Report { return s.mail.out }

// Flush waits for the writes queued so far.
func (s *Seeds) Flush() { s.w.flush() }

// Close waits for the writes and releases what the workflows hold; the
// engine calls it when the run's goroutine ends.
func (s *Seeds) Close() {
	s.w.close()
	s.mail.close()
}
