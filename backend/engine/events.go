package engine

import "github.com/baton-app/baton/backend/runledger"

// Event names (seed 002), declared once; the frontend has a matching
// TypeScript union.
const (
	EventCreated          = "orchestrator:created"
	EventStarted          = "orchestrator:started"
	EventPhaseChanged     = "orchestrator:phaseChanged"
	EventStatusChanged    = runledger.EventStatusChanged
	EventAnalysisComplete = "orchestrator:analysisComplete"
	EventTasksReady       = "orchestrator:tasksReady"
	EventTasksInvalid     = "orchestrator:tasksInvalid"
	EventWorkersSpawned   = "orchestrator:workersSpawned"
	EventProgress         = "orchestrator:progress"
	EventReprompted       = "orchestrator:reprompted"
	EventCompleted        = "orchestrator:completed"
	EventError            = "orchestrator:error"
	EventCancelled        = "orchestrator:cancelled"
	EventPaused           = "orchestrator:paused"
	EventResumed          = "orchestrator:resumed"
	// EventReconnecting: the run's host was lost; the run waits for it
	// (Payload.Reconnecting says until when). EventReconnected: it is back.
	EventReconnecting = "orchestrator:reconnecting"
	EventReconnected  = "orchestrator:reconnected"
	// EventRemediation: verification failed and its issues became new tasks
	// (Payload.Tasks); the run is back in worker execution (seed 004).
	EventRemediation = "orchestrator:remediation"

	EventWorkerSpawned    = "worker:spawned"
	EventWorkerStarted    = "worker:started"
	EventWorkerProgress   = "worker:progress"
	EventWorkerCompleted  = "worker:completed"
	EventWorkerFailed     = "worker:failed"
	EventWorkerTimeout    = "worker:timeout"
	EventWorkerRetrying   = "worker:retrying"
	EventWorkerReprompted = "worker:reprompted"
	EventWorkerSkipped    = "worker:skipped"
	EventWorkerPaused     = "worker:paused"
	EventWorkerResumed    = "worker:resumed"
	EventWorkerCancelled  = "worker:cancelled"
	EventWorkerWaiting    = "worker:permission"
	// EventWorkerMemory: a ready worker waits for memory to start (the
	// host's session.Roomer says one more session does not fit).
	EventWorkerMemory = "worker:waitingMemory"
	// EventWorkerAwaitingReview: the task waits for its reviewer (seed 001).
	EventWorkerAwaitingReview = "worker:awaitingReview"
	// EventWorkerRejected: the reviewer rejected the task; the message is
	// the reason, and a worker:retrying (or worker:failed) follows.
	EventWorkerRejected = "worker:rejected"
	// EventWorkerQuestion: the worker asked for clarification (seed 003);
	// Worker.Questions lists the questions, Engine.Answer answers them.
	EventWorkerQuestion = "worker:question"
	// EventWorkerAnswered: the answer was sent to the worker's session.
	EventWorkerAnswered = "worker:answered"

	// EventLimitWaiting: a worker hit a rate, overload or usage limit; the
	// run waits until Payload.ResumesAt (backend/limits).
	EventLimitWaiting = "orchestrator:limitWaiting"
	// EventLimitDue: the wait is over, the automatic resume is off: the
	// run waits for Engine.ResumeAfterLimit.
	EventLimitDue = "orchestrator:limitDue"
	// EventLimitResumed: the wait for a limit ended; its workers go on.
	EventLimitResumed = "orchestrator:limitResumed"
	// EventBudgetWarning: the run used 80 % of its budget.
	EventBudgetWarning = "orchestrator:budgetWarning"
	// EventBudgetReached: the run used its budget and paused.
	EventBudgetReached = "orchestrator:budgetReached"
	// EventBudgetRaised: the budget was raised (the run goes on).
	EventBudgetRaised = "orchestrator:budgetRaised"
	// EventModelRetry: the Claude Code CLI of a worker (TaskID) or of the
	// main session (no TaskID) retries a request to the model; the message
	// says why and which attempt ("waiting for the model (rate limited),
	// attempt 2 of 10").
	EventModelRetry = "orchestrator:modelRetry"
	// EventPermissionDecided: a permission prompt of the run was answered
	// (by the user or by a rule) and logged, or the user added a rule to
	// the run; the message says which.
	EventPermissionDecided = "permission:decided"
)

// EventNames lists every event the engine emits.
func EventNames() []string {
	return []string{EventCreated, EventStarted, EventPhaseChanged, EventStatusChanged, EventAnalysisComplete,
		EventTasksReady, EventTasksInvalid, EventWorkersSpawned, EventProgress, EventReprompted, EventCompleted,
		EventError, EventCancelled, EventPaused, EventResumed, EventReconnecting, EventReconnected, EventWorkerSpawned, EventWorkerStarted,
		EventWorkerProgress, EventWorkerCompleted, EventWorkerFailed, EventWorkerTimeout, EventWorkerRetrying,
		EventWorkerReprompted, EventWorkerSkipped, EventWorkerPaused, EventWorkerResumed, EventWorkerCancelled,
		EventWorkerWaiting, EventWorkerMemory, EventWorkerAwaitingReview, EventWorkerRejected,
		EventWorkerQuestion, EventWorkerAnswered, EventRemediation,
		EventLimitWaiting, EventLimitDue, EventLimitResumed, EventBudgetWarning, EventBudgetReached, EventBudgetRaised,
		EventModelRetry, EventWorkerMerged, EventMergeConflict, EventWorktree, EventChecks, EventHostMoved, EventPermissionDecided}
}

// What every event carries, and who receives them (backend/runledger).
type (
	Payload     = runledger.Payload
	Emitter     = runledger.Emitter
	EmitterFunc = runledger.EmitterFunc
)
