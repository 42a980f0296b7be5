package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/baton-app/baton/backend/mailbox"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/skills"
	"github.com/baton-app/baton/backend/store"
)

// Seed 001's messages as the seed defines them: a task_assignment names the
// files to create (the task's expected outputs) and the architecture to
// follow; a completion report is checked by the same rules whichever way it
// came (to-team-lead.json or the developer's session), so a report without
// a build result or a timestamp is refused both ways; and under
// requireBuildSuccess a build that was not run (not_verified, "not
// recommended") is rejected like a failed one.

// assignment is the task_assignment of task t.
func assignment(t *store.Task, platform, architecture, cwd string) mailbox.TaskAssignment {
	var def protocol.Task
	_ = json.Unmarshal(t.Definition, &def)
	files := append([]string{}, def.ExpectedOutputs...)
	arch := strings.TrimSpace(architecture)
	if arch == "" {
		arch = strings.TrimSpace(def.Context)
	}
	if arch == "" {
		arch = skills.DetectProject(cwd).Summary()
	}
	return mailbox.TaskAssignment{TaskID: t.ID, Platform: platform, Title: t.Title, Instructions: t.Description,
		FilesToCreate: files, Architecture: arch}
}

// mailReport is a completion as a completion_report message.
func mailReport(taskID, platform string, c *protocol.Completion) mailbox.CompletionReport {
	rep := mailbox.CompletionReport{TaskID: taskID, Platform: c.Platform, Status: "awaiting_review", Summary: c.Summary,
		FilesCreated: c.FilesCreated, FilesModified: c.FilesModified, Timestamp: c.Timestamp}
	if rep.Platform == "" {
		rep.Platform = platform
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
	return rep
}

// checkMailReport applies the mailbox's rules to a report of a mailbox run
// that says the task is done; a report that breaks them is refused and the
// worker asked for a corrected one. It returns true when it took the report.
func (r *runner) checkMailReport(ctx context.Context, ws *workerState, c *protocol.Completion) (bool, error) {
	if r.tmpl.Config.Transport != TransportMailbox {
		return false, nil
	}
	switch c.Status {
	case "success", "partial", "awaiting_review":
	default:
		return false, nil // failures, questions and conflicts are taken as they are
	}
	err := mailbox.CheckReport(mailReport(ws.w.TaskID, mailPlatform(r.values), c))
	if err == nil {
		return false, nil
	}
	return true, r.refuseReport(ctx, ws, err.Error())
}

// refuseReport shows why a report was refused and asks the worker again,
// within the re-prompt budget; past it the task fails.
func (r *runner) refuseReport(ctx context.Context, ws *workerState, problem string) error {
	why := "the completion report cannot be used: " + problem
	if ws.status != WorkerRunning || ws.w.SessionID == "" || ws.book.Reprompts >= r.tmpl.Config.MaxRetries {
		return r.workerFailed(ctx, ws, why, false)
	}
	id := session.ID(ws.w.SessionID)
	text := mailReprompt(problem, delimiters(r.tmpl))
	hctx, cancel := r.hostCtx(ctx)
	err := r.e.host.Send(hctx, id, text)
	cancel()
	if err != nil {
		return r.workerFailed(ctx, ws, fmt.Sprintf("send the re-prompt: %v", err), true)
	}
	n := ws.book.Reprompts + 1
	r.markDirty(id, session.NoticeMessage)
	ws.book.reset(ws.book.Cursor)
	ws.book.Reprompts = n
	ws.w.Error = why
	ws.activity = r.e.now()
	return r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerReprompted, ws,
		fmt.Sprintf("asked again for the completion report (%d of %d): %s", n, r.tmpl.Config.MaxRetries, why)))
}

// unverifiedBuild is why requireBuildSuccess rejects a report at once: a
// failed build, or one that was not run; "" when the build check passes.
func unverifiedBuild(b *protocol.BuildResult) string {
	if b == nil {
		return ""
	}
	var reason string
	switch b.Status {
	case "failed":
		reason = "the build failed"
	case "not_verified":
		reason = "the build was not run (not_verified)"
	default:
		return ""
	}
	if b.Command != "" {
		reason += " (" + b.Command + ")"
	}
	if out := strings.TrimSpace(b.Output); out != "" {
		reason += ": " + lastRunes(out, 500)
	}
	return reason
}

// mailReprompt asks a developer of a mailbox run for a corrected
// completion_report, saying what was wrong with the last one.
func mailReprompt(problem string, d protocol.Delimiters) string {
	if d.Start == "" || d.End == "" {
		d = protocol.Delimiters{Start: protocol.DefaultStart, End: protocol.DefaultEnd}
	}
	return "Baton cannot use your completion report: " + strings.TrimSuffix(problem, ".") + ".\nSend a corrected completion_report: append it to " +
		".claude-orchestrator/tasks/messages/to-team-lead.json and end your reply with the same object between " +
		d.Start + " and " + d.End + `. It needs "type": "completion_report", "taskId", ` +
		`"platform", "status": "awaiting_review", "summary", "filesCreated", "filesModified", "buildResult" ` +
		`({"status": "success" | "failed" | "not_applicable" | "not_verified", "command", "errors", "output"}) and ` +
		`"timestamp", the current time in ISO 8601 such as "2025-01-31T14:05:00Z".`
}
