// Package view holds what the faces of Baton show and send: the structs the
// window's bindings return and take (they take and return no other
// package's, a test of the bindings holds them to it), and what the
// terminal prints. They are copied from the store's rows, the engine's
// snapshots, reports and events, and the types of the templates, the
// settings, the session hosts and their sessions, so that a change to one
// of those (a new column, an internal field) does not reach the frontend
// unnoticed; a type the engine changes stops the conversion here from
// compiling, and the tests here fail on a field a view leaves out. Their
// JSON names are the frontend's. Only backend/service and this package
// know the engine's and the store's own types: the bindings and
// backend/console read these.
package view

import (
	"encoding/json"
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/inbox"
	"github.com/baton-app/baton/backend/owner"
	"github.com/baton-app/baton/backend/runhost"
	"github.com/baton-app/baton/backend/store"
)

// Run is one run as the Runs and History views show it.
type Run struct {
	// Reconnecting is set while the run waits for its lost session host
	// (filled in by the bindings from the engine, not stored).
	Reconnecting *Reconnecting `json:"reconnecting,omitempty"`
	// DrivenBy is the process that drives the run now (nil: none; a run
	// that has not finished then waits for Resume or Cancel).
	DrivenBy     *Driver        `json:"drivenBy,omitempty"`
	ID           string         `json:"id"`
	TemplateID   string         `json:"templateId"`
	TemplateName string         `json:"templateName"`
	Cwd          string         `json:"cwd"`
	Request      string         `json:"request"`
	Variables    map[string]any `json:"variables"`
	Status       string         `json:"status"`
	// ResumeStatus is the status a paused run goes back to.
	ResumeStatus string `json:"resumeStatus,omitempty"`
	Phase        string `json:"phase"`
	// MainSessionID is the session of the analysis, planning and
	// aggregation phases.
	MainSessionID string `json:"mainSessionId,omitempty"`
	Message       string `json:"message,omitempty"`
	Error         string `json:"error,omitempty"`
	// Issues say why a finished run is completed_with_issues or failed.
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
	// Limits: the wait for a limit, the lowered worker count, the budget,
	// and whether the cost is simulated or estimated (issue 17).
	Limits RunLimits `json:"limits"`
	// Host is the session host that served the run (empty for a run made
	// before Baton kept it).
	Host RunHost `json:"host"`
}

// RunHost is the session host that served a run: its kind and what it
// ran (the CLI's path and version) or attached to (an endpoint).
type RunHost struct {
	Kind        string `json:"kind,omitempty"`
	Label       string `json:"label,omitempty"`
	Path        string `json:"path,omitempty"`
	Version     string `json:"version,omitempty"`
	Endpoint    string `json:"endpoint,omitempty"`
	Description string `json:"description,omitempty"`
}

// Name names the host as a person reads it ("" when it was not kept).
func (h RunHost) Name() string { return runhost.Name(store.RunHost(h)) }

// CheckResult is how one of the project's checks went when Baton ran it:
// round 0 before the workers (the baseline), round N after them.
type CheckResult struct {
	RunID      string `json:"runId"`
	Round      int    `json:"round"`
	Position   int    `json:"position"`
	Name       string `json:"name"`
	Command    string `json:"command"`
	Status     string `json:"status"`
	ExitCode   int    `json:"exitCode"`
	DurationMS int64  `json:"durationMs"`
	Tail       string `json:"tail"`
	Message    string `json:"message,omitempty"`
	// Verdict compares a result with the baseline: passes, fixed, broken,
	// pre-existing, new-failure (baseline for round 0).
	Verdict   string    `json:"verdict"`
	Dir       string    `json:"dir,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

// RunChecks are a run's checks: which Baton chose, the round that runs,
// and every round's results.
type RunChecks struct {
	Note    string        `json:"note"`
	Running *int          `json:"running,omitempty"`
	Results []CheckResult `json:"results"`
}

// Move is what moving a run to another host kept and starts again.
type Move struct {
	From      RunHost  `json:"from"`
	To        RunHost  `json:"to"`
	Kept      []string `json:"kept"`
	Restarted []string `json:"restarted"`
	Main      bool     `json:"main"`
	Message   string   `json:"message"`
}

// Driver is the process that drives a run: one at a time, Baton's window
// or a "baton run" in a terminal.
type Driver struct {
	PID     int    `json:"pid"`
	Face    string `json:"face,omitempty"` // "window", "terminal"
	Machine string `json:"machine,omitempty"`
	// Self: the process that shows the run drives it.
	Self bool `json:"self"`
	// Text names it for a person: "baton run (process 4121)".
	Text string `json:"text"`
}

// DriverOf is the view of the process o that drives a run; self says
// whether it is the process that shows it.
func DriverOf(o owner.Owner, self bool) *Driver {
	return &Driver{PID: o.PID, Face: o.Face, Machine: o.Machine, Self: self, Text: o.String()}
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
	// CostEstimated: some of the cost was computed from Baton's price table.
	CostEstimated bool `json:"costEstimated,omitempty"`
	// CostSimulated: the run ran on the simulator; its costs are simulated.
	CostSimulated bool `json:"costSimulated,omitempty"`
}

// Reconnecting describes a run that waits for its lost session host, or
// (Model) for the model its sessions talk to.
type Reconnecting struct {
	Since  time.Time `json:"since"`
	Until  time.Time `json:"until"`
	Reason string    `json:"reason,omitempty"`
	Model  bool      `json:"model,omitempty"`
}

// Task is one task of a run's plan.
type Task struct {
	RunID        string          `json:"runId"`
	ID           string          `json:"id"`
	Position     int             `json:"position"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	Scope        []string        `json:"scope"`
	Priority     int             `json:"priority"`
	Dependencies []string        `json:"dependencies"`
	Complexity   string          `json:"complexity,omitempty"`
	Skipped      bool            `json:"skipped"`
	Definition   json.RawMessage `json:"definition,omitempty"`
	Skills       []string        `json:"skills"`
}

// ToolStats counts a worker's tool calls by kind.
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

// RunningTool is a tool call whose result has not come yet: the tool, the
// gist of its input and when it was called (its elapsed time runs from
// there).
type RunningTool struct {
	Name      string    `json:"name"`
	Input     string    `json:"input,omitempty"`
	StartedAt time.Time `json:"startedAt"`
}

// RunningToolOf is the view of a running tool call (nil: none).
func RunningToolOf(t *store.RunningTool) *RunningTool {
	if t == nil {
		return nil
	}
	v := RunningTool(*t)
	return &v
}

// ToolStatsOf is the view of a worker's tool counts.
func ToolStatsOf(s store.ToolStats) ToolStats {
	return ToolStats{Total: s.Total, Reads: s.Reads, Writes: s.Writes, Edits: s.Edits, Bash: s.Bash, Search: s.Search,
		Web: s.Web, Task: s.Task, Other: s.Other, Running: RunningToolOf(s.Running)}
}

// Permission is the prompt a worker waits on.
type Permission struct {
	RequestID string          `json:"requestId"`
	ToolName  string          `json:"toolName"`
	Input     json.RawMessage `json:"input,omitempty"`
	// ToolUseID is the id of the call that asks, when the host says it.
	ToolUseID string `json:"toolUseId,omitempty"`
	// Summary says what the call does; Key is the same for identical
	// prompts; Suggestions are the rules "Allow for this run" offers.
	Summary     string       `json:"summary,omitempty"`
	Key         string       `json:"key,omitempty"`
	Suggestions []Suggestion `json:"suggestions"`
}

// Suggestion is a permission rule offered for a prompt ("Bash(go
// test:*)") with what it covers in words.
type Suggestion struct {
	Rule  string `json:"rule"`
	Label string `json:"label"`
}

// PermissionOf is the view of a prompt a worker waits on.
func PermissionOf(p store.Permission) Permission {
	v := Permission{RequestID: p.RequestID, ToolName: p.ToolName, Input: p.Input, ToolUseID: p.ToolUseID, Summary: p.Summary, Key: p.Key, Suggestions: []Suggestion{}}
	for _, s := range p.Suggestions {
		v.Suggestions = append(v.Suggestions, Suggestion(s))
	}
	return v
}

// Worker is the worker of one task.
type Worker struct {
	RunID         string      `json:"runId"`
	TaskID        string      `json:"taskId"`
	SessionID     string      `json:"sessionId,omitempty"`
	Status        string      `json:"status"`
	RetryCount    int         `json:"retryCount"`
	Progress      float64     `json:"progress"`
	CurrentAction string      `json:"currentAction,omitempty"`
	Tools         ToolStats   `json:"tools"`
	Summary       string      `json:"summary,omitempty"`
	Output        string      `json:"output,omitempty"`
	OutputFiles   []string    `json:"outputFiles"`
	Error         string      `json:"error,omitempty"`
	Unstructured  bool        `json:"unstructured"`
	Skipped       bool        `json:"skipped"`
	Waiting       *Permission `json:"waiting,omitempty"`
	Questions     []string    `json:"questions"`
	Conflicts     []string    `json:"conflicts"`
	// MissingOutputs are outputs the task declared that Baton did not find
	// written; OutOfScope files it changed outside its scope.
	MissingOutputs []string   `json:"missingOutputs"`
	OutOfScope     []string   `json:"outOfScope"`
	Model          string     `json:"model,omitempty"`
	InputTokens    int64      `json:"inputTokens"`
	OutputTokens   int64      `json:"outputTokens"`
	CostUSD        float64    `json:"costUsd"`
	StartedAt      *time.Time `json:"startedAt,omitempty"`
	CompletedAt    *time.Time `json:"completedAt,omitempty"`
	LastActivityAt *time.Time `json:"lastActivityAt,omitempty"`
	UpdatedAt      time.Time  `json:"updatedAt"`
}

// PhaseAnswer is one answer of the main session to a phase.
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

// Snapshot is everything about one run.
type Snapshot struct {
	Run            Run           `json:"run"`
	Tasks          []Task        `json:"tasks"`
	Workers        []Worker      `json:"workers"`
	Answers        []PhaseAnswer `json:"answers"`
	ParallelGroups [][]string    `json:"parallelGroups"`
	// FinalReport is stored when the run finishes (nil before).
	FinalReport *FinalReport `json:"finalReport,omitempty"`
	// Reconnecting is set while the run waits for its lost session host.
	Reconnecting *Reconnecting `json:"reconnecting,omitempty"`
	// Worktree is the run's worktree isolation (nil: the workers shared
	// the folder).
	Worktree *Worktree `json:"worktree,omitempty"`
	// UserReviews is true when the run's template leaves the review of
	// each task to the user (the reviewer "user").
	UserReviews bool `json:"userReviews"`
	// Checks are the project's checks Baton ran for the run (nil: the run
	// does not check, it was made before Baton did).
	Checks *RunChecks `json:"checks,omitempty"`
	// Permissions is the run's permission log, oldest first.
	Permissions []PermissionDecision `json:"permissions"`
}

// PermissionDecision is one answer to a permission prompt of a run: by
// whom ("user", "rule" or "mode"), allow or deny, by which rule and from
// where ("settings", "template", "run"), for which worker (TaskID; empty
// for the main session), the tool and a summary of its input.
type PermissionDecision struct {
	ID        int64     `json:"id"`
	TaskID    string    `json:"taskId"`
	At        time.Time `json:"at"`
	Tool      string    `json:"tool"`
	Summary   string    `json:"summary"`
	Decision  string    `json:"decision"`
	DecidedBy string    `json:"decidedBy"`
	Rule      string    `json:"rule,omitempty"`
	Source    string    `json:"source,omitempty"`
}

// HistoryPage is one page of past runs.
type HistoryPage struct {
	Runs       []Run `json:"runs"`
	Total      int   `json:"total"`
	Limit      int   `json:"limit"`
	Offset     int   `json:"offset"`
	NextOffset int   `json:"nextOffset"`
}

// RunOf is the view of a stored run.
func RunOf(r store.Run) Run {
	issues := r.Issues
	if issues == nil {
		issues = []string{}
	}
	return Run{
		ID: r.ID, TemplateID: r.TemplateID, TemplateName: r.TemplateName, Cwd: r.Cwd, Request: r.Request,
		Variables: r.Variables, Status: r.Status, ResumeStatus: r.ResumeStatus, Phase: r.Phase,
		MainSessionID: r.MainSessionID, Message: r.Message, Error: r.Error, Issues: issues,
		TasksTotal: r.TasksTotal, TasksCompleted: r.TasksCompleted, TasksFailed: r.TasksFailed, TasksSkipped: r.TasksSkipped,
		InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, CostUSD: r.CostUSD, Limits: RunLimits(r.Limits),
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, StartedAt: r.StartedAt, CompletedAt: r.CompletedAt,
		Host: RunHost(r.Host),
	}
}

// RunsOf is the view of stored runs.
func RunsOf(rs []store.Run) []Run {
	return mapAll(rs, RunOf)
}

// TaskOf is the view of a stored task.
func TaskOf(t store.Task) Task {
	return Task{
		RunID: t.RunID, ID: t.ID, Position: t.Position, Title: t.Title, Description: t.Description,
		Scope: t.Scope, Priority: t.Priority, Dependencies: t.Dependencies, Complexity: t.Complexity,
		Skipped: t.Skipped, Definition: t.Definition, Skills: t.Skills,
	}
}

// WorkerOf is the view of a stored worker.
func WorkerOf(w store.Worker) Worker {
	v := Worker{
		RunID: w.RunID, TaskID: w.TaskID, SessionID: w.SessionID, Status: w.Status, RetryCount: w.RetryCount,
		Progress: w.Progress, CurrentAction: w.CurrentAction, Tools: ToolStatsOf(w.Tools), Summary: w.Summary,
		Output: w.Output, OutputFiles: w.OutputFiles, Error: w.Error, Unstructured: w.Unstructured, Skipped: w.Skipped,
		Questions: w.Questions, Conflicts: w.Conflicts, MissingOutputs: w.MissingOutputs, OutOfScope: w.OutOfScope, Model: w.Model, InputTokens: w.InputTokens, OutputTokens: w.OutputTokens,
		CostUSD: w.CostUSD, StartedAt: w.StartedAt, CompletedAt: w.CompletedAt, LastActivityAt: w.LastActivityAt,
		UpdatedAt: w.UpdatedAt,
	}
	if w.Waiting != nil {
		p := PermissionOf(*w.Waiting)
		v.Waiting = &p
	}
	return v
}

// PhaseAnswerOf is the view of a stored phase answer.
func PhaseAnswerOf(a store.PhaseAnswer) PhaseAnswer {
	return PhaseAnswer(a)
}

// SnapshotOf is the view of an engine snapshot.
func SnapshotOf(s engine.Snapshot) Snapshot {
	v := Snapshot{
		Run:            RunOf(s.Run),
		Tasks:          mapAll(s.Tasks, TaskOf),
		Workers:        mapAll(s.Workers, WorkerOf),
		Answers:        mapAll(s.Answers, PhaseAnswerOf),
		ParallelGroups: s.ParallelGroups,
		Reconnecting:   ReconnectingOf(s.Reconnecting),
		Worktree:       WorktreeOf(s.Worktree),
		UserReviews:    inbox.ReviewerIsUser(s.Run.Template),
		Permissions:    mapAll(s.Permissions, func(d store.PermissionDecision) PermissionDecision { return PermissionDecision(d) }),
		Checks:         RunChecksOf(s.Checks),
	}
	if s.FinalReport != nil {
		rep := FinalReportOf(*s.FinalReport)
		v.FinalReport = &rep
	}
	return v
}

// RunChecksOf is the view of a run's checks (nil: none).
func RunChecksOf(c *engine.RunChecks) *RunChecks {
	if c == nil {
		return nil
	}
	return &RunChecks{Note: c.Note, Running: c.Running,
		Results: mapAll(c.Results, func(r store.CheckResult) CheckResult { return CheckResult(r) })}
}

// MoveOf is the view of a run's move to another host.
func MoveOf(m engine.Move) Move {
	return Move{From: RunHost(m.From), To: RunHost(m.To), Kept: m.Kept, Restarted: m.Restarted, Main: m.Main, Message: m.Message}
}

// ReconnectingOf is the view of a run's wait for its host (nil: none).
func ReconnectingOf(r *engine.Reconnecting) *Reconnecting {
	if r == nil {
		return nil
	}
	v := Reconnecting(*r)
	return &v
}

// HistoryPageOf is the view of a page of the history.
func HistoryPageOf(p store.Page) HistoryPage {
	return HistoryPage{Runs: RunsOf(p.Runs), Total: p.Total, Limit: p.Limit, Offset: p.Offset, NextOffset: p.NextOffset}
}

// mapAll converts every element; a nil slice stays nil only when from is
// nil, as encoding/json writes null for it then, like the rows did.
func mapAll[F, T any](from []F, fn func(F) T) []T {
	if from == nil {
		return nil
	}
	out := make([]T, len(from))
	for i, f := range from {
		out[i] = fn(f)
	}
	return out
}
