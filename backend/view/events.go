package view

import (
	"time"

	"github.com/baton-app/baton/backend/engine"
)

// The names of the events of a run (the engine's own constants), for the
// faces that follow a run as it goes.
const (
	EventPhaseChanged         = engine.EventPhaseChanged
	EventStatusChanged        = engine.EventStatusChanged
	EventAnalysisComplete     = engine.EventAnalysisComplete
	EventTasksReady           = engine.EventTasksReady
	EventTasksInvalid         = engine.EventTasksInvalid
	EventProgress             = engine.EventProgress
	EventReprompted           = engine.EventReprompted
	EventError                = engine.EventError
	EventCancelled            = engine.EventCancelled
	EventPaused               = engine.EventPaused
	EventResumed              = engine.EventResumed
	EventReconnecting         = engine.EventReconnecting
	EventReconnected          = engine.EventReconnected
	EventWorkerStarted        = engine.EventWorkerStarted
	EventWorkerProgress       = engine.EventWorkerProgress
	EventWorkerCompleted      = engine.EventWorkerCompleted
	EventWorkerFailed         = engine.EventWorkerFailed
	EventWorkerTimeout        = engine.EventWorkerTimeout
	EventWorkerRetrying       = engine.EventWorkerRetrying
	EventWorkerReprompted     = engine.EventWorkerReprompted
	EventWorkerSkipped        = engine.EventWorkerSkipped
	EventWorkerPaused         = engine.EventWorkerPaused
	EventWorkerWaiting        = engine.EventWorkerWaiting
	EventWorkerMemory         = engine.EventWorkerMemory
	EventWorkerAwaitingReview = engine.EventWorkerAwaitingReview
	EventWorkerRejected       = engine.EventWorkerRejected
	EventWorkerQuestion       = engine.EventWorkerQuestion
	EventWorkerAnswered       = engine.EventWorkerAnswered
	EventLimitWaiting         = engine.EventLimitWaiting
	EventLimitDue             = engine.EventLimitDue
	EventLimitResumed         = engine.EventLimitResumed
	EventBudgetWarning        = engine.EventBudgetWarning
	EventBudgetReached        = engine.EventBudgetReached
	EventBudgetRaised         = engine.EventBudgetRaised
	EventWorkerMerged         = engine.EventWorkerMerged
	EventMergeConflict        = engine.EventMergeConflict
	EventWorktree             = engine.EventWorktree
	EventChecks               = engine.EventChecks
	EventHostMoved            = engine.EventHostMoved
)

// Event is one event of a run: its name (domain:what) and what it carries,
// the run's id and status and the worker it is about, if any. Progress
// events carry only what changed.
type Event struct {
	Name    string  `json:"name"`
	RunID   string  `json:"runId"`
	Status  string  `json:"status"`
	Phase   string  `json:"phase,omitempty"`
	TaskID  string  `json:"taskId,omitempty"`
	Message string  `json:"message,omitempty"`
	Worker  *Worker `json:"worker,omitempty"`
	// Workers carries coalesced worker progress.
	Workers []Worker `json:"workers,omitempty"`
	// Run carries counters and totals on run-level events.
	Run *Run `json:"run,omitempty"`
	// Problems lists what is wrong with a task list.
	Problems []string `json:"problems,omitempty"`
	// Skipped names tasks skipped because of this event.
	Skipped []string `json:"skipped,omitempty"`
	// Tasks and Groups carry the proposed plan on tasksReady.
	Tasks  []Task     `json:"tasks,omitempty"`
	Groups [][]string `json:"groups,omitempty"`
	// Reconnecting is set on EventReconnecting.
	Reconnecting *Reconnecting `json:"reconnecting,omitempty"`
	// ResumesAt is when a run waiting for a limit goes on; Limit is the
	// kind of limit (limit events).
	ResumesAt *time.Time `json:"resumesAt,omitempty"`
	Limit     string     `json:"limit,omitempty"`
	// Tool is the main session's tool call that runs now, on
	// orchestrator:progress (nil: none; Message is its latest action).
	Tool *RunningTool `json:"tool,omitempty"`
}

// EventOf is the view of an event sent through the service's event fan-out,
// and false when it is not an event of a run (templates, host status, the
// inbox send their own).
func EventOf(name string, payload any) (Event, bool) {
	p, ok := payload.(engine.Payload)
	if !ok {
		return Event{}, false
	}
	e := Event{Name: name, RunID: p.RunID, Status: p.Status, Phase: p.Phase, TaskID: p.TaskID, Message: p.Message,
		Workers: mapAll(p.Workers, WorkerOf), Problems: p.Problems, Skipped: p.Skipped,
		Tasks: mapAll(p.Tasks, TaskOf), Groups: p.Groups, Reconnecting: ReconnectingOf(p.Reconnecting),
		ResumesAt: p.ResumesAt, Limit: p.Limit, Tool: RunningToolOf(p.Tool)}
	if p.Worker != nil {
		w := WorkerOf(*p.Worker)
		e.Worker = &w
	}
	if p.Run != nil {
		r := RunOf(*p.Run)
		e.Run = &r
	}
	return e, true
}
