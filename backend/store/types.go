package store

import (
	"encoding/json"
	"slices"
	"time"
)

// The statuses the store accepts, each named here once. The engine numbers
// them in this order (engine.RunStatus, engine.WorkerStatus) and owns their
// meaning and the transitions between them; the store refuses anything else.
var (
	runStatusNames = []string{"created", "analyzing", "planning", "confirming", "spawning", "running",
		"aggregating", "verifying", "completed", "paused", "cancelled", "error", "interrupted",
		// A run that reached its end without doing everything it was asked
		// (Run.Issues says what), and one that did nothing useful.
		"completed_with_issues", "failed"}
	workerStatusNames = []string{"pending", "spawning", "running", "paused", "completed", "failed",
		"timeout", "cancelled", "awaiting_review", "rejected"}
	// finishedRunStatuses are the statuses of a run that is over.
	finishedRunStatuses = []string{"completed", "cancelled", "error", "completed_with_issues", "failed"}
)

// RunStatusNames lists the run statuses, in the order a run goes through
// them.
func RunStatusNames() []string { return slices.Clone(runStatusNames) }

// WorkerStatusNames lists the worker statuses.
func WorkerStatusNames() []string { return slices.Clone(workerStatusNames) }

// ValidRunStatus reports whether s is a run status the store accepts.
func ValidRunStatus(s string) bool { return slices.Contains(runStatusNames, s) }

// ValidWorkerStatus reports whether s is a worker status the store accepts.
func ValidWorkerStatus(s string) bool { return slices.Contains(workerStatusNames, s) }

// Finished reports whether a run in status s is over (completed, cancelled or
// error).
func Finished(s string) bool { return slices.Contains(finishedRunStatuses, s) }

// Run is one orchestration as stored and shown.
type Run struct {
	ID           string         `json:"id"`
	TemplateID   string         `json:"templateId"`
	TemplateName string         `json:"templateName"`
	Cwd          string         `json:"cwd"`
	Request      string         `json:"request"`
	Variables    map[string]any `json:"variables"`
	Status       string         `json:"status"`
	// ResumeStatus is where a paused run returns to.
	ResumeStatus  string `json:"resumeStatus,omitempty"`
	Phase         string `json:"phase"`
	MainSessionID string `json:"mainSessionId,omitempty"`
	// Message is the latest note for the user, such as why a task list
	// cannot be confirmed yet.
	Message string `json:"message,omitempty"`
	Error   string `json:"error,omitempty"`
	// Issues are the reasons a finished run is completed_with_issues or
	// failed: one short sentence each (empty for a clean run).
	Issues         []string   `json:"issues"`
	TasksTotal     int        `json:"tasksTotal"`
	TasksCompleted int        `json:"tasksCompleted"`
	TasksFailed    int        `json:"tasksFailed"`
	TasksSkipped   int        `json:"tasksSkipped"`
	InputTokens    int64      `json:"inputTokens"`
	OutputTokens   int64      `json:"outputTokens"`
	CostUSD        float64    `json:"costUsd"`
	CreatedAt      time.Time  `json:"createdAt"`
	UpdatedAt      time.Time  `json:"updatedAt"`
	StartedAt      *time.Time `json:"startedAt,omitempty"`
	CompletedAt    *time.Time `json:"completedAt,omitempty"`

	// Template is the resolved template the run uses, frozen at creation.
	Template json.RawMessage `json:"-"`
	// State is the engine's own bookkeeping (cursors, prompts asked).
	State json.RawMessage `json:"-"`
	// Limits is what the run shows about limits and its budget.
	Limits RunLimits `json:"limits"`
	// Host is the session host that served the run (the zero RunHost for
	// a run stored before Baton kept it).
	Host RunHost `json:"host"`
}

// RunHost is the session host that served a run: its kind and what it
// connected to, so that a resume goes on there.
type RunHost struct {
	// Kind is the host setting's value ("simulator", "desktop",
	// "claude-code"); "" for a run stored before Baton kept it.
	Kind string `json:"kind,omitempty"`
	// Label is how the UI names the kind.
	Label string `json:"label,omitempty"`
	// Path is the program the host ran (the Claude Code CLI's binary).
	Path string `json:"path,omitempty"`
	// Version is that program's version.
	Version string `json:"version,omitempty"`
	// Endpoint is what the host attached to (Claude Desktop's DevTools
	// endpoint, the simulator's page).
	Endpoint string `json:"endpoint,omitempty"`
	// Description names the host as a person reads it ("Claude Code CLI
	// 2.1.328 (/usr/bin/claude)").
	Description string `json:"description,omitempty"`
}

// CheckResult is how one of the project's checks went when Baton ran it
// for a run: round 0 is the baseline taken before the workers started,
// round N the Nth time the workers' results came together.
type CheckResult struct {
	RunID    string `json:"runId"`
	Round    int    `json:"round"`
	Position int    `json:"position"`
	Name     string `json:"name"`
	Command  string `json:"command"`
	// Status is passed, failed, timeout or error (it could not run).
	Status     string `json:"status"`
	ExitCode   int    `json:"exitCode"`
	DurationMS int64  `json:"durationMs"`
	// Tail is the end of the check's output.
	Tail string `json:"tail"`
	// Message says why a check did not run to its end.
	Message string `json:"message,omitempty"`
	// Verdict compares the result with the baseline: passes, fixed,
	// broken, pre-existing, new-failure (baseline for round 0).
	Verdict string `json:"verdict"`
	// Dir is where it ran.
	Dir       string    `json:"dir,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

// RunLimits is what a run shows about the limits it waits for and its
// budget (issue 17).
type RunLimits struct {
	// WaitingUntil is when a run waiting for a limit goes on; WaitingFor is
	// the kind of limit (rate_limit, overloaded, usage_limit).
	WaitingUntil *time.Time `json:"waitingUntil,omitempty"`
	WaitingFor   string     `json:"waitingFor,omitempty"`
	// ResumeDue: the wait is over but the automatic resume is off; the run
	// waits for the user's Resume now.
	ResumeDue bool `json:"resumeDue,omitempty"`
	// WorkerCap is the lowered number of workers at once (0: maxWorkers).
	WorkerCap int `json:"workerCap,omitempty"`
	// BudgetUSD and BudgetTokens are the run's budget (0: no cap).
	BudgetUSD    float64 `json:"budgetUsd,omitempty"`
	BudgetTokens int64   `json:"budgetTokens,omitempty"`
	// BudgetWarned: 80 % of the budget is used; BudgetPaused: all of it,
	// and the run paused.
	BudgetWarned bool `json:"budgetWarned,omitempty"`
	BudgetPaused bool `json:"budgetPaused,omitempty"`
	// CostEstimated: some of the cost was computed from Baton's price table
	// (the host reported tokens without cost).
	CostEstimated bool `json:"costEstimated,omitempty"`
	// CostSimulated: the run ran on the simulator; its costs are simulated.
	CostSimulated bool `json:"costSimulated,omitempty"`
}

// Task is one task of a run's plan.
type Task struct {
	RunID        string   `json:"runId"`
	ID           string   `json:"id"`
	Position     int      `json:"position"`
	Title        string   `json:"title"`
	Description  string   `json:"description"`
	Scope        []string `json:"scope"`
	Priority     int      `json:"priority"`
	Dependencies []string `json:"dependencies"`
	Complexity   string   `json:"complexity,omitempty"`
	// Skipped is set when the user chose not to run the task.
	Skipped bool `json:"skipped"`
	// Definition is the task as the planner wrote it (protocol.Task).
	Definition json.RawMessage `json:"definition,omitempty"`
	// Skills are the ids of the skills matched to the task (seed 004).
	Skills []string `json:"skills"`
}

// ToolStats counts a worker's tool calls by kind, and names the call that
// runs now.
type ToolStats struct {
	Total  int `json:"total"`
	Reads  int `json:"reads"`
	Writes int `json:"writes"`
	Edits  int `json:"edits"`
	Bash   int `json:"bash"`
	Search int `json:"search"`
	Web    int `json:"web"`
	Task   int `json:"task"`
	Other  int `json:"other"`
	// Running is the tool call that has no result yet (nil: none).
	Running *RunningTool `json:"running,omitempty"`
}

// RunningTool is a tool call the agent made whose result has not come yet:
// the tool, the gist of its input ("go test ./...", "api.go") and when
// the call was read.
type RunningTool struct {
	Name      string    `json:"name"`
	Input     string    `json:"input,omitempty"`
	StartedAt time.Time `json:"startedAt"`
}

// SameTool reports whether a and b are the same running call (or both
// none).
func SameTool(a, b *RunningTool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// Permission is a tool call a worker is blocked on.
type Permission struct {
	RequestID string          `json:"requestId"`
	ToolName  string          `json:"toolName"`
	Input     json.RawMessage `json:"input,omitempty"`
	// ToolUseID is the id of the call that asks, when the host says it.
	ToolUseID string `json:"toolUseId,omitempty"`
	// Summary says what the call does (its command, file or URL); Key is
	// the same for identical prompts; Suggestions are the rules that would
	// allow it for the run, narrowest first.
	Summary     string       `json:"summary,omitempty"`
	Key         string       `json:"key,omitempty"`
	Suggestions []Suggestion `json:"suggestions,omitempty"`
}

// Suggestion is a permission rule offered for a prompt, with what it
// covers in words.
type Suggestion struct {
	Rule  string `json:"rule"`
	Label string `json:"label"`
}

// Worker is the session that runs one task (its latest attempt).
type Worker struct {
	RunID         string    `json:"runId"`
	TaskID        string    `json:"taskId"`
	SessionID     string    `json:"sessionId,omitempty"`
	Status        string    `json:"status"`
	RetryCount    int       `json:"retryCount"`
	Progress      float64   `json:"progress"`
	CurrentAction string    `json:"currentAction,omitempty"`
	Tools         ToolStats `json:"tools"`
	Summary       string    `json:"summary,omitempty"`
	Output        string    `json:"output,omitempty"`
	OutputFiles   []string  `json:"outputFiles"`
	Error         string    `json:"error,omitempty"`
	// Unstructured is set when completion was only guessed from keywords.
	Unstructured bool `json:"unstructured"`
	// Skipped is set when the task never ran (skipped by the user, or a
	// dependency failed; Error says which).
	Skipped bool        `json:"skipped"`
	Waiting *Permission `json:"waiting,omitempty"`
	// Questions the worker asked (clarification_needed, seed 003); the
	// worker waits until they are answered.
	Questions []string `json:"questions"`
	// Conflicts the worker reported (conflict_detected, seed 003).
	Conflicts []string `json:"conflicts"`
	// MissingOutputs are outputs the task declared (its report or its
	// definition) that Baton did not find written in its folder.
	MissingOutputs []string `json:"missingOutputs"`
	// OutOfScope are files the task changed outside its scope.
	OutOfScope []string `json:"outOfScope"`
	// Model is the model the worker's session was started with, chosen by
	// the task's complexity (seed 004); "" leaves the host's default.
	Model          string     `json:"model,omitempty"`
	InputTokens    int64      `json:"inputTokens"`
	OutputTokens   int64      `json:"outputTokens"`
	CostUSD        float64    `json:"costUsd"`
	StartedAt      *time.Time `json:"startedAt,omitempty"`
	CompletedAt    *time.Time `json:"completedAt,omitempty"`
	LastActivityAt *time.Time `json:"lastActivityAt,omitempty"`
	UpdatedAt      time.Time  `json:"updatedAt"`

	// State is the engine's own bookkeeping (cursor, prompt position).
	State json.RawMessage `json:"-"`
}

// PhaseAnswer is one answer (or failed attempt) of the main session.
type PhaseAnswer struct {
	ID        int64           `json:"id"`
	RunID     string          `json:"runId"`
	Phase     string          `json:"phase"`
	Attempt   int             `json:"attempt"`
	Status    string          `json:"status"` // valid, repaired, invalid, missing
	Data      json.RawMessage `json:"data,omitempty"`
	Repairs   []string        `json:"repairs"`
	Errors    []string        `json:"errors"`
	CreatedAt time.Time       `json:"createdAt"`
}

// Event is one event as it was sent to the UI.
type Event struct {
	ID        int64           `json:"id"`
	RunID     string          `json:"runId"`
	TaskID    string          `json:"taskId,omitempty"`
	Name      string          `json:"name"`
	Payload   json.RawMessage `json:"payload,omitempty"`
	CreatedAt time.Time       `json:"createdAt"`
}

// Change is everything one step of the engine changed in a run. Commit
// writes it in one transaction.
type Change struct {
	// Run replaces the stored run row (it must exist).
	Run *Run
	// Tasks are upserted; with ReplaceTasks, tasks (and workers) not listed
	// are removed first.
	Tasks        []Task
	ReplaceTasks bool
	// Workers are upserted; their task must exist.
	Workers []Worker
	Answers []PhaseAnswer
	// Checks are upserted (by run, round and position).
	Checks []CheckResult
	Events []Event
	// FinalReport, when set, is the run's final report (a JSON object). It
	// comes only with a run row in a finished status and replaces any
	// report stored before.
	FinalReport json.RawMessage
	// Decisions are answers to permission prompts, added to the run's
	// permission log; Rules are rules the user added to the run.
	Decisions []PermissionDecision
	Rules     []PermissionRule
}

// HistoryQuery selects runs for the history view.
type HistoryQuery struct {
	// Status keeps runs in any of these statuses (all when empty).
	Status     []string `json:"status,omitempty"`
	TemplateID string   `json:"templateId,omitempty"`
	// Text keeps runs whose request holds every word (prefix match).
	Text string `json:"text,omitempty"`
	// From and To bound the creation time (inclusive, exclusive); zero
	// means unbounded.
	From time.Time `json:"from,omitempty"`
	To   time.Time `json:"to,omitempty"`
	// Limit is the page size (default 50, at most 500); Offset skips runs.
	Limit  int `json:"limit,omitempty"`
	Offset int `json:"offset,omitempty"`
	// Sort orders the page: "" newest first, "cost" dearest first,
	// "cost_asc" cheapest first (then newest first).
	Sort string `json:"sort,omitempty"`
}

// Page is one page of history, newest first.
type Page struct {
	Runs   []Run `json:"runs"`
	Total  int   `json:"total"`
	Limit  int   `json:"limit"`
	Offset int   `json:"offset"`
	// NextOffset is the Offset of the next page, or -1 when this is the last.
	NextOffset int `json:"nextOffset"`
}
