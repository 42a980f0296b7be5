package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/baton-app/baton/backend/store"
)

// LoadSnapshot reads run runID from the store alone, without an engine:
// what the window's views and the terminal's "baton show" and "baton
// export" read. It holds every committed change.
func LoadSnapshot(ctx context.Context, st *store.Store, runID string) (Snapshot, error) {
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
	snap := Snapshot{Run: run, Tasks: tasks, Workers: workers, Answers: answers, ParallelGroups: ParallelGroups(tasks)}
	if snap.Worktree, err = worktreeView(run, tasks); err != nil {
		return Snapshot{}, err
	}
	if raw, err := st.FinalReport(ctx, runID); err == nil {
		var rep FinalReport
		if err := json.Unmarshal(raw, &rep); err != nil {
			return Snapshot{}, fmt.Errorf("final report of %s: %w", runID, err)
		}
		snap.FinalReport = &rep
	} else if !errors.Is(err, store.ErrNoReport) {
		return Snapshot{}, err
	}
	return snap, nil
}

// LoadReport is LoadSnapshot with the final report of a finished run that
// has none stored (it finished before Baton stored them) built from its
// history.
func LoadReport(ctx context.Context, st *store.Store, runID string) (Snapshot, error) {
	snap, err := LoadSnapshot(ctx, st, runID)
	if err != nil || snap.FinalReport != nil || !store.Finished(snap.Run.Status) {
		return snap, err
	}
	events, err := allEvents(ctx, st, runID)
	if err != nil {
		return Snapshot{}, fmt.Errorf("final report of %s: %w", runID, err)
	}
	rep := BuildFinalReport(snap, events)
	snap.FinalReport = &rep
	return snap, nil
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

// Report returns the Markdown report of a run (what ExportReport writes).
func (e *Engine) Report(ctx context.Context, runID string) (string, error) {
	snap, err := e.Snapshot(ctx, runID)
	if err != nil {
		return "", err
	}
	return Report(snap), nil
}

// ExportReport writes the Markdown report of a run to path (with ".md"
// added when it has no extension) and returns the path written. A failed
// write is an *os.PathError.
func (e *Engine) ExportReport(ctx context.Context, runID, path string) (string, error) {
	report, err := e.Report(ctx, runID)
	if err != nil {
		return "", err
	}
	if filepath.Ext(path) == "" {
		path += ".md"
	}
	if err := os.WriteFile(path, []byte(report), 0o644); err != nil {
		return "", err
	}
	return path, nil
}
