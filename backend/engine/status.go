package engine

import (
	"fmt"

	"github.com/baton-app/baton/backend/runstatus"
	"github.com/baton-app/baton/backend/store"
)

// Where a run and its workers stand, and their legal transitions
// (backend/runstatus).
type (
	RunStatus    = runstatus.Run
	WorkerStatus = runstatus.Worker
)

// ErrIllegalTransition is returned when a run or worker is asked to move to
// a status it cannot reach from where it is; the error names both.
var ErrIllegalTransition = runstatus.ErrIllegalTransition

// The statuses of a run (runstatus).
const (
	RunCreated             = runstatus.RunCreated
	RunAnalyzing           = runstatus.RunAnalyzing
	RunPlanning            = runstatus.RunPlanning
	RunConfirming          = runstatus.RunConfirming
	RunSpawning            = runstatus.RunSpawning
	RunRunning             = runstatus.RunRunning
	RunAggregating         = runstatus.RunAggregating
	RunVerifying           = runstatus.RunVerifying
	RunCompleted           = runstatus.RunCompleted
	RunPaused              = runstatus.RunPaused
	RunCancelled           = runstatus.RunCancelled
	RunError               = runstatus.RunError
	RunInterrupted         = runstatus.RunInterrupted
	RunCompletedWithIssues = runstatus.RunCompletedWithIssues
	RunFailed              = runstatus.RunFailed
)

// The statuses of a worker (runstatus).
const (
	WorkerPending        = runstatus.WorkerPending
	WorkerSpawning       = runstatus.WorkerSpawning
	WorkerRunning        = runstatus.WorkerRunning
	WorkerPaused         = runstatus.WorkerPaused
	WorkerCompleted      = runstatus.WorkerCompleted
	WorkerFailed         = runstatus.WorkerFailed
	WorkerTimeout        = runstatus.WorkerTimeout
	WorkerCancelled      = runstatus.WorkerCancelled
	WorkerAwaitingReview = runstatus.WorkerAwaitingReview
	WorkerRejected       = runstatus.WorkerRejected
)

func illegalWorker(task string, from, to WorkerStatus) error {
	return runstatus.IllegalWorker(task, from, to)
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

// runPos is where the run stands: its status and, while it is held
// (paused, interrupted), the status Resume returns it to. move and unpause
// are the guards of its transitions.
type runPos struct {
	status RunStatus
	resume RunStatus
}

// move changes the run's status when the transition is legal.
func (p *runPos) move(next RunStatus) error {
	if !p.status.CanMove(next) {
		return runstatus.IllegalRun(p.status, next)
	}
	p.status = next
	return nil
}

// enter moves the run (its row, run) to the status and phase of a
// main-session phase.
func (p *runPos) enter(next RunStatus, phase Phase, run *store.Run) error {
	if err := p.move(next); err != nil {
		return err
	}
	run.Phase = string(phase)
	return nil
}

// unpause returns a paused run to the status it was paused in, whichever
// that was (created included): the guard of that transition.
func (p *runPos) unpause() error {
	if !p.status.Held() {
		return fmt.Errorf("run is %s, not paused: %w", p.status, ErrIllegalTransition)
	}
	p.status = p.resume
	return nil
}
