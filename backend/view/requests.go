package view

import (
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// What the faces send: a new run, the changes to a proposed task list, a
// budget and a history filter. The service turns them into the engine's
// and the store's own types with the functions below.

// CreateRequest describes a new run.
type CreateRequest struct {
	TemplateID string         `json:"templateId"`
	Cwd        string         `json:"cwd"`
	Request    string         `json:"request"`
	Variables  map[string]any `json:"variables,omitempty"`
	// Overrides change some of the template's settings for this run only.
	Overrides *Overrides `json:"overrides,omitempty"`
}

// Overrides change some of the template's settings for one run; a nil field
// keeps the template's value. Timeouts are in seconds, and 0 means no limit.
type Overrides struct {
	MaxWorkers        *int    `json:"maxWorkers,omitempty"`
	WorkerTimeout     *int    `json:"workerTimeout,omitempty"`
	InactivityTimeout *int    `json:"inactivityTimeout,omitempty"`
	MaxRetries        *int    `json:"maxRetries,omitempty"`
	PermissionMode    *string `json:"permissionMode,omitempty"`
	// Budget replaces the template's budget for this run.
	Budget *Budget `json:"budget,omitempty"`
	// Isolation is "worktree" or "shared" for this run.
	Isolation *string `json:"isolation,omitempty"`
	// Allow and Deny are permission rules for this run (Claude Code's
	// syntax, such as Bash(go test:*)), added to the template's.
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
	// Machines are the machines a worktree run places its workers on.
	Machines []string `json:"machines,omitempty"`
}

// Budget is the most a run may spend: cost in US dollars and tokens (input
// and output); 0 means no cap of that kind.
type Budget struct {
	MaxCostUSD float64 `json:"maxCostUsd,omitempty"`
	MaxTokens  int64   `json:"maxTokens,omitempty"`
}

// Modifications are the user's changes to a proposed task list.
type Modifications struct {
	// Skip lists tasks not to run.
	Skip []string `json:"skip,omitempty"`
	// Unskip lists tasks to run again after all.
	Unskip []string `json:"unskip,omitempty"`
	// Edit changes fields of existing tasks.
	Edit []TaskEdit `json:"edit,omitempty"`
	// Add appends new tasks (priority 0 means the default).
	Add []NewTask `json:"add,omitempty"`
	// Remove deletes proposed tasks from the run.
	Remove []string `json:"remove,omitempty"`
}

// TaskEdit changes the fields of a proposed task that are set.
type TaskEdit struct {
	ID           string    `json:"id"`
	Title        *string   `json:"title,omitempty"`
	Description  *string   `json:"description,omitempty"`
	Scope        *[]string `json:"scope,omitempty"`
	Priority     *int      `json:"priority,omitempty"`
	Dependencies *[]string `json:"dependencies,omitempty"`
	Complexity   *string   `json:"complexity,omitempty"`
}

// NewTask is a task the user adds (or a plan file holds).
type NewTask struct {
	ID           string   `json:"id"`
	Title        string   `json:"title"`
	Description  string   `json:"description"`
	Scope        []string `json:"scope,omitempty"`
	Priority     int      `json:"priority,omitempty"`
	Dependencies []string `json:"dependencies,omitempty"`
	Complexity   string   `json:"complexity,omitempty"`
}

// HistoryQuery selects runs for the history.
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

// ReportExport is where the window wrote a run's report, or that the user
// cancelled the file picker.
type ReportExport struct {
	Cancelled bool   `json:"cancelled"`
	Path      string `json:"path"`
}

// EngineRequest is the engine's form of a new run.
func EngineRequest(r CreateRequest) engine.CreateRequest {
	out := engine.CreateRequest{TemplateID: r.TemplateID, Cwd: r.Cwd, Request: r.Request, Variables: r.Variables}
	if o := r.Overrides; o != nil {
		out.Overrides = &engine.Overrides{MaxWorkers: o.MaxWorkers, WorkerTimeout: o.WorkerTimeout, InactivityTimeout: o.InactivityTimeout,
			MaxRetries: o.MaxRetries, PermissionMode: o.PermissionMode, Isolation: o.Isolation, Allow: o.Allow, Deny: o.Deny, Machines: o.Machines}
		if o.Budget != nil {
			b := EngineBudget(*o.Budget)
			out.Overrides.Budget = &b
		}
	}
	return out
}

// EngineBudget is the engine's form of a budget.
func EngineBudget(b Budget) template.Budget { return template.Budget(b) }

// EngineModifications is the engine's form of the changes to a task list.
func EngineModifications(m Modifications) engine.Modifications {
	return engine.Modifications{Skip: m.Skip, Unskip: m.Unskip, Remove: m.Remove,
		Edit: mapAll(m.Edit, func(e TaskEdit) engine.TaskEdit { return engine.TaskEdit(e) }),
		Add:  mapAll(m.Add, func(t NewTask) engine.NewTask { return engine.NewTask(t) })}
}

// StoreQuery is the store's form of a history filter.
func StoreQuery(q HistoryQuery) store.HistoryQuery { return store.HistoryQuery(q) }
