// Package runstore is a run as the store holds it, read without an engine:
// its state beyond its row (State, in Run.State), the Snapshot a view reads
// (what the window's views and "baton show" and "baton export" read), the
// final report built from its stored events, and the JSON export.
package runstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/baton-app/baton/backend/checkrounds"
	"github.com/baton-app/baton/backend/isolation"
	"github.com/baton-app/baton/backend/limits"
	"github.com/baton-app/baton/backend/mainsession"
	"github.com/baton-app/baton/backend/reconnect"
	"github.com/baton-app/baton/backend/report"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/tasklist"
)

// ErrUnknownRun: no run has the id.
var ErrUnknownRun = errors.New("unknown run")

// State is the run's state beyond its row, stored in Run.State.
type State struct {
	Main   mainsession.Session `json:"main"`
	Resume string              `json:"resume,omitempty"`
	// Reviewing and Remediation are the engine's reviewer's.
	Reviewing   string `json:"reviewing,omitempty"`
	Remediation int    `json:"remediation,omitempty"`
	// Limits: waits for limits, the worker count after them, the budget.
	Limits limits.State `json:"limits,omitzero"`
	// Worktree is the run's worktree isolation.
	Worktree *isolation.State `json:"worktree,omitempty"`
	// Checks are the project's checks Baton runs.
	Checks *checkrounds.State `json:"checks,omitempty"`
}

// StateOf reads the state of a stored run (empty without one).
func StateOf(run store.Run) (State, error) {
	var rs State
	if len(run.State) > 0 {
		if err := json.Unmarshal(run.State, &rs); err != nil {
			return State{}, fmt.Errorf("run state: %w", err)
		}
	}
	return rs, nil
}

// Snapshot is the whole state of a run, for a view that opens late.
type Snapshot struct {
	Run            store.Run           `json:"run"`
	Tasks          []store.Task        `json:"tasks"`
	Workers        []store.Worker      `json:"workers"`
	Answers        []store.PhaseAnswer `json:"answers"`
	ParallelGroups [][]string          `json:"parallelGroups"`
	// FinalReport is stored when the run finishes (nil before).
	FinalReport *report.FinalReport `json:"finalReport,omitempty"`
	// Reconnecting is set while the run waits for its lost host.
	Reconnecting *reconnect.Reconnecting `json:"reconnecting,omitempty"`
	// Worktree is the run's worktree isolation (nil when its workers
	// share the folder).
	Worktree *isolation.View `json:"worktree,omitempty"`
	// Permissions is the run's permission log: every answer to a
	// permission prompt, oldest first.
	Permissions []store.PermissionDecision `json:"permissions"`
	// Checks are the project's checks Baton ran for the run (nil: the run
	// does not check, it was made before Baton did).
	Checks *checkrounds.View `json:"checks,omitempty"`
}

// Load reads run runID from the store. It holds every committed change.
func Load(ctx context.Context, st *store.Store, runID string) (Snapshot, error) {
	run, err := st.Run(ctx, runID)
	if errors.Is(err, store.ErrNotFound) {
		return Snapshot{}, fmt.Errorf("run %s: %w", runID, ErrUnknownRun)
	}
	if err != nil {
		return Snapshot{}, err
	}
	tasks, err := st.Tasks(ctx, runID)
	if err != nil {
		return Snapshot{}, err
	}
	workers, err := st.Workers(ctx, runID)
	if err != nil {
		return Snapshot{}, err
	}
	answers, err := st.Answers(ctx, runID)
	if err != nil {
		return Snapshot{}, err
	}
	perms, err := st.PermissionLog(ctx, runID)
	if err != nil {
		return Snapshot{}, err
	}
	rs, err := StateOf(run)
	if err != nil {
		return Snapshot{}, err
	}
	snap := Snapshot{Run: run, Tasks: tasks, Workers: workers, Answers: answers, ParallelGroups: tasklist.Groups(tasks), Permissions: perms}
	if snap.Checks, err = rs.Checks.Read(ctx, st, run); err != nil {
		return Snapshot{}, err
	}
	if rs.Worktree != nil {
		snap.Worktree = rs.Worktree.View(run.ID, store.Finished(run.Status), tasks)
	}
	if raw, err := st.FinalReport(ctx, runID); err == nil {
		var rep report.FinalReport
		if err := json.Unmarshal(raw, &rep); err != nil {
			return Snapshot{}, fmt.Errorf("final report of %s: %w", runID, err)
		}
		snap.FinalReport = &rep
	} else if !errors.Is(err, store.ErrNoReport) {
		return Snapshot{}, err
	}
	return snap, nil
}

// LoadReport is Load with the final report of a finished run that has none
// stored (it finished before Baton stored them) built from its history;
// facts says which event is which fact of it (report.History).
func LoadReport(ctx context.Context, st *store.Store, runID string, facts map[string]report.FactKind) (Snapshot, error) {
	snap, err := Load(ctx, st, runID)
	if err != nil || snap.FinalReport != nil || !store.Finished(snap.Run.Status) {
		return snap, err
	}
	events, err := Events(ctx, st, runID)
	if err != nil {
		return Snapshot{}, fmt.Errorf("final report of %s: %w", runID, err)
	}
	rep := BuildReport(snap, events, facts)
	snap.FinalReport = &rep
	return snap, nil
}

// BuildReport builds the final report of a run from its state and its
// stored events (oldest first).
func BuildReport(s Snapshot, events []store.Event, facts map[string]report.FactKind) report.FinalReport {
	rep := report.Build(s.Run, s.Tasks, s.Workers, s.Answers, report.History(events, facts))
	var stored []store.CheckResult
	if s.Checks != nil {
		stored = s.Checks.Results
	}
	rep.AddChecks(ChecksReport(s.Run, stored, s.Answers))
	return rep
}

// ChecksReport is what the final report says of the project's checks
// (checkrounds.State.Report) of a run as stored.
func ChecksReport(run store.Run, stored []store.CheckResult, answers []store.PhaseAnswer) *report.Checks {
	var rs State
	if len(run.State) > 0 {
		_ = json.Unmarshal(run.State, &rs)
	}
	return rs.Checks.Report(stored, answers)
}

// Events reads every stored event of a run, oldest first.
func Events(ctx context.Context, st *store.Store, runID string) ([]store.Event, error) {
	var out []store.Event
	var after int64
	for {
		page, err := st.Events(ctx, runID, after, 10000)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) < 10000 {
			return out, nil
		}
		after = page[len(page)-1].ID
	}
}

// ExportJSON is the JSON export of a run: the run (its outcome and issues
// included), its tasks, workers, the main session's answers and the final
// report.
func ExportJSON(s Snapshot) ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
