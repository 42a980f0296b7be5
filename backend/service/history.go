package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/owner"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/view"
)

// The errors of the use cases, for errors.Is and errors.As: the faces turn
// them into sentences without importing the engine or the store.
var (
	// ErrUnknownRun: there is no such run (any more).
	ErrUnknownRun = engine.ErrUnknownRun
	// ErrUnknownTask: the run has no such task.
	ErrUnknownTask = engine.ErrUnknownTask
	// ErrIllegalTransition: the run or worker cannot do that from where it
	// stands; the error names both.
	ErrIllegalTransition = engine.ErrIllegalTransition
	// ErrOtherHost: the run ran on another kind of session host; the
	// error is an *engine.OtherHostError whose sentence names it.
	ErrOtherHost = engine.ErrOtherHost
	// ErrBadRequest: a value out of range; the error names it.
	ErrBadRequest = engine.ErrBadRequest
	// ErrNotFinished: the run has not finished, so it has no final report
	// yet and cannot be deleted.
	ErrNotFinished = engine.ErrNotFinished
	// ErrInvalid: a history filter the store cannot use; the error says why.
	ErrInvalid = store.ErrInvalid
	// ErrNotDriven: the run has not finished, but no process drives it
	// (another Baton left it waiting); the error says how to take it up.
	ErrNotDriven = errors.New("not driven here")
	// ErrDriven: another process (Baton's window, a "baton run") drives the
	// run; the error names it (a *DrivenError).
	ErrDriven = engine.ErrDriven
)

// DrivenError is a run another process drives; Owner names it.
type DrivenError = engine.DrivenError

// TaskListError is a task list that cannot be confirmed; Problems names
// each reason.
type TaskListError = engine.TaskListError

// OverridesError is a new run's overrides of its template (the permission
// mode, the isolation, the timeouts…) that cannot be used; Problems names
// each reason.
type OverridesError = engine.OverridesError

// History is what the faces do with stored runs: the history, the list of
// runs that have not finished, a run's whole report and its export, and
// delete. The terminal's "baton history", "active", "show", "export" and
// "delete" open it alone (OpenHistory); the window's comes with the engine
// (Runs), which adds the runs it drives.
type History struct {
	store *store.Store
	// live is the engine of this process (nil when the history is opened
	// alone).
	live live
	// closeStore is set when OpenHistory opened the store.
	closeStore bool
}

// live is what History reads of an engine: the runs it drives and their
// state in memory.
type live interface {
	Active() []string
	Snapshot(ctx context.Context, runID string) (engine.Snapshot, error)
	Reconnecting(runID string) *engine.Reconnecting
	Owner() owner.Owner
}

// OpenHistory opens the history database alone (see OpenStore); Close
// closes it.
func OpenHistory(logger *slog.Logger) (*History, error) {
	st, err := OpenStore(logger)
	if err != nil {
		return nil, err
	}
	return &History{store: st, closeStore: true}, nil
}

// Close closes the database when OpenHistory opened it.
func (h *History) Close() error {
	if !h.closeStore {
		return nil
	}
	return h.store.Close()
}

// Page returns one page of past runs. A filter the store cannot use is an
// ErrInvalid that says why.
func (h *History) Page(ctx context.Context, q view.HistoryQuery) (view.HistoryPage, error) {
	page, err := h.store.Runs(ctx, view.StoreQuery(q))
	if err != nil {
		return view.HistoryPage{}, err
	}
	return view.HistoryPageOf(page), nil
}

// Active lists the runs that have not finished, newest first: those the
// engine of this process drives, as it holds them, and the store's
// unfinished runs no engine here drives (paused, interrupted, waiting for
// their task list, or driven by another Baton). The window and "baton
// active" show this one list.
func (h *History) Active(ctx context.Context) ([]view.Run, error) {
	var runs []view.Run
	if h.live != nil {
		for _, id := range h.live.Active() {
			snap, err := h.live.Snapshot(ctx, id)
			if errors.Is(err, engine.ErrUnknownRun) {
				continue
			}
			if err != nil {
				return nil, err
			}
			runs = append(runs, view.RunOf(snap.Run))
		}
	}
	held, err := h.store.Unfinished(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range held {
		if !slices.ContainsFunc(runs, func(x view.Run) bool { return x.ID == r.ID }) {
			runs = append(runs, view.RunOf(r))
		}
	}
	// Newest first; runs started in the same instant keep the engine's order.
	slices.SortStableFunc(runs, func(x, y view.Run) int { return y.CreatedAt.Compare(x.CreatedAt) })
	if runs == nil {
		return []view.Run{}, nil
	}
	if h.live != nil {
		for i := range runs {
			runs[i].Reconnecting = view.ReconnectingOf(h.live.Reconnecting(runs[i].ID))
		}
	}
	drivers, err := h.drivers(ctx)
	if err != nil {
		return nil, err
	}
	for i := range runs {
		runs[i].DrivenBy = drivers[runs[i].ID]
	}
	return runs, nil
}

// drivers are the processes that drive runs now, by run id: each run's
// lock whose process still runs (this one's runs included, marked Self).
func (h *History) drivers(ctx context.Context) (map[string]*view.Driver, error) {
	locks, err := h.store.Locks(ctx)
	if err != nil {
		return nil, err
	}
	var me owner.Owner
	if h.live != nil {
		me = h.live.Owner()
	}
	out := make(map[string]*view.Driver, len(locks))
	for id, l := range locks {
		o := engine.OwnerOf(l)
		if self := h.live != nil && o.Same(me); self || o.Alive() {
			out[id] = view.DriverOf(o, self)
		}
	}
	return out, nil
}

// drivenBy is the process that drives run runID now (nil: none).
func (h *History) drivenBy(ctx context.Context, runID string) *view.Driver {
	drivers, err := h.drivers(ctx)
	if err != nil {
		return nil
	}
	return drivers[runID]
}

// Run returns the stored run runID.
func (h *History) Run(ctx context.Context, runID string) (view.Run, error) {
	r, err := h.store.Run(ctx, runID)
	if errors.Is(err, store.ErrNotFound) {
		return view.Run{}, fmt.Errorf("run %s: %w", runID, ErrUnknownRun)
	}
	if err != nil {
		return view.Run{}, err
	}
	v := view.RunOf(r)
	v.DrivenBy = h.drivenBy(ctx, runID)
	return v, nil
}

// Show returns everything stored about run runID, with its final report
// (built from its history for a run that finished before Baton stored
// them): what "baton show" prints.
func (h *History) Show(ctx context.Context, runID string) (view.Snapshot, error) {
	snap, err := engine.LoadReport(ctx, h.store, runID)
	if err != nil {
		return view.Snapshot{}, err
	}
	v := view.SnapshotOf(snap)
	v.Run.DrivenBy = h.drivenBy(ctx, runID)
	return v, nil
}

// FinalReport returns the report stored when run runID finished (one built
// from its history for a run that finished before Baton stored them). A
// run that has not finished is an ErrNotFinished.
func (h *History) FinalReport(ctx context.Context, runID string) (view.FinalReport, error) {
	snap, err := engine.LoadReport(ctx, h.store, runID)
	if err != nil {
		return view.FinalReport{}, err
	}
	if snap.FinalReport == nil {
		return view.FinalReport{}, fmt.Errorf("run %s is %s: %w", runID, snap.Run.Status, ErrNotFinished)
	}
	return view.FinalReportOf(*snap.FinalReport), nil
}

// The formats of an export: the Markdown report, or the whole run as JSON.
const (
	FormatMarkdown = "md"
	FormatJSON     = "json"
)

// Report returns the Markdown report of run runID: what the window shows
// and exports and "baton export" writes.
func (h *History) Report(ctx context.Context, runID string) (string, error) {
	b, err := h.Export(ctx, runID, FormatMarkdown)
	return string(b), err
}

// Export returns run runID in format: the Markdown report (FormatMarkdown)
// or the whole run, its final report included, as JSON (FormatJSON).
func (h *History) Export(ctx context.Context, runID, format string) ([]byte, error) {
	if format != FormatMarkdown && format != FormatJSON {
		return nil, fmt.Errorf("the export format is md or json, not %q: %w", format, ErrBadRequest)
	}
	snap, err := engine.LoadReport(ctx, h.store, runID)
	if err != nil {
		return nil, err
	}
	if format == FormatJSON {
		return engine.ExportJSON(snap)
	}
	return []byte(engine.Report(snap)), nil
}

// ExportTo writes run runID in format to path, with the format's extension
// added when path has none, and returns the path written. A failed write is
// an *os.PathError.
func (h *History) ExportTo(ctx context.Context, runID, format, path string) (string, error) {
	data, err := h.Export(ctx, runID, format)
	if err != nil {
		return "", err
	}
	if filepath.Ext(path) == "" {
		path += "." + format
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return "", err
	}
	return path, nil
}

// Delete removes run runID and everything stored with it (the files it
// wrote stay), and returns the run as it was. The one rule of both faces:
// only a finished run is deleted. A run that has not finished (running,
// paused, waiting for the user, interrupted) is refused with an
// ErrNotFinished, the run returned, and nothing touched; cancel it first.
func (h *History) Delete(ctx context.Context, runID string) (view.Run, error) {
	run, err := h.Run(ctx, runID)
	if err != nil {
		return view.Run{}, err
	}
	if !view.Finished(run.Status) {
		return run, fmt.Errorf("run %s is %s: %w", runID, view.StatusLabel(run.Status), ErrNotFinished)
	}
	if err := h.store.DeleteRun(ctx, runID); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return run, fmt.Errorf("run %s: %w", runID, ErrUnknownRun)
		}
		return run, err
	}
	return run, nil
}
