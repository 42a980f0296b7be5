package workflows

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/baton-app/baton/backend/mailbox"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
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

// mailHook keeps the run's file mailbox. Its methods write files: Seeds
// call them on their writer goroutine. Reports found in to-team-lead.json
// are forwarded on out to the run's loop.
type mailHook struct {
	enabled    bool
	cwd, run   string
	maxRetries int
	platform   string
	// architecture is the ARCHITECTURE value, when the template has one.
	architecture string
	delimiters   protocol.Delimiters
	log          *slog.Logger
	mb           *mailbox.Mailbox
	out          chan Report
	stop         chan struct{}
	forwarding   sync.WaitGroup
}

func newMailHook(cfg template.Config, cwd, run string, values map[string]any, d protocol.Delimiters, log *slog.Logger) *mailHook {
	h := &mailHook{enabled: cfg.Transport == TransportMailbox, cwd: cwd, run: run, maxRetries: cfg.MaxRetries,
		platform: "custom", delimiters: d, log: log, stop: make(chan struct{})}
	if h.enabled {
		h.out = make(chan Report)
	}
	h.platform = mailPlatform(values)
	h.architecture, _ = values["ARCHITECTURE"].(string)
	return h
}

// mailPlatform is the run's platform: PLATFORM when it names a mailbox
// platform, else custom.
func mailPlatform(values map[string]any) string {
	if p, ok := values["PLATFORM"].(string); ok && slices.Contains(mailbox.Platforms, p) {
		return p
	}
	return "custom"
}

func (h *mailHook) on() bool { return h.enabled }

// open opens the mailbox once; its reports are forwarded until close.
func (h *mailHook) open() error {
	if h.mb != nil {
		return nil
	}
	mb, err := mailbox.Open(h.cwd, mailbox.Options{Run: h.run, MaxRetries: h.maxRetries, Logger: h.log})
	if err != nil {
		return fmt.Errorf("open the file mailbox: %w", err)
	}
	h.mb = mb
	h.forwarding.Add(1)
	go func() {
		defer h.forwarding.Done()
		for rep := range mb.Reports() {
			r := Report{TaskID: rep.TaskID, Err: rep.Err}
			if rep.Report != nil {
				r.Completion = mailCompletion(rep.Report)
			}
			select {
			case h.out <- r:
			case <-h.stop:
				return
			}
		}
	}()
	return nil
}

// reopen opens the mailbox of a restored run.
func (h *mailHook) reopen() {
	if err := h.open(); err != nil {
		h.log.Warn("reopen the file mailbox", "err", err)
	}
}

func (h *mailHook) close() {
	close(h.stop)
	if h.mb != nil {
		if err := h.mb.Close(); err != nil {
			h.log.Warn("close the file mailbox", "err", err)
		}
	}
	h.forwarding.Wait()
}

// assign writes the task's assignment before its worker starts.
func (h *mailHook) assign(ctx context.Context, t *store.Task) error {
	if err := h.open(); err != nil {
		return err
	}
	a := assignment(t, h.platform, h.architecture, h.cwd)
	if err := h.mb.Assign(ctx, a); err != nil {
		return fmt.Errorf("write the task assignment: %w", err)
	}
	return nil
}

// check applies the mailbox's rules to a completion that says the task is
// done (failures, questions and conflicts are taken as they are).
func (h *mailHook) check(taskID string, c *protocol.Completion) error {
	switch c.Status {
	case "success", "partial", "awaiting_review":
		return mailbox.CheckReport(mailReport(taskID, h.platform, c))
	}
	return nil
}

// reported tells the mailbox about a report that came in the worker's
// transcript, so that queue.json shows the task awaiting review and the
// review decision can be written there too.
func (h *mailHook) reported(taskID string, c *protocol.Completion) {
	if h.mb == nil {
		return
	}
	rep := mailReport(taskID, h.platform, c)
	if err := h.mb.Reported(rep); err != nil {
		h.log.Warn("record the report in the mailbox", "task", taskID, "err", err)
	}
}

// decided writes a review decision to the mailbox.
func (h *mailHook) decided(taskID string, d *protocol.Review) {
	if h.mb == nil {
		return
	}
	var err error
	if d.Approved() {
		// A task reported only in its transcript is still in_progress in
		// queue.json; the mailbox refuses to approve it, which is logged.
		err = h.mb.Approve(taskID)
	} else {
		err = h.mb.Reject(taskID, strings.TrimSpace(d.Reason), d.RequiredChanges)
		if errors.Is(err, mailbox.ErrRetriesExhausted) {
			err = nil // the engine fails the task itself
		}
	}
	if err != nil {
		h.log.Warn("write the review decision to the mailbox", "task", taskID, "err", err)
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
