// Package runstatus is where a run and each of its workers stand (seed
// 002): the statuses by the store's names and their legal transitions. An
// illegal transition is an ErrIllegalTransition that names both.
package runstatus

import (
	"errors"
	"fmt"

	"github.com/baton-app/baton/backend/store"
)

// ErrIllegalTransition is returned when a run or worker is asked to move to
// a status it cannot reach from where it is; the error names both.
var ErrIllegalTransition = errors.New("illegal transition")

// Run is where an orchestration stands (seed 002).
type Run uint8

// The statuses of a run, in the order a run goes through them.
const (
	RunCreated Run = iota
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

func (s Run) String() string {
	if int(s) < len(runStatusNames) {
		return runStatusNames[s]
	}
	return fmt.Sprintf("RunStatus(%d)", s)
}

// ParseRun reads a status name.
func ParseRun(name string) (Run, error) {
	for i, n := range runStatusNames {
		if n == name {
			return Run(i), nil
		}
	}
	return 0, fmt.Errorf("unknown run status %q", name)
}

// Runs lists every run status.
func Runs() []Run {
	out := make([]Run, len(runStatusNames))
	for i := range out {
		out[i] = Run(i)
	}
	return out
}

// Finished reports whether the run is over.
func (s Run) Finished() bool {
	return s < Run(len(runStatusNames)) && store.Finished(runStatusNames[s])
}

// Active statuses can be paused, interrupted, cancelled and fail.
func (s Run) Active() bool { return !s.Finished() && !s.Held() }

// Held statuses (paused, interrupted) wait for Resume, which returns the run
// to the status it was held in.
func (s Run) Held() bool { return s == RunPaused || s == RunInterrupted }

var runNext = map[Run][]Run{
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
func (s Run) Outcome() bool {
	return s == RunCompleted || s == RunCompletedWithIssues || s == RunFailed
}

// CanMove reports whether a run may go from s to next. Every unfinished
// status may be cancelled or fail; every active one may be paused; a paused
// run returns only to the status it was paused in (checked by the engine).
func (s Run) CanMove(next Run) bool {
	if s.Finished() {
		return false
	}
	switch next {
	case RunCancelled, RunError:
		return true
	case RunPaused, RunInterrupted:
		return s.Active()
	}
	if s.Held() {
		return next != RunCreated && next.Active()
	}
	for _, n := range runNext[s] {
		if n == next {
			return true
		}
	}
	return false
}

// Worker is where the worker of one task stands.
type Worker uint8

// The statuses of a worker.
const (
	WorkerPending Worker = iota
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

func (s Worker) String() string {
	if int(s) < len(workerStatusNames) {
		return workerStatusNames[s]
	}
	return fmt.Sprintf("WorkerStatus(%d)", s)
}

// ParseWorker reads a status name.
func ParseWorker(name string) (Worker, error) {
	for i, n := range workerStatusNames {
		if n == name {
			return Worker(i), nil
		}
	}
	return 0, fmt.Errorf("unknown worker status %q", name)
}

// Workers lists every worker status.
func Workers() []Worker {
	out := make([]Worker, len(workerStatusNames))
	for i := range out {
		out[i] = Worker(i)
	}
	return out
}

// Done reports whether the worker's task will not run again unless retried.
func (s Worker) Done() bool {
	return s == WorkerCompleted || s == WorkerFailed || s == WorkerCancelled
}

var workerNext = map[Worker][]Worker{
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
func (s Worker) CanMove(next Worker) bool {
	for _, n := range workerNext[s] {
		if n == next {
			return true
		}
	}
	return false
}

// IllegalRun is the error of a run that cannot go from from to to.
func IllegalRun(from, to Run) error {
	return fmt.Errorf("run is %s, cannot become %s: %w", from, to, ErrIllegalTransition)
}

// IllegalWorker is the error of task's worker that cannot go from from
// to to.
func IllegalWorker(task string, from, to Worker) error {
	return fmt.Errorf("worker %s is %s, cannot become %s: %w", task, from, to, ErrIllegalTransition)
}

// MarshalText writes the status by name, so JSON carries "running", not 5.
func (s Run) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a status name.
func (s *Run) UnmarshalText(b []byte) error {
	v, err := ParseRun(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// MarshalText writes the status by name.
func (s Worker) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a status name.
func (s *Worker) UnmarshalText(b []byte) error {
	v, err := ParseWorker(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// WorksOnHost: the statuses in which a run talks to its host by itself.
func (s Run) WorksOnHost() bool {
	switch s {
	case RunAnalyzing, RunPlanning, RunSpawning, RunRunning, RunAggregating, RunVerifying:
		return true
	}
	return false
}
