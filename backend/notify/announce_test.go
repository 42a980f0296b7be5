package notify

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/store"
)

type recordingSender struct {
	mu   sync.Mutex
	sent []Notification
	got  chan struct{}
}

func (r *recordingSender) Notify(ctx context.Context, n Notification) error {
	r.mu.Lock()
	r.sent = append(r.sent, n)
	r.mu.Unlock()
	r.got <- struct{}{}
	return nil
}

func TestAnnouncer(t *testing.T) {
	t.Parallel()
	run := &store.Run{ID: "orch_1", TemplateName: "Documentation", Request: "Document the REST API", TasksTotal: 4, TasksCompleted: 3, TasksFailed: 1}
	resumes := time.Date(2026, 11, 24, 16, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		event       string
		payload     engine.Payload
		wantSummary string
		wantBody    string
		urgency     Urgency
	}{
		{"finished with a failure", engine.EventCompleted, engine.Payload{RunID: "orch_1", Status: "completed", Run: run},
			"Run finished: Documentation — Document the REST API", "3 of 4 tasks completed, 1 failed, 0 skipped.", UrgencyCritical},
		{"completed with issues", engine.EventCompleted, engine.Payload{RunID: "orch_1", Status: "completed_with_issues",
			Run: &store.Run{ID: "orch_1", TemplateName: "Documentation", Request: "Document the REST API", Status: "completed_with_issues", TasksTotal: 2, TasksCompleted: 2,
				Issues: []string{"2 conflicts are still open: a; b."}}},
			"Run completed with issues: Documentation — Document the REST API", "2 of 2 tasks completed. 2 conflicts are still open: a; b.", UrgencyCritical},
		{"failed", engine.EventCompleted, engine.Payload{RunID: "orch_1", Status: "failed",
			Run: &store.Run{ID: "orch_1", TemplateName: "Documentation", Request: "Document the REST API", Status: "failed", TasksTotal: 3, TasksFailed: 3,
				Issues: []string{"None of the 3 tasks completed.", "3 of 3 tasks failed: a, b, c.", "The aggregation failed."}}},
			"Run failed: Documentation — Document the REST API", "0 of 3 tasks completed, 3 failed, 0 skipped. None of the 3 tasks completed. 3 of 3 tasks failed: a, b, c. (1 more in the run's report)", UrgencyCritical},
		{"stopped on an error", engine.EventError, engine.Payload{RunID: "orch_1", Status: "error", Message: "the main session did not answer"},
			"Run stopped: Documentation — Document the REST API", "the main session did not answer", UrgencyCritical},
		{"worker waits", engine.EventWorkerWaiting, engine.Payload{RunID: "orch_1", TaskID: "task_002", Message: "waiting for permission to use Bash",
			Worker: &store.Worker{TaskID: "task_002", Waiting: &store.Permission{RequestID: "r1", ToolName: "Bash", Input: []byte(`{"command":"rm -rf build"}`)}}},
			"A worker needs you: Documentation — Document the REST API", "task_002 waits for your answer: Bash rm -rf build", UrgencyCritical},
		{"worker asks", engine.EventWorkerQuestion, engine.Payload{RunID: "orch_1", TaskID: "task_003", Message: "Which database?"},
			"A worker needs you: Documentation — Document the REST API", "task_003 waits for your answer: a question: Which database?", UrgencyCritical},
		{"tasks to review", engine.EventTasksReady, engine.Payload{RunID: "orch_1", Status: "confirming"},
			"Tasks to review: Documentation — Document the REST API", "The plan is ready", UrgencyNormal},
		{"limit", engine.EventLimitWaiting, engine.Payload{RunID: "orch_1", Status: "running", ResumesAt: &resumes, Message: "task_001: usage limit"},
			"Limit reached: Documentation — Document the REST API", "Waiting for the limit, resumes at " + resumes.Local().Format("15:04"), UrgencyNormal},
		{"limit due", engine.EventLimitDue, engine.Payload{RunID: "orch_1", Status: "running"},
			"Limit reset: Documentation — Document the REST API", "The run waits for you: Resume now in the Inbox", UrgencyCritical},
		{"budget warning", engine.EventBudgetWarning, engine.Payload{RunID: "orch_1", Status: "running", Message: "80 % of the budget used ($4.00 of $5.00)"},
			"Budget almost used: Documentation — Document the REST API", "80 % of the budget used", UrgencyNormal},
		{"budget reached", engine.EventBudgetReached, engine.Payload{RunID: "orch_1", Status: "paused", Message: "the budget is used up"},
			"Budget used up, run paused: Documentation — Document the REST API", "the budget is used up", UrgencyCritical},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &recordingSender{got: make(chan struct{}, 4)}
			a := newAnnouncer(s, nil, time.Millisecond)
			defer a.Close()
			a.Emit(engine.EventStarted, engine.Payload{RunID: "orch_1", Status: "analyzing", Run: run})
			a.Emit(engine.EventWorkerProgress, engine.Payload{RunID: "orch_1"}) // says nothing
			a.Emit(tt.event, tt.payload)
			select {
			case <-s.got:
			case <-time.After(10 * time.Second):
				t.Fatal("no notification was sent")
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if len(s.sent) != 1 {
				t.Fatalf("sent %d notifications, want 1: %+v", len(s.sent), s.sent)
			}
			n := s.sent[0]
			if n.Summary != tt.wantSummary || !strings.HasPrefix(n.Body, tt.wantBody) || n.RunID != "orch_1" || n.Urgency != tt.urgency {
				t.Fatalf("sent %+v, want summary %q body %q urgency %d", n, tt.wantSummary, tt.wantBody, tt.urgency)
			}
		})
	}
}

func TestAnnouncerIgnoresTaskListsNotWaiting(t *testing.T) {
	t.Parallel()
	s := &recordingSender{got: make(chan struct{}, 4)}
	a := NewAnnouncer(s, nil)
	// Auto-confirmed: the list is ready but the run already spawns workers.
	a.Emit(engine.EventTasksReady, engine.Payload{RunID: "orch_2", Status: "spawning"})
	a.Close()
	if len(s.sent) != 0 {
		t.Fatalf("sent %+v for a task list nobody has to review", s.sent)
	}
}

func TestRunName(t *testing.T) {
	t.Parallel()
	if got := RunName("Code review", "  Review   the\nparser "); got != "Code review — Review the parser" {
		t.Fatalf("RunName = %q", got)
	}
	if got := RunName("", strings.Repeat("x", 80)); len([]rune(got)) != 60 || !strings.HasSuffix(got, "…") {
		t.Fatalf("long request not shortened: %q", got)
	}
}

// waitingFor is a worker:permission event of task in run: waiting for a
// prompt (tool) or, with tool "", answered.
func waitingFor(run, task, tool string) (string, engine.Payload) {
	w := &store.Worker{TaskID: task}
	msg := "permission answered: once"
	if tool != "" {
		w.Waiting = &store.Permission{RequestID: "req-" + task, ToolName: tool, Input: []byte(`{"command":"go test ./..."}`)}
		msg = "waiting for permission to use " + tool
	}
	return engine.EventWorkerWaiting, engine.Payload{RunID: run, TaskID: task, Status: "running", Message: msg, Worker: w}
}

// The notifications about workers that wait for the user follow the rules:
// nothing for an answered prompt, one for prompts that come together (their
// run, or the Inbox for several runs), none for a prompt answered before
// they were sent.
func TestAnnouncerNeedsYouRules(t *testing.T) {
	t.Parallel()
	named := func(a *Announcer) {
		a.Emit(engine.EventStarted, engine.Payload{RunID: "orch_1", Run: &store.Run{ID: "orch_1", TemplateName: "Docs", Request: "Document it"}})
		a.Emit(engine.EventStarted, engine.Payload{RunID: "orch_2", Run: &store.Run{ID: "orch_2", TemplateName: "Tests", Request: "Test it"}})
	}
	tests := []struct {
		name   string
		events [][2]string // the run and task of each prompt
		answer []string    // tasks answered before the notification goes
		// progress: tasks whose progress (tokens, tools) comes before the
		// notification goes, without an answer.
		progress []string
		want     []Notification
	}{
		{"an answered prompt says nothing", nil, []string{"a"}, nil, nil},
		{"one prompt", [][2]string{{"orch_1", "a"}}, nil, nil,
			[]Notification{{Summary: "A worker needs you: Docs — Document it", Body: "a waits for your answer: Bash go test ./...", RunID: "orch_1", Urgency: UrgencyCritical}}},
		{"three prompts of one run", [][2]string{{"orch_1", "a"}, {"orch_1", "b"}, {"orch_1", "c"}}, nil, nil,
			[]Notification{{Summary: "3 workers need you: Docs — Document it", Body: "a, b, c wait for your answer.", RunID: "orch_1", Urgency: UrgencyCritical}}},
		{"prompts of two runs open the Inbox", [][2]string{{"orch_1", "a"}, {"orch_2", "x"}, {"orch_1", "b"}}, nil, nil,
			[]Notification{{Summary: "3 workers need you", Body: "a, x, b wait for your answer, in 2 runs. The Inbox has them all.", Inbox: true, Urgency: UrgencyCritical}}},
		{"a prompt answered meanwhile is left out", [][2]string{{"orch_1", "a"}, {"orch_1", "b"}}, []string{"a"}, nil,
			[]Notification{{Summary: "A worker needs you: Docs — Document it", Body: "b waits for your answer: Bash go test ./...", RunID: "orch_1", Urgency: UrgencyCritical}}},
		{"all answered meanwhile", [][2]string{{"orch_1", "a"}}, []string{"a"}, nil, nil},
		{"progress while it waits is no answer", [][2]string{{"orch_1", "a"}}, nil, []string{"a"},
			[]Notification{{Summary: "A worker needs you: Docs — Document it", Body: "a waits for your answer: Bash go test ./...", RunID: "orch_1", Urgency: UrgencyCritical}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &recordingSender{got: make(chan struct{}, 8)}
			a := newAnnouncer(s, nil, 300*time.Millisecond)
			named(a)
			for _, e := range tt.events {
				a.Emit(waitingFor(e[0], e[1], "Bash"))
			}
			for _, task := range tt.progress {
				a.Emit(engine.EventWorkerProgress, engine.Payload{RunID: "orch_1", TaskID: task, Worker: &store.Worker{TaskID: task}})
			}
			for _, task := range tt.answer {
				a.Emit(waitingFor("orch_1", task, ""))
			}
			// Past the gathering: what was to be sent is sent.
			deadline := time.After(10 * time.Second)
			for range tt.want {
				select {
				case <-s.got:
				case <-deadline:
					t.Fatal("no notification was sent")
				}
			}
			time.Sleep(600 * time.Millisecond)
			a.Close()
			s.mu.Lock()
			defer s.mu.Unlock()
			if len(s.sent) != len(tt.want) {
				t.Fatalf("sent %+v, want %+v", s.sent, tt.want)
			}
			for i := range tt.want {
				if s.sent[i] != tt.want[i] {
					t.Errorf("sent %+v, want %+v", s.sent[i], tt.want[i])
				}
			}
		})
	}
}
