package workflows

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/mailbox"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// A run whose template switches nothing on: every call does nothing, no
// writer goroutine starts, and no report comes.
func TestSeedsOff(t *testing.T) {
	t.Parallel()
	s := Open(Run{ID: "orch_off", Cwd: t.TempDir(), Log: quiet})
	defer s.Close()
	tasks := []store.Task{{ID: "a", Title: "Add tests"}}
	if note := s.Planned(tasks); note != "" || tasks[0].Skills != nil {
		t.Errorf("planned: %q, skills %v", note, tasks[0].Skills)
	}
	s.Confirmed(tasks)
	if err := s.Assign(context.Background(), &tasks[0]); err != nil {
		t.Error(err)
	}
	if secs := s.Sections(&tasks[0]); len(secs) != 0 {
		t.Errorf("sections: %q", secs)
	}
	if err := s.CheckReport("a", &protocol.Completion{Status: "success"}); err != nil {
		t.Errorf("a report without the mailbox refused: %v", err)
	}
	if s.Reprompt("task_001", "x") != "" || s.Completed() != "" || s.Reports() != nil {
		t.Error("a workflow that is off said something")
	}
	s.Finished("a", true, Done{})
	s.Skipped([]string{"a"})
	s.Flush()
	if s.w.started {
		t.Error("the writer started for workflows that are off")
	}
}

// The file mailbox: the assignment is written before the worker starts,
// a report that breaks the mailbox's rules is refused with words that say
// what a corrected one needs, and a report appended to to-team-lead.json
// reaches the run as a completion.
func TestSeedsMailbox(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := Open(Run{ID: "orch_mail", Cwd: dir, Config: template.Config{Transport: TransportMailbox, MaxRetries: 2},
		Values: map[string]any{"PLATFORM": "web"}, Delimiters: protocol.Delimiters{Start: "<<<", End: ">>>"}, Log: quiet})
	defer s.Close()
	task := store.Task{ID: "task_001", Title: "Login page", Description: "Build it."}
	if err := s.Assign(context.Background(), &task); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, mailbox.DirName, filepath.FromSlash(mailbox.ToDeveloper)))
	if err != nil || !strings.Contains(string(b), `"taskId": "task_001"`) || !strings.Contains(string(b), `"platform": "web"`) {
		t.Fatalf("assignment: %s, %v", b, err)
	}
	err = s.CheckReport("task_001", &protocol.Completion{TaskID: "task_001", Status: "success", Summary: "done"})
	if err == nil {
		t.Fatal("a report without build result or timestamp was taken")
	}
	if r := s.Reprompt("task_001", err.Error()); !strings.Contains(r, "to-team-lead.json") || !strings.Contains(r, "between <<< and >>>") ||
		!strings.Contains(r, `"taskId": "task_001" (your task's id)`) {
		t.Errorf("reprompt: %q", r)
	}
	if err := s.CheckReport("task_001", &protocol.Completion{Status: "failed"}); err != nil {
		t.Errorf("a failure was refused: %v", err)
	}

	// The developer appends the report to to-team-lead.json.
	msg, err := json.Marshal(map[string]any{"type": "completion_report", "taskId": "task_001", "platform": "web",
		"status": "awaiting_review", "summary": "Login page built", "filesCreated": []string{"login.html"},
		"filesModified": []string{}, "buildResult": map[string]any{"status": "success", "command": "make", "errors": 0},
		"timestamp": "2026-01-31T14:05:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(map[string]any{"messages": []json.RawMessage{msg}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, mailbox.DirName, filepath.FromSlash(mailbox.ToTeamLead)), out, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-s.Reports():
		if got.TaskID != "task_001" || got.Err != nil || got.Completion == nil || got.Completion.Summary != "Login page built" ||
			got.Completion.Build == nil || got.Completion.Build.Command != "make" {
			t.Errorf("report = %+v", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the mailbox's report never came")
	}
}
