package workflows

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/baton-app/baton/backend/mailbox"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/skills"
	"github.com/baton-app/baton/backend/store"
)

// Seed 001's messages as the seed defines them: a task_assignment names the
// files to create (the task's expected outputs) and the architecture to
// follow (the run's ARCHITECTURE, else the planner's for the task, else the
// project's summary); a completion report is checked by the same rules whichever way it
// came (to-team-lead.json or the developer's session), so a report without
// a build result or a timestamp is refused both ways.

// assignment is the task_assignment of task t.
func assignment(t *store.Task, platform, architecture, cwd string) mailbox.TaskAssignment {
	var def protocol.Task
	_ = json.Unmarshal(t.Definition, &def)
	files := append([]string{}, def.ExpectedOutputs...)
	arch := strings.TrimSpace(architecture)
	if arch == "" {
		arch = strings.TrimSpace(def.Architecture)
	}
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

// mailReprompt asks a developer of a mailbox run for a corrected
// completion_report, saying what was wrong with the last one.
func mailReprompt(taskID, problem string, d protocol.Delimiters) string {
	if d.Start == "" || d.End == "" {
		d = protocol.Delimiters{Start: protocol.DefaultStart, End: protocol.DefaultEnd}
	}
	return "Baton cannot use your completion report: " + strings.TrimSuffix(problem, ".") + ".\nSend a corrected completion_report: append it to " +
		".claude-orchestrator/tasks/messages/to-team-lead.json and end your reply with the same object between " +
		d.Start + " and " + d.End + `. It needs "type": "completion_report", "taskId": ` + strconv.Quote(taskID) + ` (your task's id), ` +
		`"platform", "status": "awaiting_review", "summary", "filesCreated", "filesModified", "buildResult" ` +
		`({"status": "success" | "failed" | "not_applicable" | "not_verified", "command", "errors", "output"}) and ` +
		`"timestamp", the current time in ISO 8601 such as "2025-01-31T14:05:00Z".`
}
