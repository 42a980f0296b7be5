package main

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/view"
)

func TestFinalReportBinding(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// The final report is read from the store alone: the host is never reached.
	a, st, _, dir := deadHostApp(t)

	done := store.Run{ID: "orch_done", TemplateID: "documentation", Cwd: dir, Request: "Document it", Status: "running"}
	running := store.Run{ID: "orch_running", TemplateID: "documentation", Cwd: dir, Request: "Test it", Status: "running"}
	for _, r := range []store.Run{done, running} {
		if err := st.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	want := engine.FinalReport{RunID: done.ID, Status: "completed", Tasks: engine.TaskCounts{Total: 1, Completed: 1},
		Completed: []engine.TaskRef{{ID: "task_001", Title: "Write docs", Status: "completed"}},
		Failed:    []engine.TaskRef{}, Skipped: []engine.TaskRef{}, NotRun: []engine.TaskRef{},
		Iterations: engine.Iterations{Total: 1, Remediation: []engine.RemediationRound{}, Rejections: []engine.Attempt{},
			Retries: []engine.Attempt{{TaskID: "task_001", Reason: "rejected by the user: too short", At: time.UnixMilli(1000).UTC()}}},
		Decisions:   []engine.Decision{{Kind: engine.DecisionRejected, TaskID: "task_001", By: "the user", Text: "too short"}},
		Files:       []engine.ReportFile{{Path: "docs/a.md", Tasks: []string{"task_001"}}},
		Limitations: []engine.Limitation{}}
	raw, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	done.Status = "completed"
	if err := st.Commit(ctx, done.ID, store.Change{Run: &done, FinalReport: raw}); err != nil {
		t.Fatal(err)
	}

	got, err := a.FinalReport(done.ID)
	if err != nil || !reflect.DeepEqual(got, view.FinalReportOf(want)) {
		t.Errorf("FinalReport = %+v, %v; want %+v", got, err, want)
	}

	// A run that finished before final reports were stored gets one built
	// from its history.
	old := store.Run{ID: "orch_old", TemplateID: "documentation", Cwd: dir, Request: "Old", Status: "cancelled"}
	if err := st.CreateRun(ctx, old); err != nil {
		t.Fatal(err)
	}
	if got, err := a.FinalReport(old.ID); err != nil || got.RunID != old.ID || got.Status != "cancelled" ||
		len(got.Limitations) != 1 || got.Limitations[0].Kind != engine.LimitRun {
		t.Errorf("FinalReport of an older run = %+v, %v", got, err)
	}

	before, _ := st.Run(ctx, running.ID)
	for _, tc := range []struct{ name, runID, want string }{
		{"no run", " ", "No run is selected."},
		{"unknown run", "orch_nope", "That run does not exist any more; refresh the list."},
		{"unfinished run", running.ID, "This run has not finished yet"},
	} {
		_, err := a.FinalReport(tc.runID)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: error = %v, want %q", tc.name, err, tc.want)
			continue
		}
		if msg := err.Error(); msg != sentence(msg) {
			t.Errorf("%s: %q is not one sentence", tc.name, msg)
		}
	}
	after, _ := st.Run(ctx, running.ID)
	if after.Status != before.Status || !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("asking for the report changed the unfinished run: %+v -> %+v", before, after)
	}
	if _, err := st.FinalReport(ctx, running.ID); !errors.Is(err, store.ErrNoReport) {
		t.Errorf("asking for the report stored one for the unfinished run: %v", err)
	}
}
