package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/baton-app/baton/backend/mailbox"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/store"
)

// The file mailbox transport of seed 001 (config.transport "mailbox"):
// each task is also assigned as a task_assignment message in
// <cwd>/.claude-orchestrator/tasks/messages/to-developer.json, and
// completion_report messages that developers append to to-team-lead.json
// are taken like a report in the worker's transcript (whichever comes
// first), into the same review path. Review decisions are written back
// (queue.json, log.md). A malformed message is shown on its task; the
// developer can append a corrected one.

// TransportMailbox is the config.transport value of the file mailbox.
const TransportMailbox = "mailbox"

// openMail opens the run's mailbox when the template uses it; reports are
// forwarded to the run's goroutine until the run ends.
func (r *runner) openMail(ctx context.Context) error {
	if r.tmpl.Config.Transport != TransportMailbox || r.mb != nil {
		return nil
	}
	mb, err := mailbox.Open(r.run.Cwd, mailbox.Options{Run: r.run.ID, MaxRetries: r.tmpl.Config.MaxRetries, Logger: r.e.logger})
	if err != nil {
		return fmt.Errorf("open the file mailbox: %w", err)
	}
	r.mb = mb
	r.e.wg.Add(1)
	go func() {
		defer r.e.wg.Done()
		for rep := range mb.Reports() {
			select {
			case r.mail <- rep:
			case <-r.done:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return nil
}

func (r *runner) closeMail() {
	if r.mb != nil {
		if err := r.mb.Close(); err != nil {
			r.log().Warn("close the file mailbox", "err", err)
		}
	}
}

// platform is the run's PLATFORM variable when it names a mailbox platform.
func (r *runner) platform() string {
	if p, ok := r.values["PLATFORM"].(string); ok && slices.Contains(mailbox.Platforms, p) {
		return p
	}
	return "custom"
}

// assign writes the task's assignment before its worker starts.
func (r *runner) assign(ctx context.Context, t *store.Task) error {
	if r.mb == nil {
		if err := r.openMail(r.e.ctx); err != nil || r.mb == nil {
			return err
		}
	}
	a := mailbox.TaskAssignment{TaskID: t.ID, Platform: r.platform(), Title: t.Title, Instructions: t.Description,
		FilesToCreate: t.Scope}
	if err := r.mb.Assign(ctx, a); err != nil {
		return fmt.Errorf("write the task assignment: %w", err)
	}
	return nil
}

// onMail takes one message found in to-team-lead.json.
func (r *runner) onMail(ctx context.Context, rep mailbox.Report) {
	ws := r.workers[rep.TaskID]
	if ws == nil {
		r.log().Warn("mailbox message for an unknown task", "task", rep.TaskID, "err", rep.Err)
		return
	}
	if rep.Err != nil {
		ws.w.Error = "a message in to-team-lead.json cannot be used: " + rep.Err.Error()
		_ = r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerProgress, ws, ws.w.Error))
		return
	}
	if ws.status == WorkerSpawning && rep.Report != nil {
		// The developer was quicker than the start of its session's
		// answer: take the report once the worker runs.
		ws.early = &rep
		return
	}
	if ws.status != WorkerRunning || rep.Report == nil {
		return // already reported in its transcript
	}
	r.workerReport(ctx, ws, mailCompletion(rep.Report), false)
}

// mailReported tells the mailbox about a report that came in the worker's
// transcript, so that queue.json shows the task awaiting review and the
// review decision can be written there too.
func (r *runner) mailReported(taskID string, c *protocol.Completion) {
	if r.mb == nil {
		return
	}
	rep := mailbox.CompletionReport{TaskID: taskID, Platform: c.Platform, Status: "awaiting_review", Summary: c.Summary,
		FilesCreated: c.FilesCreated, FilesModified: c.FilesModified, Timestamp: c.Timestamp}
	if rep.Platform == "" {
		rep.Platform = r.platform()
	}
	if rep.FilesCreated == nil {
		rep.FilesCreated = append([]string{}, c.OutputFiles...)
	}
	if rep.FilesModified == nil {
		rep.FilesModified = []string{}
	}
	if b := c.Build; b != nil {
		rep.BuildResult = mailbox.BuildResult{Status: b.Status, Command: b.Command, Output: b.Output}
		if b.Errors != nil {
			rep.BuildResult.Errors = *b.Errors
		}
	}
	if err := r.mb.Reported(rep); err != nil {
		r.log().Warn("record the report in the mailbox", "task", taskID, "err", err)
	}
}

// mailCompletion turns a mailbox completion report into a completion.
func mailCompletion(c *mailbox.CompletionReport) *protocol.Completion {
	errs := c.BuildResult.Errors
	return &protocol.Completion{TaskID: c.TaskID, Status: "awaiting_review", Summary: c.Summary,
		FilesCreated: c.FilesCreated, FilesModified: c.FilesModified, Platform: c.Platform, Timestamp: c.Timestamp,
		Build: &protocol.BuildResult{Status: c.BuildResult.Status, Command: c.BuildResult.Command, Errors: &errs,
			Output: c.BuildResult.Output}}
}

// mailDecision writes a review decision to the mailbox.
func (r *runner) mailDecision(taskID string, d *protocol.Review) {
	if r.mb == nil {
		return
	}
	var err error
	if d.Approved() {
		// A task reported only in its transcript is still in_progress in
		// queue.json; the mailbox refuses to approve it, which is logged.
		err = r.mb.Approve(taskID)
	} else {
		err = r.mb.Reject(taskID, strings.TrimSpace(d.Reason), d.RequiredChanges)
		if errors.Is(err, mailbox.ErrRetriesExhausted) {
			err = nil // the engine fails the task itself
		}
	}
	if err != nil {
		r.log().Warn("write the review decision to the mailbox", "task", taskID, "err", err)
	}
}
