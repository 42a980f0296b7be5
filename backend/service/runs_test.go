package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/owner"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/view"
)

// openRuns opens every service over a fresh configuration directory (the
// simulator as host, never reached) and closes them when the test ends.
func openRuns(t *testing.T) *Services {
	t.Helper()
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	s, err := Open(Options{Logger: quiet(), Host: HostOverrides{Host: "sim", Speed: 50}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := s.Close(ctx); err != nil {
			t.Error(err)
		}
	})
	return s
}

// storedRun writes a run no engine drives, created at minute m, with the
// documentation template (so that an engine can take it up).
func storedRun(t *testing.T, st *store.Store, id, status string, m int) {
	t.Helper()
	tm, err := template.New(t.TempDir(), template.Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := tm.Get("documentation")
	if err != nil {
		t.Fatal(err)
	}
	tj, err := json.Marshal(tmpl)
	if err != nil {
		t.Fatal(err)
	}
	r := store.Run{ID: id, TemplateID: "documentation", TemplateName: "Documentation", Cwd: t.TempDir(), Request: "Document " + id,
		Status: status, CreatedAt: time.Date(2026, 3, 1, 10, m, 0, 0, time.UTC), Template: tj}
	if status == view.RunPaused || status == view.RunInterrupted {
		// Where the engine keeps the status a held run returns to.
		r.ResumeStatus = view.RunConfirming
		r.State = json.RawMessage(`{"resume":"confirming"}`)
	}
	if err := st.CreateRun(context.Background(), r); err != nil {
		t.Fatal(err)
	}
}

// createRun creates a run, which the engine then drives (it is not
// started: the host is never reached).
func createRun(t *testing.T, s *Services) view.Run {
	t.Helper()
	run, err := s.Runs.Create(context.Background(), view.CreateRequest{TemplateID: "documentation", Cwd: t.TempDir(), Request: "Document it"})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func ids(runs []view.Run) []string {
	var out []string
	for _, r := range runs {
		out = append(out, r.ID)
	}
	return out
}

// The window (an engine that drives runs) and the terminal (the history
// alone) list the same unfinished runs, newest first: the engine's in
// memory, and the stored ones no engine drives.
func TestActiveRunsAreOneList(t *testing.T) {
	s := openRuns(t)
	ctx := context.Background()
	driven := createRun(t, s)
	storedRun(t, s.store, "orch_interrupt1", view.RunInterrupted, 1)
	storedRun(t, s.store, "orch_paused0001", view.RunPaused, 2)
	storedRun(t, s.store, "orch_confirming", view.RunConfirming, 3)
	storedRun(t, s.store, "orch_completed1", view.RunCompleted, 4)
	storedRun(t, s.store, "orch_cancelled1", view.RunCancelled, 5)

	want := []string{driven.ID, "orch_confirming", "orch_paused0001", "orch_interrupt1"}
	window, err := s.Runs.Active(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(window); !reflect.DeepEqual(got, want) {
		t.Errorf("the window's active runs = %v, want %v", got, want)
	}
	alone := &History{store: s.store}
	terminal, err := alone.Active(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(terminal); !reflect.DeepEqual(got, want) {
		t.Errorf("the terminal's active runs = %v, want %v", got, want)
	}
	if !s.Runs.Busy() {
		t.Error("Busy is false while the engine drives a run")
	}
}

// The one delete rule, on both faces: only a finished run is deleted; a
// run that has not finished (interrupted included) or that the engine
// drives is refused with ErrNotFinished, and nothing is touched.
func TestDeleteRefusesEveryUnfinishedRun(t *testing.T) {
	s := openRuns(t)
	ctx := context.Background()
	driven := createRun(t, s)
	storedRun(t, s.store, "orch_interrupt1", view.RunInterrupted, 1)
	storedRun(t, s.store, "orch_paused0001", view.RunPaused, 2)
	storedRun(t, s.store, "orch_completed1", view.RunCompleted, 3)
	storedRun(t, s.store, "orch_failed0001", view.RunFailed, 4)
	alone := &History{store: s.store}

	for _, face := range []struct {
		name string
		h    interface {
			Delete(context.Context, string) (view.Run, error)
		}
	}{{"window", s.Runs}, {"terminal", alone}} {
		for _, id := range []string{driven.ID, "orch_interrupt1", "orch_paused0001"} {
			before, _ := s.store.Run(ctx, id)
			run, err := face.h.Delete(ctx, id)
			if !errors.Is(err, ErrNotFinished) || run.ID != id {
				t.Errorf("%s: Delete(%s) = %+v, %v; want the run and ErrNotFinished", face.name, id, run.ID, err)
			}
			after, err := s.store.Run(ctx, id)
			if err != nil || after.Status != before.Status || !after.UpdatedAt.Equal(before.UpdatedAt) {
				t.Errorf("%s: a refused delete touched %s: %+v, %v", face.name, id, after, err)
			}
		}
		if _, err := face.h.Delete(ctx, "orch_nosuchrun1"); !errors.Is(err, ErrUnknownRun) {
			t.Errorf("%s: Delete of an unknown run: %v", face.name, err)
		}
	}
	for _, id := range []string{"orch_completed1", "orch_failed0001"} {
		run, err := s.Runs.Delete(ctx, id)
		if err != nil || run.ID != id {
			t.Fatalf("Delete(%s) = %+v, %v", id, run, err)
		}
		if _, err := s.store.Run(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s is still stored: %v", id, err)
		}
	}
}

// The report of a finished run is the same from the window and the
// terminal; an unfinished one has no final report yet.
func TestReportAndExport(t *testing.T) {
	s := openRuns(t)
	ctx := context.Background()
	storedRun(t, s.store, "orch_completed1", view.RunCompleted, 1)
	storedRun(t, s.store, "orch_paused0001", view.RunPaused, 2)

	rep, err := s.Runs.FinalReport(ctx, "orch_completed1")
	if err != nil || rep.RunID != "orch_completed1" || rep.Status != view.RunCompleted {
		t.Fatalf("FinalReport = %+v, %v", rep, err)
	}
	if _, err := s.Runs.FinalReport(ctx, "orch_paused0001"); !errors.Is(err, ErrNotFinished) {
		t.Errorf("FinalReport of a paused run: %v", err)
	}
	if _, err := s.Runs.FinalReport(ctx, "orch_nosuchrun1"); !errors.Is(err, ErrUnknownRun) {
		t.Errorf("FinalReport of an unknown run: %v", err)
	}
	md, err := s.Runs.Report(ctx, "orch_completed1")
	if err != nil || !strings.Contains(md, "orch_completed1") {
		t.Fatalf("Report = %q, %v", md, err)
	}
	data, err := (&History{store: s.store}).Export(ctx, "orch_completed1", FormatMarkdown)
	if err != nil || string(data) != md {
		t.Errorf("the terminal's Markdown differs from the window's: %v\n%s\n%s", err, data, md)
	}
	data, err = s.Runs.Export(ctx, "orch_completed1", FormatJSON)
	var whole struct {
		Run         struct{ ID string }
		FinalReport *struct{ Status string }
	}
	if err != nil || json.Unmarshal(data, &whole) != nil || whole.Run.ID != "orch_completed1" || whole.FinalReport == nil {
		t.Errorf("Export json = %s, %v", data, err)
	}
	if _, err := s.Runs.Export(ctx, "orch_completed1", "pdf"); !errors.Is(err, ErrBadRequest) {
		t.Errorf("Export pdf: %v", err)
	}
	path, err := s.Runs.ExportTo(ctx, "orch_completed1", FormatMarkdown, filepath.Join(t.TempDir(), "report"))
	if err != nil || filepath.Ext(path) != ".md" {
		t.Fatalf("ExportTo = %q, %v", path, err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != md {
		t.Errorf("ExportTo wrote %q, %v", b, err)
	}
	var pe *os.PathError
	if _, err := s.Runs.ExportTo(ctx, "orch_completed1", FormatMarkdown, filepath.Join(t.TempDir(), "missing", "r.md")); !errors.As(err, &pe) {
		t.Errorf("ExportTo into a missing folder: %v", err)
	}
	snap, err := s.Runs.Show(ctx, "orch_completed1")
	if err != nil || snap.FinalReport == nil || snap.Run.ID != "orch_completed1" {
		t.Errorf("Show = %+v, %v", snap, err)
	}
	page, err := s.Runs.Page(ctx, view.HistoryQuery{Status: []string{view.RunCompleted}})
	if err != nil || page.Total != 1 || page.Runs[0].ID != "orch_completed1" {
		t.Errorf("Page = %+v, %v", page, err)
	}
	if _, err := s.Runs.Page(ctx, view.HistoryQuery{Offset: -1}); !errors.Is(err, ErrInvalid) {
		t.Errorf("Page with a negative offset: %v", err)
	}
}

func TestWorkerActionsAreNamed(t *testing.T) {
	s := openRuns(t)
	if err := s.Runs.Worker(context.Background(), "orch_x", "task_001", "jump"); !errors.Is(err, ErrBadRequest) {
		t.Errorf("Worker(jump) = %v", err)
	}
}

// A plan replaces the proposed tasks: known ids are edited (and run after
// all), new ones added, the others removed.
func TestPlanModifications(t *testing.T) {
	t.Parallel()
	proposed := []store.Task{{ID: "task_001", Title: "Old"}, {ID: "task_002", Title: "Gone"}}
	plan := []view.NewTask{{ID: "task_001", Title: "New title"}, {ID: "task_003", Title: "Added", Priority: 2}}
	m := planModifications(proposed, plan)
	if len(m.Add) != 1 || m.Add[0].ID != "task_003" || m.Add[0].Priority != 2 {
		t.Errorf("Add = %+v", m.Add)
	}
	if !slices.Equal(m.Remove, []string{"task_002"}) || !slices.Equal(m.Unskip, []string{"task_001"}) {
		t.Errorf("Remove = %v, Unskip = %v", m.Remove, m.Unskip)
	}
	if len(m.Edit) != 1 || *m.Edit[0].Title != "New title" || *m.Edit[0].Priority != engine.DefaultPriority ||
		*m.Edit[0].Scope == nil || *m.Edit[0].Dependencies == nil {
		t.Errorf("Edit = %+v", m.Edit)
	}
}

// A run the active list shows but this engine does not drive (another
// Baton left it waiting) is refused with what to do, not as a run that
// "can no longer change"; a finished one keeps the engine's refusal.
func TestActionsOnARunThisEngineDoesNotDrive(t *testing.T) {
	s := openRuns(t)
	ctx := context.Background()
	storedRun(t, s.store, "orch_confirming", view.RunConfirming, 1)
	storedRun(t, s.store, "orch_completed1", view.RunCompleted, 2)
	for name, call := range map[string]func(id string) error{
		"confirm": func(id string) error { return s.Runs.Confirm(ctx, id, view.Modifications{}) },
		"review":  func(id string) error { return s.Runs.Review(ctx, id, "task_001", true, "") },
	} {
		err := call("orch_confirming")
		if !errors.Is(err, ErrNotDriven) || !strings.Contains(err.Error(), "Resume takes it up here") ||
			!strings.Contains(err.Error(), "baton run --resume orch_confirming") {
			t.Errorf("%s of a run not driven here: %v", name, err)
		}
		if err := call("orch_completed1"); !errors.Is(err, ErrIllegalTransition) || errors.Is(err, ErrNotDriven) {
			t.Errorf("%s of a finished run: %v", name, err)
		}
	}
	if run, _ := s.store.Run(ctx, "orch_confirming"); run.Status != view.RunConfirming {
		t.Errorf("the refused calls changed the run: %s", run.Status)
	}
}

// One list of active runs with who drives each: a run that another live
// process (a "baton run") drives is listed with it, and this window's
// Resume and Cancel are refused naming it; once that process is gone, the
// same Resume takes the run up here (its lock now names this process) and
// Cancel cancels a run nobody drives, taking it up first.
func TestRunsOfOtherProcesses(t *testing.T) {
	s := openRuns(t)
	ctx := context.Background()
	storedRun(t, s.store, "orch_paused0001", view.RunPaused, 1)
	storedRun(t, s.store, "orch_interrupt1", view.RunInterrupted, 2)
	me := s.engine.Owner()
	terminal := store.Lock{RunID: "orch_paused0001", PID: os.Getppid(), Face: owner.Terminal, Machine: me.Machine} // alive: it runs the test
	if err := s.store.TakeLock(ctx, terminal, func(store.Lock) bool { return false }); err != nil {
		t.Fatal(err)
	}
	byID := func() map[string]view.Run {
		runs, err := s.Runs.Active(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]view.Run{}
		for _, r := range runs {
			out[r.ID] = r
		}
		return out
	}
	runs := byID()
	if d := runs["orch_paused0001"].DrivenBy; d == nil || d.Self || d.Face != owner.Terminal || d.Text != fmt.Sprintf("baton run (process %d)", os.Getppid()) {
		t.Fatalf("the run the terminal drives: %+v", d)
	}
	if d := runs["orch_interrupt1"].DrivenBy; d != nil {
		t.Fatalf("a run nobody drives: %+v", d)
	}
	for name, call := range map[string]func(string) error{
		"resume": func(id string) error { return s.Runs.Resume(ctx, id) },
		"cancel": func(id string) error { return s.Runs.Cancel(ctx, id) },
	} {
		if err := call("orch_paused0001"); !errors.Is(err, ErrDriven) || !strings.Contains(err.Error(), "driven by baton run (process ") {
			t.Errorf("%s of a run the terminal drives: %v", name, err)
		}
	}
	if run, _ := s.store.Run(ctx, "orch_paused0001"); run.Status != view.RunPaused {
		t.Fatalf("the refused calls changed the run: %s", run.Status)
	}

	// The terminal's process is gone (its lock stays behind).
	gone := terminal
	gone.PID = 1 << 22
	if err := s.store.TakeLock(ctx, gone, func(store.Lock) bool { return true }); err != nil {
		t.Fatal(err)
	}
	if d := byID()["orch_paused0001"].DrivenBy; d != nil {
		t.Fatalf("a run whose process is gone: %+v", d)
	}
	if err := s.Runs.Resume(ctx, "orch_paused0001"); err != nil {
		t.Fatal(err)
	}
	if r := byID()["orch_paused0001"]; r.Status != view.RunConfirming || r.DrivenBy == nil || !r.DrivenBy.Self || r.DrivenBy.PID != os.Getpid() {
		t.Fatalf("after Resume here: %s, %+v", r.Status, r.DrivenBy)
	}
	if err := s.Runs.Cancel(ctx, "orch_interrupt1"); err != nil {
		t.Fatal(err)
	}
	if run, _ := s.Runs.Wait(ctx, "orch_interrupt1"); run.Status != view.RunCancelled {
		t.Fatalf("a run nobody drove, cancelled: %s", run.Status)
	}
	locks, _ := s.store.Locks(ctx)
	if _, held := locks["orch_interrupt1"]; held {
		t.Error("the cancelled run is still locked")
	}
}
