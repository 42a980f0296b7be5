package engine

import (
	"errors"
	"fmt"

	"github.com/baton-app/baton/backend/store"
)

// ErrIllegalTransition is returned when a run or worker is asked to move to
// a status it cannot reach from where it is; the error names both.
var ErrIllegalTransition = errors.New("illegal transition")

// RunStatus is where an orchestration stands (seed 002).
type RunStatus uint8

// The statuses of a run, in the order a run goes through them.
const (
	RunCreated RunStatus = iota
	RunAnalyzing
	RunPlanning
	RunConfirming
	RunSpawning
	RunRunning
	RunAggregating
	RunVerifying
	RunCompleted
	RunPaused
	RunCancelled
	RunError
	// RunInterrupted: the run stopped because its host or its store failed
	// past their bounds; everything done is kept, and Resume continues it
	// from the status it was in (like a pause the user did not ask for).
	RunInterrupted
	// RunCompletedWithIssues: the run reached its end, but not everything
	// it was asked is done: a task failed or was skipped, a conflict is
	// still open, the aggregation is partial, or the verification still
	// fails after its last round. Run.Issues says which (backend/report).
	RunCompletedWithIssues
	// RunFailed: the run reached its end without doing anything useful
	// (no task completed).
	RunFailed
)

// runStatusNames are the store's names, in the order of the constants.
var runStatusNames = store.RunStatusNames()

func (s RunStatus) String() string {
	if int(s) < len(runStatusNames) {
		return runStatusNames[s]
	}
	return fmt.Sprintf("RunStatus(%d)", s)
}

// ParseRunStatus reads a status name.
func ParseRunStatus(name string) (RunStatus, error) {
	for i, n := range runStatusNames {
		if n == name {
			return RunStatus(i), nil
		}
	}
	return 0, fmt.Errorf("unknown run status %q", name)
}

// RunStatuses lists every run status.
func RunStatuses() []RunStatus {
	out := make([]RunStatus, len(runStatusNames))
	for i := range out {
		out[i] = RunStatus(i)
	}
	return out
}

// Finished reports whether the run is over.
func (s RunStatus) Finished() bool {
	return s < RunStatus(len(runStatusNames)) && store.Finished(runStatusNames[s])
}

// active statuses can be paused, interrupted, cancelled and fail.
func (s RunStatus) active() bool { return !s.Finished() && !s.held() }

// held statuses (paused, interrupted) wait for Resume, which returns the run
// to the status it was held in.
func (s RunStatus) held() bool { return s == RunPaused || s == RunInterrupted }

var runNext = map[RunStatus][]RunStatus{
	RunCreated:    {RunAnalyzing, RunPlanning},
	RunAnalyzing:  {RunPlanning},
	RunPlanning:   {RunConfirming},
	RunConfirming: {RunSpawning},
	// A run that reaches its end becomes one of the outcomes (backend/report).
	RunSpawning:    {RunRunning, RunAggregating, RunVerifying, RunCompleted, RunCompletedWithIssues, RunFailed},
	RunRunning:     {RunAggregating, RunVerifying, RunCompleted, RunCompletedWithIssues, RunFailed},
	RunAggregating: {RunVerifying, RunCompleted, RunCompletedWithIssues, RunFailed},
	// Running again: remediation tasks (seed 004).
	RunVerifying: {RunCompleted, RunCompletedWithIssues, RunFailed, RunRunning},
}

// Outcome reports whether s is one of the statuses a run ends in when it
// reached its end (completed, completed with issues, failed), rather than
// being cancelled or stopped by an error.
func (s RunStatus) Outcome() bool {
	return s == RunCompleted || s == RunCompletedWithIssues || s == RunFailed
}

// CanMove reports whether a run may go from s to next. Every unfinished
// status may be cancelled or fail; every active one may be paused; a paused
// run returns only to the status it was paused in (checked by the engine).
func (s RunStatus) CanMove(next RunStatus) bool {
	if s.Finished() {
		return false
	}
	switch next {
	case RunCancelled, RunError:
		return true
	case RunPaused, RunInterrupted:
		return s.active()
	}
	if s.held() {
		return next != RunCreated && next.active()
	}
	for _, n := range runNext[s] {
		if n == next {
			return true
		}
	}
	return false
}

// Phase names the step of the main session (seed 002).
type Phase string

// The phases of a run.
const (
	PhaseAnalysis        Phase = "analysis"
	PhaseTaskPlanning    Phase = "taskPlanning"
	PhaseWorkerExecution Phase = "workerExecution"
	PhaseAggregation     Phase = "aggregation"
	PhaseVerification    Phase = "verification"
)

// WorkerStatus is where the worker of one task stands.
type WorkerStatus uint8

// The statuses of a worker.
const (
	WorkerPending WorkerStatus = iota
	WorkerSpawning
	WorkerRunning
	WorkerPaused
	WorkerCompleted
	WorkerFailed
	WorkerTimeout
	WorkerCancelled
	WorkerAwaitingReview
	WorkerRejected
)

// workerStatusNames are the store's names, in the order of the constants.
var workerStatusNames = store.WorkerStatusNames()

func (s WorkerStatus) String() string {
	if int(s) < len(workerStatusNames) {
		return workerStatusNames[s]
	}
	return fmt.Sprintf("WorkerStatus(%d)", s)
}

// ParseWorkerStatus reads a status name.
func ParseWorkerStatus(name string) (WorkerStatus, error) {
	for i, n := range workerStatusNames {
		if n == name {
			return WorkerStatus(i), nil
		}
	}
	return 0, fmt.Errorf("unknown worker status %q", name)
}

// WorkerStatuses lists every worker status.
func WorkerStatuses() []WorkerStatus {
	out := make([]WorkerStatus, len(workerStatusNames))
	for i := range out {
		out[i] = WorkerStatus(i)
	}
	return out
}

// Done reports whether the worker's task will not run again unless retried.
func (s WorkerStatus) Done() bool {
	return s == WorkerCompleted || s == WorkerFailed || s == WorkerCancelled
}

var workerNext = map[WorkerStatus][]WorkerStatus{
	// A pending task fails when its worker cannot be prepared (its prompt,
	// its mailbox assignment).
	WorkerPending:  {WorkerSpawning, WorkerPaused, WorkerCancelled, WorkerFailed},
	WorkerSpawning: {WorkerRunning, WorkerPending, WorkerFailed, WorkerCancelled},
	// Running back to pending: an automatic retry in a new session.
	WorkerRunning:        {WorkerCompleted, WorkerFailed, WorkerTimeout, WorkerPaused, WorkerCancelled, WorkerAwaitingReview, WorkerPending},
	WorkerPaused:         {WorkerPending, WorkerRunning, WorkerCancelled},
	WorkerTimeout:        {WorkerPending, WorkerFailed, WorkerCancelled},
	WorkerFailed:         {WorkerPending},
	WorkerCancelled:      {WorkerPending},
	WorkerAwaitingReview: {WorkerCompleted, WorkerRejected, WorkerCancelled},
	// Rejected to failed: rejected more than config.maxRetries times.
	WorkerRejected:  {WorkerPending, WorkerCancelled, WorkerFailed},
	WorkerCompleted: {},
}

// CanMove reports whether a worker may go from s to next. Going back to
// pending from failed, cancelled, timeout or rejected is a retry.
func (s WorkerStatus) CanMove(next WorkerStatus) bool {
	for _, n := range workerNext[s] {
		if n == next {
			return true
		}
	}
	return false
}

func illegalRun(from, to RunStatus) error {
	return fmt.Errorf("run is %s, cannot become %s: %w", from, to, ErrIllegalTransition)
}

func illegalWorker(task string, from, to WorkerStatus) error {
	return fmt.Errorf("worker %s is %s, cannot become %s: %w", task, from, to, ErrIllegalTransition)
}

// MarshalText writes the status by name, so JSON carries "running", not 5.
func (s RunStatus) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a status name.
func (s *RunStatus) UnmarshalText(b []byte) error {
	v, err := ParseRunStatus(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// MarshalText writes the status by name.
func (s WorkerStatus) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a status name.
func (s *WorkerStatus) UnmarshalText(b []byte) error {
	v, err := ParseWorkerStatus(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
