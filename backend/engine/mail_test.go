package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/mailbox"
	"github.com/baton-app/baton/backend/template"
)

func TestMailboxTransport(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil})
	assigned := make(chan string, 4)
	worker := func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
		writeOutput(s.opts.Cwd, "src/a.ts", "export {}\n")
		dir := filepath.Join(s.opts.Cwd, mailbox.DirName)
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(mailbox.ToDeveloper)))
		if err != nil {
			t.Errorf("read the assignments: %v", err)
		}
		assigned <- string(b)
		build := "failed"
		if strings.Contains(s.opts.Message, "rejected") {
			build = "success"
		}
		// The developer reports only in the mailbox file and goes on.
		var f struct {
			Messages []json.RawMessage `json:"messages"`
			LastRead any               `json:"lastRead"`
		}
		path := filepath.Join(dir, filepath.FromSlash(mailbox.ToTeamLead))
		if old, err := os.ReadFile(path); err == nil && len(old) > 0 {
			_ = json.Unmarshal(old, &f)
		}
		msg, _ := json.Marshal(map[string]any{"type": "completion_report", "taskId": task, "platform": "web",
			"status": "awaiting_review", "summary": "Built " + task, "filesCreated": []string{"src/a.ts"},
			"filesModified": []string{}, "buildResult": map[string]any{"status": build, "command": "npm run build", "errors": 0},
			"timestamp": "2026-11-22T07:00:00Z"})
		f.Messages = append(f.Messages, msg)
		out, _ := json.Marshal(f)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Errorf("write the report: %v", err)
		}
		s.tool("Read", map[string]any{"file_path": path})
		return true
	}
	agent := reviewing(scripted(tasks, worker), func(task string, n int, prompt string) (string, string) {
		return "approved", "fine"
	})
	h := newHarness(t, testTemplate(func(tp *template.Template) {
		tp.Config.Transport = TransportMailbox
		tp.Phases.Review = template.ReviewGate{Enabled: true, Reviewer: "orchestrator", RequireBuildSuccess: true}
		tp.Prompts.Review = template.Prompt{User: "ASK review {TASK_ID}\n{COMPLETION_REPORT}"}
	}), agent, true)
	run, err := h.eng.Create(context.Background(), CreateRequest{TemplateID: "test", Cwd: h.dir, Request: "Build it",
		Variables: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.eng.Start(context.Background(), run.ID); err != nil {
		t.Fatal(err)
	}
	got := h.wait(run.ID)
	if got.Status != "completed" || got.TasksCompleted != 1 {
		t.Fatalf("run = %s %d/%d: %s %s", got.Status, got.TasksCompleted, got.TasksTotal, got.Message, got.Error)
	}
	first := <-assigned
	if !strings.Contains(first, `"task_assignment"`) || !strings.Contains(first, `"task_001"`) {
		t.Errorf("to-developer.json at the first start = %s", first)
	}
	if second := <-assigned; !strings.Contains(second, "previousRejection") || !strings.Contains(second, "the build failed") {
		t.Errorf("to-developer.json at the retry lacks the rejection: %s", second)
	}
	w := h.workers(run.ID)["task_001"]
	if w.RetryCount != 1 || w.Summary != "Built task_001" || len(w.OutputFiles) != 1 {
		t.Errorf("worker = %+v", w)
	}
	q, err := os.ReadFile(filepath.Join(h.dir, mailbox.DirName, filepath.FromSlash(mailbox.QueueFile)))
	if err != nil || !strings.Contains(string(q), `"completed"`) {
		t.Errorf("queue.json = %s, %v", q, err)
	}
	log, err := os.ReadFile(filepath.Join(h.dir, mailbox.DirName, filepath.FromSlash(mailbox.LogFile)))
	if err != nil || !strings.Contains(string(log), "task_001: approved") || !strings.Contains(string(log), "rejected") {
		t.Errorf("log.md = %s, %v", log, err)
	}
}

// A developer's report that reaches the mailbox before the worker's session
// has finished starting is taken once the worker runs, not dropped.
func TestMailboxReportBeforeTheStartReturns(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil})
	worker := func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
		writeOutput(s.opts.Cwd, "src/a.ts", "export {}\n")
		msg, _ := json.Marshal(map[string]any{"messages": []any{map[string]any{"type": "completion_report", "taskId": task,
			"platform": "web", "status": "awaiting_review", "summary": "Built " + task, "filesCreated": []string{"src/a.ts"},
			"filesModified": []string{}, "buildResult": map[string]any{"status": "success", "command": "make", "errors": 0},
			"timestamp": "2026-11-22T07:00:00Z"}}})
		path := filepath.Join(s.opts.Cwd, mailbox.DirName, filepath.FromSlash(mailbox.ToTeamLead))
		if err := os.WriteFile(path, msg, 0o644); err != nil {
			t.Errorf("write the report: %v", err)
		}
		return true // the session's turn goes on; the report is in the mailbox
	}
	h := newHarness(t, testTemplate(func(tp *template.Template) {
		tp.Config.Transport = TransportMailbox
		tp.Phases.Aggregation.Enabled = false
	}), scripted(tasks, worker), true)
	// The report is written inside Start, long before Start returns.
	h.host.startDelay = 300 * time.Millisecond
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed" || run.TasksCompleted != 1 {
		t.Fatalf("run = %s %d/%d: %s", run.Status, run.TasksCompleted, run.TasksTotal, run.Error)
	}
	if w := h.workers(id)["task_001"]; w.Summary != "Built task_001" {
		t.Errorf("task_001 summary %q", w.Summary)
	}
}

// A developer who reports only in its session (no message in
// to-team-lead.json) still moves its task in queue.json: awaiting review,
// then completed when the reviewer approves.
func TestMailboxFollowsReportsInTheTranscript(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil})
	worker := func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
		writeOutput(s.opts.Cwd, "src/a.ts", "export {}\n")
		s.say(reportBlock(task, map[string]any{"status": "success", "command": "make", "errors": 0}, "2026-11-24T17:00:00Z"))
		s.endTurn(h)
		return true
	}
	agent := reviewing(scripted(tasks, worker), func(task string, n int, prompt string) (string, string) {
		return "approved", "fine"
	})
	h := newHarness(t, testTemplate(func(tp *template.Template) {
		tp.Config.Transport = TransportMailbox
		tp.Phases.Review = template.ReviewGate{Enabled: true, Reviewer: "orchestrator"}
		tp.Prompts.Review = template.Prompt{User: "ASK review {TASK_ID}\n{COMPLETION_REPORT}"}
	}), agent, true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if run := h.wait(id); run.Status != "completed" || run.TasksCompleted != 1 {
		t.Fatalf("run = %s %d/%d: %s", run.Status, run.TasksCompleted, run.TasksTotal, run.Error)
	}
	var q mailbox.Queue
	data, err := os.ReadFile(filepath.Join(h.dir, mailbox.DirName, filepath.FromSlash(mailbox.QueueFile)))
	if err != nil || json.Unmarshal(data, &q) != nil || len(q.Tasks) != 1 || q.Tasks[0].State != mailbox.Completed || q.Run != id {
		t.Fatalf("queue.json = %s (%v)", data, err)
	}
	log, _ := os.ReadFile(filepath.Join(h.dir, mailbox.DirName, filepath.FromSlash(mailbox.LogFile)))
	if !strings.Contains(string(log), "task_001: completion report in the session") || !strings.Contains(string(log), "task_001: approved") {
		t.Errorf("log.md = %s", log)
	}
}
