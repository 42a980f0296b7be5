// Package template loads, checks, resolves and stores Baton's orchestration
// templates: the system templates embedded in the binary (read-only) and the
// user's own templates in a directory of JSON files.
//
// A template file is checked against templates/schema.json. A template with
// "extends" may omit whatever it inherits: the schema itself requires the
// complete set of fields only when "extends" is absent, so a raw child is
// checked for types and shapes, and its resolved form (parent merged in,
// "extends" removed) is checked for completeness.
package template

import (
	"fmt"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/permrules"
)

// Event names sent to the notifier. The payload is a TemplateInfo for
// created and updated, and the id (a string) for deleted.
const (
	EventCreated = "template:created"
	EventUpdated = "template:updated"
	EventDeleted = "template:deleted"
)

// Notifier receives the events above. The desktop app forwards them to the
// frontend; it must not block.
type Notifier func(name string, payload any)

// Phase names a step of a run that has a prompt.
type Phase string

// The phases a template has prompts for.
const (
	PhaseAnalysis        Phase = "analysis"
	PhaseTaskPlanning    Phase = "taskPlanning"
	PhaseReview          Phase = "review"
	PhaseWorkerExecution Phase = "workerExecution"
	PhaseAggregation     Phase = "aggregation"
	PhaseVerification    Phase = "verification"
)

// Variables Baton fills in itself; a template may not declare them.
// Render fills the last four from the template; the engine gives the rest.
const (
	VarUserRequest      = "USER_REQUEST"
	VarCWD              = "CWD"
	VarTaskID           = "TASK_ID"
	VarTaskTitle        = "TASK_TITLE"
	VarTaskDescription  = "TASK_DESCRIPTION"
	VarTaskScope        = "TASK_SCOPE"
	VarTaskJSON         = "TASK_JSON" // the task as a JSON object (a new_task in the delegation dialect)
	VarWorkerOutputs    = "WORKER_OUTPUTS"
	VarCheckResults     = "CHECK_RESULTS" // the project's checks as Baton ran them
	VarCompletionReport = "COMPLETION_REPORT"
	VarStartDelimiter   = "START_DELIMITER"
	VarEndDelimiter     = "END_DELIMITER"
	VarMaxTasks         = "MAX_TASKS"
	VarMaxWorkers       = "MAX_WORKERS"
)

// Template is a template as the frontend and the engine see it. A resolved
// template has every field the schema's completeness rule asks for.
type Template struct {
	ID          string              `json:"id"`
	Name        string              `json:"name"`
	Description string              `json:"description"`
	Icon        string              `json:"icon,omitempty"`
	Version     string              `json:"version,omitempty"`
	Author      string              `json:"author,omitempty"`
	Tags        []string            `json:"tags,omitempty"`
	Extends     string              `json:"extends,omitempty"`
	Config      Config              `json:"config"`
	Phases      Phases              `json:"phases"`
	Prompts     Prompts             `json:"prompts"`
	Variables   map[string]Variable `json:"variables,omitempty"`
	UI          map[string]any      `json:"ui,omitempty"`
}

// Config holds the run settings. Times are in seconds; 0 means no limit for
// the timeouts.
type Config struct {
	MaxWorkers        int     `json:"maxWorkers"`
	WorkerTimeout     int     `json:"workerTimeout"`
	InactivityTimeout int     `json:"inactivityTimeout"`
	MaxRetries        int     `json:"maxRetries"`
	SpawnDelay        float64 `json:"spawnDelay"`
	PollInterval      float64 `json:"pollInterval"`
	AutoConfirm       bool    `json:"autoConfirm"`
	PermissionMode    string  `json:"permissionMode"`
	MaxTasks          int     `json:"maxTasks"`
	Models            Models  `json:"models"`
	Transport         string  `json:"transport"`
	Skills            Skills  `json:"skills"`
	Journal           Journal `json:"journal"`
	// RetryFailed is retryFailedReports: a worker that reports status
	// "failed" is retried in a new session while maxRetries allows. Absent
	// means true; see RetryFailedReports.
	RetryFailed *bool `json:"retryFailedReports,omitempty"`
	// Isolation is where workers work: IsolationWorktree or
	// IsolationShared; empty means shared.
	Isolation string `json:"isolation,omitempty"`
	// Budget caps what a run may spend (nil: no cap).
	Budget *Budget `json:"budget,omitempty"`
	// Checks are the project's checks Baton runs itself (command lines);
	// none: Baton detects them (backend/checks).
	Checks []string `json:"checks,omitempty"`
	// CheckTimeout is how many seconds each check may run (0: the
	// default, CheckTimeoutDefault).
	CheckTimeout int `json:"checkTimeout,omitempty"`
	// StrictScope makes a write outside a task's scope an error (the task
	// fails) instead of a warning.
	StrictScope bool `json:"strictScope,omitempty"`
	// Permissions are allow and deny rules in Claude Code's syntax that
	// Baton answers prompts by (backend/permrules).
	Permissions *permrules.Lists `json:"permissions,omitempty"`
	// Machines are the machines of "baton machines" a worktree run may
	// place its workers on, in order, each within its own max workers;
	// the rest run here. None: every worker runs here.
	Machines []string `json:"machines,omitempty"`
}

// CheckTimeoutDefault is the seconds a check may run when the template
// does not say.
const CheckTimeoutDefault = 600

// CheckLimit is how long each of the run's checks may run.
func (c Config) CheckLimit() time.Duration {
	if c.CheckTimeout <= 0 {
		return CheckTimeoutDefault * time.Second
	}
	return Seconds(c.CheckTimeout)
}

// Budget is the most a run may spend: cost in US dollars and tokens (input
// and output); 0 means no cap of that kind.
type Budget struct {
	MaxCostUSD float64 `json:"maxCostUsd,omitempty"`
	MaxTokens  int64   `json:"maxTokens,omitempty"`
}

// The isolations a template may choose.
const (
	// IsolationWorktree gives each worker its own git worktree and branch,
	// merged back into the run branch.
	IsolationWorktree = "worktree"
	// IsolationShared runs every worker in the run's folder itself.
	IsolationShared = "shared"
)

// Worktree reports whether the workers get their own git worktrees.
func (c Config) Worktree() bool { return c.Isolation == IsolationWorktree }

// RetryFailedReports reports whether a worker's "failed" report is retried
// within maxRetries (the template's retryFailedReports, default true).
func (c Config) RetryFailedReports() bool { return c.RetryFailed == nil || *c.RetryFailed }

// Models names the model for the main session and for each task complexity.
type Models struct {
	Main    string `json:"main"`
	Easy    string `json:"easy"`
	Normal  string `json:"normal"`
	Complex string `json:"complex"`
}

// For returns the model for a task complexity ("easy", "normal", "complex");
// anything else gets the normal model.
func (m Models) For(complexity string) string {
	switch complexity {
	case "easy":
		return m.Easy
	case "complex":
		return m.Complex
	default:
		return m.Normal
	}
}

// Skills configures the skill library of seed 004.
type Skills struct {
	Enabled   bool   `json:"enabled"`
	Directory string `json:"directory,omitempty"`
}

// Journal configures the journal files of seed 004.
type Journal struct {
	Enabled bool `json:"enabled"`
	Archive bool `json:"archive"`
	// Fresh archives a journal already in the folder and starts a new one;
	// without it the journal is resumed from its last checkpoint (seed 004).
	Fresh bool `json:"fresh,omitempty"`
}

// Seconds turns a number of seconds from a template into a duration.
func Seconds[T int | float64](s T) time.Duration {
	return time.Duration(float64(s) * float64(time.Second))
}

// Phases holds the settings of each phase.
type Phases struct {
	Analysis        PhaseSettings `json:"analysis"`
	TaskPlanning    PhaseSettings `json:"taskPlanning"`
	Review          ReviewGate    `json:"review"`
	WorkerExecution PhaseSettings `json:"workerExecution"`
	Aggregation     PhaseSettings `json:"aggregation"`
	Verification    Verification  `json:"verification"`
}

// PhaseSettings are the settings every phase has.
type PhaseSettings struct {
	Enabled bool `json:"enabled"`
	Timeout int  `json:"timeout"`
}

// ReviewGate is the review phase of seed 001: with Enabled, a worker's
// completion waits for the reviewer ("orchestrator" or "user").
type ReviewGate struct {
	Enabled             bool   `json:"enabled"`
	Timeout             int    `json:"timeout"`
	Reviewer            string `json:"reviewer"`
	RequireBuildSuccess bool   `json:"requireBuildSuccess"`
}

// Verification is the QA phase of seed 004.
type Verification struct {
	Enabled              bool `json:"enabled"`
	Timeout              int  `json:"timeout"`
	MaxRemediationRounds int  `json:"maxRemediationRounds"`
}

// Prompts holds the response format and the prompt of each phase.
type Prompts struct {
	ResponseFormat  ResponseFormat `json:"responseFormat"`
	Analysis        Prompt         `json:"analysis"`
	TaskPlanning    Prompt         `json:"taskPlanning"`
	WorkerExecution Prompt         `json:"workerExecution"`
	Review          Prompt         `json:"review"`
	Aggregation     Prompt         `json:"aggregation"`
	Verification    Prompt         `json:"verification"`
}

// ResponseFormat says how answers are delimited and which dialect the
// plan and the worker reports use ("orchestrator" or "delegation").
type ResponseFormat struct {
	StartDelimiter string `json:"startDelimiter"`
	EndDelimiter   string `json:"endDelimiter"`
	Dialect        string `json:"dialect"`
}

// Prompt is the text of one phase: System for the session's system prompt
// (or to put before the message when the host has none), User for the message.
type Prompt struct {
	System string `json:"system,omitempty"`
	User   string `json:"user,omitempty"`
}

// Prompt returns the prompt of a phase.
func (p Prompts) Prompt(phase Phase) (Prompt, error) {
	switch phase {
	case PhaseAnalysis:
		return p.Analysis, nil
	case PhaseTaskPlanning:
		return p.TaskPlanning, nil
	case PhaseWorkerExecution:
		return p.WorkerExecution, nil
	case PhaseReview:
		return p.Review, nil
	case PhaseAggregation:
		return p.Aggregation, nil
	case PhaseVerification:
		return p.Verification, nil
	}
	return Prompt{}, fmt.Errorf("unknown phase %q", phase)
}

// Variable is a value the user fills in when starting a run.
type Variable struct {
	Type        string   `json:"type"` // string, text, number, boolean, select, list
	Label       string   `json:"label"`
	Description string   `json:"description,omitempty"`
	Default     any      `json:"default,omitempty"`
	Required    bool     `json:"required,omitempty"`
	Options     []string `json:"options,omitempty"`
	Placeholder string   `json:"placeholder,omitempty"`
	Order       int      `json:"order,omitempty"`
}

// TemplateInfo is one entry of the template list.
type TemplateInfo struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Icon        string   `json:"icon"`
	Version     string   `json:"version"`
	Author      string   `json:"author"`
	Tags        []string `json:"tags"`
	Extends     string   `json:"extends,omitempty"`
	IsSystem    bool     `json:"isSystem"`
	// Error is set when the template cannot be resolved or is invalid; the
	// list still shows it so the user can fix or delete it.
	Error string `json:"error,omitempty"`
}

// ValidationError is one problem in a template: where (a JSON pointer into
// the document, "" for the whole document) and what.
type ValidationError struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
	kind    error  // a sentinel such as ErrCycle, for resolution problems
}

func (v ValidationError) String() string {
	if v.Pointer == "" {
		return v.Message
	}
	return v.Pointer + ": " + v.Message
}

// Resolved is a template with its inheritance resolved, and where each value
// came from.
type Resolved struct {
	Template Template `json:"template"`
	// Chain lists the template and its ancestors, child first.
	Chain []string `json:"chain"`
	// Sources maps the JSON pointer of every leaf value (scalars, arrays and
	// empty objects) of the resolved template to the id of the template in
	// Chain that set it.
	Sources map[string]string `json:"sources"`
}

// Source returns the id of the template that set the value at pointer, and
// whether that value is inherited (set by an ancestor, not by the template
// itself). For an object it reports the nearest leaf below it that is
// inherited, so a section with any inherited value counts as inherited.
func (r Resolved) Source(pointer string) (from string, inherited bool) {
	if src, ok := r.Sources[pointer]; ok {
		return src, src != r.Template.ID
	}
	prefix := pointer + "/"
	first := ""
	for p, src := range r.Sources {
		if strings.HasPrefix(p, prefix) && src != r.Template.ID && (first == "" || p < first) {
			first, from = p, src
		}
	}
	return from, first != ""
}
