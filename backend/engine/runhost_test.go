package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/session"
)

// identHost is the fake host as a kind of host that says which it is.
type identHost struct {
	*fakeHost
	id session.Identity
}

func (h *identHost) Current() session.Identity {
	return session.Identity{Kind: h.id.Kind, Label: h.id.Label, Short: h.id.Short, Description: h.id.Label}
}
func (h *identHost) Identity(context.Context) (session.Identity, error) { return h.id, nil }

var (
	cliIdentity = session.Identity{Kind: "claude-code", Label: "Claude Code (CLI)", Short: "claude-code", Path: "/opt/claude",
		Version: "2.1.328", Description: "Claude Code CLI 2.1.328 (/opt/claude)"}
	simIdentity = session.Identity{Kind: "simulator", Label: "Simulator — no AI", Short: "sim", Endpoint: "http://127.0.0.1:1/",
		Description: "the embedded simulator"}
)

// hostRun starts a run on the CLI kind whose task_002 works until the test
// stops the engine, with task_001 completed.
func hostRun(t *testing.T) (*harness, string) {
	t.Helper()
	tasks := plan(planned{"task_001", 5, nil}, planned{"task_002", 4, []string{"task_001"}})
	agent := scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		return task == "task_002" && strings.Contains(string(s.id), "_worker_task_002") && !strings.Contains(string(s.id), "-r")
	})
	h := newHarness(t, testTemplate(nil), agent, true)
	h.close()
	h.engineHost = &identHost{fakeHost: h.host, id: cliIdentity}
	h.open()
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	h.until("task_002 running", func() bool {
		w := h.workers(id)
		return w["task_001"].Status == "completed" && w["task_002"].Status == "running"
	})
	return h, id
}

// TestRunRemembersItsHostAndResumesOnlyThere: the run stores the CLI it
// started on; a Baton that now uses the simulator does not take it up at
// restart, and refuses its resume with a sentence naming its host.
func TestRunRemembersItsHostAndResumesOnlyThere(t *testing.T) {
	t.Parallel()
	h, id := hostRun(t)
	run, err := h.st.Run(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if run.Host.Kind != "claude-code" || run.Host.Path != "/opt/claude" || run.Host.Version != "2.1.328" {
		t.Fatalf("stored host = %+v", run.Host)
	}
	h.close()
	h.engineHost = &identHost{fakeHost: newFakeHost(h.host.agent, true), id: simIdentity}
	h.open()
	ctx := context.Background()
	if n, err := h.eng.Restore(ctx); err != nil || n != 0 {
		t.Fatalf("Restore = %d, %v; want the CLI's run left as it is", n, err)
	}
	err = h.eng.RestoreRun(ctx, id)
	var oh *OtherHostError
	if !errors.As(err, &oh) || !errors.Is(err, ErrOtherHost) {
		t.Fatalf("RestoreRun on the simulator = %v", err)
	}
	for _, want := range []string{"ran on Claude Code CLI 2.1.328 (/opt/claude)", "now uses Simulator — no AI",
		"Choose Claude Code (CLI) in Settings", "baton run --resume " + id + " --host sim"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q does not say %q", err, want)
		}
	}
	if err := h.eng.Resume(ctx, id); !errors.Is(err, ErrOtherHost) {
		t.Errorf("Resume on the simulator = %v", err)
	}
	if started := len(h.engineHost.(*identHost).starts); started != 0 {
		t.Errorf("the simulator started %d sessions for a run of the CLI", started)
	}
	// Back on the CLI, it goes on where it was.
	h.close()
	h.engineHost = &identHost{fakeHost: h.host, id: cliIdentity}
	h.open()
	if n, err := h.eng.Restore(ctx); err != nil || n != 1 {
		t.Fatalf("Restore on the CLI = %d, %v", n, err)
	}
	w := h.workers(id)["task_002"]
	h.host.finishTurn(session.ID(w.SessionID), block("completion", map[string]any{"task_id": "task_002", "status": "success", "summary": "ok"}))
	if run := h.wait(id); run.Status != "completed" {
		t.Errorf("run = %s: %v", run.Status, run.Issues)
	}
}

// TestMoveRunSaysWhatStaysAndWhatStartsAgain: moved to the simulator on
// purpose, the run keeps task_001 and its report, starts task_002 and the
// main session again there, and finishes.
func TestMoveRunSaysWhatStaysAndWhatStartsAgain(t *testing.T) {
	t.Parallel()
	h, id := hostRun(t)
	h.close()
	sim := &identHost{fakeHost: newFakeHost(h.host.agent, true), id: simIdentity}
	h.engineHost = sim
	h.open()
	ctx := context.Background()
	mv, err := h.eng.MoveRun(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(mv.Kept, ",") != "task_001" || strings.Join(mv.Restarted, ",") != "task_002" || !mv.Main {
		t.Errorf("move = %+v", mv)
	}
	for _, want := range []string{"The run moved from Claude Code CLI 2.1.328 (/opt/claude) to the embedded simulator.",
		"1 completed task (task_001) and its report stay.", "Starting again there in new sessions: 1 task (task_002) and the main session"} {
		if !strings.Contains(mv.Message, want) {
			t.Errorf("move message %q lacks %q", mv.Message, want)
		}
	}
	run := h.wait(id)
	if run.Status != "completed" || run.TasksCompleted != 2 {
		t.Fatalf("run = %s %d: %v %s", run.Status, run.TasksCompleted, run.Issues, run.Error)
	}
	if run.Host.Kind != "simulator" {
		t.Errorf("the run's host after the move = %+v", run.Host)
	}
	starts := sim.workerStarts()
	if starts["task_001"] != 0 || starts["task_002"] != 1 {
		t.Errorf("sessions started on the simulator: %v", starts)
	}
	if w := h.workers(id)["task_002"]; w.RetryCount != 1 || strings.Contains(w.Error, "moved") {
		t.Errorf("task_002 = %+v", w)
	}
	if got := h.rec.count(EventHostMoved); got != 1 {
		t.Errorf("%d host-moved events", got)
	}
}
