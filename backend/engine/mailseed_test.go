package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/baton-app/baton/backend/mailbox"
	"github.com/baton-app/baton/backend/template"
)

// reportBlock is a seed 001 completion_report in a block, as a developer
// ends its reply with it; build nil leaves buildResult out.
func reportBlock(task string, build map[string]any, timestamp string) string {
	m := map[string]any{"type": "completion_report", "taskId": task, "platform": "web", "status": "awaiting_review",
		"summary": "Built " + task, "filesCreated": []string{"src/a.ts"}, "filesModified": []string{}}
	if build != nil {
		m["buildResult"] = build
	}
	if timestamp != "" {
		m["timestamp"] = timestamp
	}
	b, _ := json.Marshal(m)
	return startDelim + "\n" + string(b) + "\n" + endDelim
}

// Seed 001, one validation for both paths: a report in the developer's
// session without buildResult and timestamp (here a plain completion
// block) is refused as the mailbox file
// would refuse it (and the developer asked again), not stored empty and
// approved; a build that was not run (not_verified) is rejected under
// requireBuildSuccess; a verified build is approved.
func TestSessionReportFollowsTheMailboxRules(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil})
	var mu sync.Mutex
	turns := 0
	worker := func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
		writeOutput(s.opts.Cwd, "src/a.ts", "export {}\n")
		mu.Lock()
		turns++
		n := turns
		mu.Unlock()
		switch n {
		case 1: // a plain completion block: no build result, no timestamp
			s.say(block("completion", map[string]any{"task_id": task, "status": "success", "summary": "Built " + task}))
		case 2: // asked again: a build that was not run
			s.say(reportBlock(task, map[string]any{"status": "not_verified", "command": "npm run build", "errors": 0,
				"output": "no node here"}, "2026-11-24T17:00:00.000Z"))
		default:
			s.say(reportBlock(task, map[string]any{"status": "success", "command": "npm run build", "errors": 0},
				"2026-11-24T17:05:00Z"))
		}
		s.endTurn(h)
		return true
	}
	var reviewed []string
	agent := reviewing(scripted(tasks, worker), func(task string, n int, prompt string) (string, string) {
		mu.Lock()
		reviewed = append(reviewed, prompt)
		mu.Unlock()
		return "approved", "fine"
	})
	h := newHarness(t, testTemplate(func(tp *template.Template) {
		tp.Config.Transport = TransportMailbox
		tp.Phases.Review = template.ReviewGate{Enabled: true, Reviewer: "orchestrator", RequireBuildSuccess: true}
		tp.Prompts.Review = template.Prompt{User: "ASK review {TASK_ID}\n{COMPLETION_REPORT}"}
	}), agent, true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed" || run.TasksCompleted != 1 {
		t.Fatalf("run = %s %d/%d: %s", run.Status, run.TasksCompleted, run.TasksTotal, run.Error)
	}
	h.host.mu.Lock()
	var again string
	for _, s := range h.host.sends {
		if strings.Contains(s, "Baton cannot use your completion report") {
			again = s
		}
	}
	h.host.mu.Unlock()
	if !strings.Contains(again, "buildResult: required field is missing") || !strings.Contains(again, "timestamp") {
		t.Errorf("the developer is not told why its session report was refused: %q", again)
	}
	if n := h.rec.count(EventWorkerRejected); n != 1 {
		t.Errorf("%d rejections, want 1 (the not_verified build)", n)
	}
	if ps := workerPrompts(h.host, "task_001"); len(ps) != 2 || !strings.Contains(ps[1], "the build was not run (not_verified)") {
		t.Errorf("the retry after the rejection is not told the unverified build: %q", ps)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reviewed) != 1 || !strings.Contains(reviewed[0], `"status":"success"`) || !strings.Contains(reviewed[0], "2026-11-24T17:05:00Z") {
		t.Errorf("the reviewer saw %d reports, want only the verified one with its timestamp: %q", len(reviewed), reviewed)
	}
}

// Seed 001's task_assignment: filesToCreate lists the files to create (the
// task's expected outputs, not its scope), and architecture is filled: the
// planner's context for the task, else what the project's files say.
func TestAssignmentFieldsAsTheSeedDefinesThem(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil}, planned{"task_002", 4, nil}, planned{"task_003", 3, nil})
	tasks[0]["expected_outputs"] = []string{"src/profile.ts", "src/profile.test.ts"}
	tasks[0]["context"] = "Routes live in src/routes, one file per resource."
	// The team-review planning prompt asks for an architecture per task.
	tasks[2]["expected_outputs"] = []string{"src/cart.ts"}
	tasks[2]["architecture"] = "A service in src/services behind the Cart interface."
	tasks[2]["context"] = "Some other context."
	h := newHarness(t, testTemplate(func(tp *template.Template) {
		tp.Config.Transport = TransportMailbox
	}), scripted(tasks, nil), true)
	if err := os.WriteFile(filepath.Join(h.dir, "go.mod"), []byte("module example.com/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	h.wait(id)
	b, err := os.ReadFile(filepath.Join(h.dir, mailbox.DirName, filepath.FromSlash(mailbox.ToDeveloper)))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Messages []mailbox.TaskAssignment `json:"messages"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	got := map[string]mailbox.TaskAssignment{}
	for _, a := range f.Messages {
		got[a.TaskID] = a
	}
	a1, a2, a3 := got["task_001"], got["task_002"], got["task_003"]
	if strings.Join(a3.FilesToCreate, ",") != "src/cart.ts" || a3.Architecture != "A service in src/services behind the Cart interface." {
		t.Errorf("task_003 assignment = %+v, want the planner's architecture", a3)
	}
	if strings.Join(a1.FilesToCreate, ",") != "src/profile.ts,src/profile.test.ts" ||
		a1.Architecture != "Routes live in src/routes, one file per resource." {
		t.Errorf("task_001 assignment = %+v", a1)
	}
	if a2.FilesToCreate == nil || len(a2.FilesToCreate) != 0 || !strings.Contains(a2.Architecture, "go") ||
		!strings.Contains(a2.Architecture, "go.mod") {
		t.Errorf("task_002 assignment = %+v, want no files to create (not its scope) and the project's architecture", a2)
	}
}
