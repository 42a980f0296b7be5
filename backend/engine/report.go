package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/baton-app/baton/backend/report"
	"github.com/baton-app/baton/backend/runstore"
	"github.com/baton-app/baton/backend/store"
)

// A run's final report (seed 004) is backend/report: built once, when the
// run reaches completed, cancelled or error, from its rows and the facts
// its events record, and stored with the change that finishes the run. The
// names below keep the engine's callers as they were.

// ErrNotFinished: a run that has not finished has no final report.
var ErrNotFinished = errors.New("run has not finished")

// The final report and its parts (backend/report).
type (
	FinalReport      = report.FinalReport
	TaskCounts       = report.TaskCounts
	TaskRef          = report.TaskRef
	Iterations       = report.Iterations
	RemediationRound = report.RemediationRound
	Attempt          = report.Attempt
	Decision         = report.Decision
	ReportFile       = report.File
	Limitation       = report.Limitation
	ReportChecks     = report.Checks
	CheckRef         = report.CheckRef
)

// Kinds of decisions and of limitations in the final report.
const (
	DecisionRejected = report.DecisionRejected
	DecisionConflict = report.DecisionConflict
	LimitRun         = report.LimitRun
)

// CostLabel is how a run's cost is written (report.CostLabel).
func CostLabel(usd float64, l store.RunLimits) string { return report.CostLabel(usd, l) }

// OutcomeLabel is how a run status is named to a person
// (report.OutcomeLabel).
func OutcomeLabel(status string) string { return report.OutcomeLabel(status) }

// ConflictOpen reports whether a conflict with this resolution is still
// open (report.ConflictOpen).
func ConflictOpen(resolution string) bool { return report.ConflictOpen(resolution) }

// Report writes a run as a Markdown document (report.Markdown).
func Report(s Snapshot) string {
	return report.Markdown(s.Run, s.Tasks, s.Workers, s.Answers, s.FinalReport) + report.PermissionLog(s.Permissions)
}

// Snapshot is the whole state of a run, for a view that opens late
// (runstore.Snapshot).
type Snapshot = runstore.Snapshot

// LoadSnapshot reads run runID from the store alone, without an engine:
// what the window's views and the terminal's "baton show" and "baton
// export" read (runstore.Load).
func LoadSnapshot(ctx context.Context, st *store.Store, runID string) (Snapshot, error) {
	return runstore.Load(ctx, st, runID)
}

// LoadReport is LoadSnapshot with the final report of a finished run that
// has none stored built from its history (runstore.LoadReport).
func LoadReport(ctx context.Context, st *store.Store, runID string) (Snapshot, error) {
	return runstore.LoadReport(ctx, st, runID, facts)
}

// BuildFinalReport builds the final report of a run from its state and its
// stored events (oldest first).
func BuildFinalReport(s Snapshot, events []store.Event) FinalReport {
	return runstore.BuildReport(s, events, facts)
}

// ExportJSON is the JSON export of a run (runstore.ExportJSON).
func ExportJSON(s Snapshot) ([]byte, error) { return runstore.ExportJSON(s) }

// facts are the events the final report counts, by kind (report.History).
var facts = map[string]report.FactKind{EventWorkerCompleted: report.FactApproved, EventWorkerRejected: report.FactRejected,
	EventWorkerQuestion: report.FactQuestion, EventWorkerAnswered: report.FactAnswered, EventWorkerRetrying: report.FactRetry,
	EventWorkerReprompted: report.FactReprompt, EventReprompted: report.FactReprompt, EventRemediation: report.FactRemediation,
	EventLimitWaiting: report.FactLimitWait}

// finalReport builds the final report of run, finishing with plan as it
// is in memory (the run synced), with the answers stored and those of the change
// that finishes it (extra), and the stored events; its files are those
// present says the result holds (nil: all).
func finalReport(ctx context.Context, st *store.Store, log *slog.Logger, run store.Run, plan *taskPlan, extra []store.PhaseAnswer,
	present func(string) bool) FinalReport {
	ctx = context.WithoutCancel(ctx)
	answers, err := st.Answers(ctx, run.ID)
	if err != nil {
		log.Warn("final report: read the answers", "err", err)
	}
	events, err := runstore.Events(ctx, st, run.ID)
	if err != nil {
		log.Warn("final report: read the events", "err", err)
	}
	var workers []store.Worker
	for _, ws := range plan.inOrder() {
		workers = append(workers, ws.w)
	}
	all := append(answers, extra...)
	rep := report.Build(run, plan.tasks, workers, all, report.History(events, facts))
	stored, err := st.Checks(ctx, run.ID)
	if err != nil {
		log.Warn("final report: read the checks", "err", err)
	}
	rep.AddChecks(runstore.ChecksReport(run, stored, all))
	rep.KeepPresent(present)
	return rep
}

// FinalReport returns the final report stored when run runID finished. A
// run that finished before Baton stored final reports gets one built from
// its history; a run that has not finished gets ErrNotFinished.
func (e *Engine) FinalReport(ctx context.Context, runID string) (FinalReport, error) {
	snap, err := LoadReport(ctx, e.store, runID)
	if err != nil {
		return FinalReport{}, err
	}
	if snap.FinalReport == nil {
		return FinalReport{}, fmt.Errorf("run %s is %s: %w", runID, snap.Run.Status, ErrNotFinished)
	}
	return *snap.FinalReport, nil
}
