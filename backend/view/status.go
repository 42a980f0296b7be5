package view

import (
	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/store"
)

// The statuses of a run, as Run.Status holds them (status_test.go holds
// them equal to the store's).
const (
	RunCreated             = "created"
	RunAnalyzing           = "analyzing"
	RunPlanning            = "planning"
	RunConfirming          = "confirming"
	RunSpawning            = "spawning"
	RunRunning             = "running"
	RunAggregating         = "aggregating"
	RunVerifying           = "verifying"
	RunCompleted           = "completed"
	RunPaused              = "paused"
	RunCancelled           = "cancelled"
	RunError               = "error"
	RunInterrupted         = "interrupted"
	RunCompletedWithIssues = "completed_with_issues"
	RunFailed              = "failed"
)

// The statuses of a worker, as Worker.Status holds them.
const (
	WorkerPending        = "pending"
	WorkerSpawning       = "spawning"
	WorkerRunning        = "running"
	WorkerPaused         = "paused"
	WorkerCompleted      = "completed"
	WorkerFailed         = "failed"
	WorkerTimeout        = "timeout"
	WorkerCancelled      = "cancelled"
	WorkerAwaitingReview = "awaiting_review"
	WorkerRejected       = "rejected"
)

// Finished reports whether a run in status is over: completed (with or
// without issues), failed, cancelled or ended in an error.
func Finished(status string) bool { return store.Finished(status) }

// ValidRunStatus reports whether status names a run status.
func ValidRunStatus(status string) bool { return store.ValidRunStatus(status) }

// StatusLabel names a run status for a person: "completed with issues".
func StatusLabel(status string) string { return engine.OutcomeLabel(status) }

// CostLabel is a run's cost as written, simulated or estimated said.
func CostLabel(r Run) string { return engine.CostLabel(r.CostUSD, store.RunLimits(r.Limits)) }

// ConflictOpen reports whether a conflict with this resolution is still
// open (no resolution, or one that says it was not resolved).
func ConflictOpen(resolution string) bool { return engine.ConflictOpen(resolution) }
