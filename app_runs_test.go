package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/claude"
	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/hosts"
	"github.com/baton-app/baton/backend/inbox"
	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/simulator"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/testsupport"
	"github.com/baton-app/baton/backend/view"
)

// oneTemplate gives every run the same template.
type oneTemplate struct{ t template.Template }

func (o oneTemplate) Get(string) (template.Template, error) { return o.t, nil }

// deadHost is a session host that cannot be reached.
type deadHost struct{}

var errDeadHost = errors.New("no session host in this test")

func (deadHost) Start(context.Context, session.StartOptions) (session.ID, error) {
	return "", errDeadHost
}
func (deadHost) Send(context.Context, session.ID, string) error { return errDeadHost }
func (deadHost) Read(context.Context, session.ID, session.Cursor) (session.Batch, error) {
	return session.Batch{}, errDeadHost
}
func (deadHost) Session(context.Context, session.ID) (session.Info, error) {
	return session.Info{}, errDeadHost
}
func (deadHost) Interrupt(context.Context, session.ID) error { return errDeadHost }
func (deadHost) Archive(context.Context, session.ID) error   { return errDeadHost }
func (deadHost) Notices() <-chan session.Notice              { return nil }

// sampleProject writes a small Go project for the simulated agent to work on.
func sampleProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":          "module example.com/sample\n\ngo 1.22\n",
		"README.md":       "# Sample\n\nA small program.\n",
		"cmd/app/main.go": "package main\n\nfunc main() { println(\"hi\") }\n",
		"store/store.go":  "package store\n\n// Get returns a value.\nfunc Get() int { return 1 }\n",
	}
	testsupport.WriteTree(t, dir, files)
	return dir
}

// TestReviewAndClarificationBindings drives a run through the simulator
// (real Chromium, the Claude Desktop adapter) in which every worker first
// asks a question and the user reviews every task: the bindings answer and
// review, and refuse bad input with a sentence that changes nothing.
func TestReviewAndClarificationBindings(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium; skipped with -short")
	}
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		t.Fatalf("Chromium is needed at /usr/bin/chromium: %v", err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	host, _, err := hosts.StartSimulator(ctx, simulator.InstanceOptions{ChromePath: "/usr/bin/chromium",
		Rules:     map[string]string{"_worker_": "clarification"},
		Simulator: simulator.Options{Speed: 50, Logger: quiet}}, claude.Options{Logger: quiet})
	if err != nil {
		t.Fatalf("start the simulator: %v", err)
	}
	defer func() {
		sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer scancel()
		if err := host.Close(sctx); err != nil {
			t.Errorf("close the simulator: %v", err)
		}
	}()

	dir := t.TempDir()
	tm, err := template.New(filepath.Join(dir, "templates"), template.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := tm.Get("documentation")
	if err != nil {
		t.Fatal(err)
	}
	tmpl.Config.AutoConfirm = true
	tmpl.Phases.Review = template.ReviewGate{Enabled: true, Reviewer: engine.ReviewerUser}
	st, err := store.Open(filepath.Join(dir, "baton.db"), store.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eng, err := engine.New(engine.Options{Store: st, Host: host, Templates: oneTemplate{tmpl}, Logger: quiet, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer scancel()
		if err := eng.Shutdown(sctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	}()
	a := NewApp(Services{Runs: service.NewRuns(eng, st, nil), Templates: tm})
	run, err := eng.Create(ctx, engine.CreateRequest{TemplateID: "documentation", Cwd: sampleProject(t), Request: "Document this project"})
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Start(ctx, run.ID); err != nil {
		t.Fatal(err)
	}

	// refused checks that a call fails with the sentence want and that the
	// worker did not change.
	refused := func(what string, call func() error, taskID, want string) {
		t.Helper()
		before := workerOf(ctx, t, eng, run.ID, taskID)
		err := call()
		if err == nil || err.Error() != want {
			t.Fatalf("%s: error %v, want %q", what, err, want)
		}
		if after := workerOf(ctx, t, eng, run.ID, taskID); !reflect.DeepEqual(before, after) {
			t.Fatalf("%s changed the worker:\n%+v\n%+v", what, before, after)
		}
	}

	asked, reviewed := map[string]bool{}, map[string]bool{}
	rejected := ""
	for {
		snap, err := eng.Snapshot(ctx, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		if store.Finished(snap.Run.Status) {
			break
		}
		items, err := a.Inbox()
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range snap.Workers {
			switch {
			case len(w.Questions) > 0:
				if !asked[w.TaskID] {
					// The first time: the inbox lists the questions; bad input is refused.
					asked[w.TaskID] = true
					if !hasItem(items, inbox.KindQuestion, w.TaskID, strings.Join(w.Questions, "\n")) {
						t.Errorf("the inbox lacks the questions of %s: %+v", w.TaskID, items)
					}
					refused("an empty answer", func() error { return a.AnswerClarification(run.ID, w.TaskID, "  \n") }, w.TaskID,
						"Type your answer to the worker's questions.")
					refused("a review of a worker that asks", func() error { return a.ReviewTask(run.ID, w.TaskID, true, "") }, w.TaskID,
						"Worker "+w.TaskID+" is running, not awaiting review.")
				}
				if err := a.AnswerClarification(run.ID, w.TaskID, "Markdown, please."); err != nil {
					t.Fatalf("AnswerClarification %s: %v", w.TaskID, err)
				}
			case w.Status == "awaiting_review":
				if !reviewed[w.TaskID] {
					reviewed[w.TaskID] = true
					if !hasItem(items, inbox.KindTaskReview, w.TaskID, w.Summary) {
						t.Errorf("the inbox lacks the review of %s: %+v", w.TaskID, items)
					}
					refused("a rejection without a reason", func() error { return a.ReviewTask(run.ID, w.TaskID, false, " ") }, w.TaskID,
						"Say why you reject the task: the worker gets the reason for its next attempt.")
					refused("an answer to a worker without questions", func() error { return a.AnswerClarification(run.ID, w.TaskID, "Yes") }, w.TaskID,
						"Worker "+w.TaskID+" is awaiting_review and has no open question.")
				}
				if rejected == "" {
					rejected = w.TaskID
					if err := a.ReviewTask(run.ID, w.TaskID, false, "Add an example."); err != nil {
						t.Fatalf("ReviewTask reject %s: %v", w.TaskID, err)
					}
					continue
				}
				if err := a.ReviewTask(run.ID, w.TaskID, true, ""); err != nil {
					t.Fatalf("ReviewTask approve %s: %v", w.TaskID, err)
				}
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the run did not finish: %s %s", snap.Run.Status, snap.Run.Message)
		case <-time.After(20 * time.Millisecond):
		}
	}
	snap, err := eng.Snapshot(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Run.Status != "completed" || snap.Run.TasksTotal == 0 || snap.Run.TasksCompleted != snap.Run.TasksTotal {
		t.Fatalf("run %s: %d of %d completed: %s", snap.Run.Status, snap.Run.TasksCompleted, snap.Run.TasksTotal, snap.Run.Error)
	}
	if rejected == "" {
		t.Error("no task was rejected")
	}
	if len(asked) != snap.Run.TasksTotal || len(reviewed) != snap.Run.TasksTotal {
		t.Errorf("%d tasks asked and %d were reviewed, want all %d", len(asked), len(reviewed), snap.Run.TasksTotal)
	}
	for _, w := range snap.Workers {
		if want := map[bool]int{true: 1, false: 0}[w.TaskID == rejected]; w.RetryCount != want {
			t.Errorf("worker %s: %d retries, want %d", w.TaskID, w.RetryCount, want)
		}
	}

	// Unknown tasks and runs, and calls on a finished run.
	for _, tc := range []struct {
		name string
		call func() error
		want string
	}{
		{"review of an unknown run", func() error { return a.ReviewTask("orch_missing", "task_001", true, "") },
			"That run does not exist any more; refresh the list."},
		{"answer to an unknown run", func() error { return a.AnswerClarification("orch_missing", "task_001", "x") },
			"That run does not exist any more; refresh the list."},
		{"review without a task", func() error { return a.ReviewTask(run.ID, " ", true, "") }, "Choose the task to review."},
		{"answer without a task", func() error { return a.AnswerClarification(run.ID, "", "x") }, "Choose the worker to answer."},
		{"review of a finished run", func() error { return a.ReviewTask(run.ID, rejected, true, "") },
			"Run " + run.ID + " is completed and can no longer change."},
	} {
		if err := tc.call(); err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestReviewBindingUnknownTask checks the sentence for a task the run does
// not have, on a run the engine drives, and that nothing changes.
func TestReviewBindingUnknownTask(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _, eng, dir := deadHostApp(t)
	// A created run is driven by the engine and has no workers yet.
	run, err := eng.Create(ctx, engine.CreateRequest{TemplateID: "documentation", Cwd: dir, Request: "Document it"})
	if err != nil {
		t.Fatal(err)
	}
	before, err := eng.Snapshot(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"review", func() error { return a.ReviewTask(run.ID, "task_999", false, "too short") }},
		{"answer", func() error { return a.AnswerClarification(run.ID, "task_999", "Markdown") }},
	} {
		if err := tc.call(); err == nil || err.Error() != "That task is not part of the run; refresh the run." {
			t.Errorf("%s of an unknown task: error %v", tc.name, err)
		}
	}
	after, err := eng.Snapshot(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, after) {
		t.Errorf("refused calls changed the run:\n%+v\n%+v", before, after)
	}
}

// deadHostApp returns the bindings over a real store and templates in a
// temporary folder (also returned) and an engine whose session host cannot
// be reached: what a binding reads and refuses needs no host.
func deadHostApp(t *testing.T) (*App, *store.Store, *engine.Engine, string) {
	t.Helper()
	dir := t.TempDir()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, err := store.Open(filepath.Join(dir, "baton.db"), store.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	tm, err := template.New(filepath.Join(dir, "templates"), template.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(engine.Options{Store: st, Host: deadHost{}, Templates: tm, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = eng.Shutdown(ctx)
	})
	return NewApp(Services{Runs: service.NewRuns(eng, st, nil), Templates: tm}), st, eng, dir
}

func workerOf(ctx context.Context, t *testing.T, eng *engine.Engine, runID, taskID string) store.Worker {
	t.Helper()
	snap, err := eng.Snapshot(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range snap.Workers {
		if w.TaskID == taskID {
			return w
		}
	}
	t.Fatalf("run %s has no worker %s", runID, taskID)
	return store.Worker{}
}

func hasItem(items []view.InboxItem, kind inbox.Kind, taskID, detail string) bool {
	for _, it := range items {
		if it.Kind == string(kind) && it.TaskID == taskID && it.Detail == detail {
			return true
		}
	}
	return false
}

// The window's delete follows the one rule of backend/service: a run that
// has not finished (an interrupted one included, which the terminal refuses
// too) is refused with a sentence and kept; a finished one goes. The active
// list shows the run the engine drives and the stored unfinished ones.
func TestDeleteAndActiveBindings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, st, eng, dir := deadHostApp(t)
	driven, err := eng.Create(ctx, engine.CreateRequest{TemplateID: "documentation", Cwd: dir, Request: "Document it"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []store.Run{
		{ID: "orch_interrupted", TemplateID: "documentation", Cwd: dir, Request: "Test it", Status: "interrupted"},
		{ID: "orch_completed", TemplateID: "documentation", Cwd: dir, Request: "Old", Status: "completed"},
	} {
		if err := st.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}

	active, err := a.ActiveRuns()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range active {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	if want := []string{driven.ID, "orch_interrupted"}; !slices.Equal(ids, want) {
		t.Errorf("ActiveRuns = %v, want %v", ids, want)
	}

	for id, want := range map[string]string{
		"orch_interrupted": "This run is interrupted, not finished, so it was not deleted: cancel it first.",
		driven.ID:          "This run is created, not finished, so it was not deleted: cancel it first.",
		"orch_nosuchrun":   "That run does not exist any more; refresh the list.",
		" ":                "No run is selected.",
	} {
		if err := a.DeleteRun(id); err == nil || err.Error() != want {
			t.Errorf("DeleteRun(%q) = %v, want %q", id, err, want)
		}
	}
	if _, err := st.Run(ctx, "orch_interrupted"); err != nil {
		t.Errorf("the refused delete removed the interrupted run: %v", err)
	}
	if err := a.DeleteRun("orch_completed"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Run(ctx, "orch_completed"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the finished run is still stored: %v", err)
	}
}
