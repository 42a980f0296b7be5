package view

import "github.com/baton-app/baton/backend/template"

// The template editor's types: a template as templates/schema.json
// describes it, field for field, and what the template bindings return
// around it. The JSON of a Template is the schema's (template_test.go holds
// every system template to it); the structs whose fields are all plain
// values convert directly, so a field the template package adds to one of
// them stops this file from compiling.

// Template is a template as the editor and the new-run form see it. A
// resolved template has every field the schema's completeness rule asks for.
type Template struct {
	ID          string                      `json:"id"`
	Name        string                      `json:"name"`
	Description string                      `json:"description"`
	Icon        string                      `json:"icon,omitempty"`
	Version     string                      `json:"version,omitempty"`
	Author      string                      `json:"author,omitempty"`
	Tags        []string                    `json:"tags,omitempty"`
	Extends     string                      `json:"extends,omitempty"`
	Config      TemplateConfig              `json:"config"`
	Phases      TemplatePhases              `json:"phases"`
	Prompts     TemplatePrompts             `json:"prompts"`
	Variables   map[string]TemplateVariable `json:"variables,omitempty"`
	UI          map[string]any              `json:"ui,omitempty"`
}

// TemplateConfig holds a template's run settings. Times are in seconds; 0
// means no limit for the timeouts.
type TemplateConfig struct {
	MaxWorkers        int             `json:"maxWorkers"`
	WorkerTimeout     int             `json:"workerTimeout"`
	InactivityTimeout int             `json:"inactivityTimeout"`
	MaxRetries        int             `json:"maxRetries"`
	SpawnDelay        float64         `json:"spawnDelay"`
	PollInterval      float64         `json:"pollInterval"`
	AutoConfirm       bool            `json:"autoConfirm"`
	PermissionMode    string          `json:"permissionMode"`
	MaxTasks          int             `json:"maxTasks"`
	Models            TemplateModels  `json:"models"`
	Transport         string          `json:"transport"`
	Skills            TemplateSkills  `json:"skills"`
	Journal           TemplateJournal `json:"journal"`
	// RetryFailed is retryFailedReports; absent means true.
	RetryFailed *bool `json:"retryFailedReports,omitempty"`
	// Isolation is "worktree" or "shared"; empty means shared.
	Isolation string `json:"isolation,omitempty"`
	// Budget caps what a run may spend (nil: no cap).
	Budget *Budget `json:"budget,omitempty"`
	// Permissions are the template's permission rules.
	Permissions *PermissionRules `json:"permissions,omitempty"`
	// Checks are the project's checks Baton runs itself (none: detected);
	// CheckTimeout the seconds each may run (0: the default).
	Checks       []string `json:"checks,omitempty"`
	CheckTimeout int      `json:"checkTimeout,omitempty"`
	// StrictScope: a task that changes files outside its scope fails.
	StrictScope bool `json:"strictScope,omitempty"`
	// Machines are the machines a worktree run places its workers on.
	Machines []string `json:"machines,omitempty"`
}

// TemplateModels names the model for the main session and for each task
// complexity.
type TemplateModels struct {
	Main    string `json:"main"`
	Easy    string `json:"easy"`
	Normal  string `json:"normal"`
	Complex string `json:"complex"`
}

// TemplateSkills configures the skill library.
type TemplateSkills struct {
	Enabled   bool   `json:"enabled"`
	Directory string `json:"directory,omitempty"`
}

// TemplateJournal configures the journal files.
type TemplateJournal struct {
	Enabled bool `json:"enabled"`
	Archive bool `json:"archive"`
	Fresh   bool `json:"fresh,omitempty"`
}

// TemplatePhases holds the settings of each phase.
type TemplatePhases struct {
	Analysis        TemplatePhase        `json:"analysis"`
	TaskPlanning    TemplatePhase        `json:"taskPlanning"`
	Review          TemplateReview       `json:"review"`
	WorkerExecution TemplatePhase        `json:"workerExecution"`
	Aggregation     TemplatePhase        `json:"aggregation"`
	Verification    TemplateVerification `json:"verification"`
}

// TemplatePhase holds the settings every phase has.
type TemplatePhase struct {
	Enabled bool `json:"enabled"`
	Timeout int  `json:"timeout"`
}

// TemplateReview is the review phase: with Enabled, a worker's completion
// waits for the reviewer ("orchestrator" or "user").
type TemplateReview struct {
	Enabled             bool   `json:"enabled"`
	Timeout             int    `json:"timeout"`
	Reviewer            string `json:"reviewer"`
	RequireBuildSuccess bool   `json:"requireBuildSuccess"`
}

// TemplateVerification is the QA phase.
type TemplateVerification struct {
	Enabled              bool `json:"enabled"`
	Timeout              int  `json:"timeout"`
	MaxRemediationRounds int  `json:"maxRemediationRounds"`
}

// TemplatePrompts holds the response format and the prompt of each phase.
type TemplatePrompts struct {
	ResponseFormat  TemplateResponseFormat `json:"responseFormat"`
	Analysis        TemplatePrompt         `json:"analysis"`
	TaskPlanning    TemplatePrompt         `json:"taskPlanning"`
	WorkerExecution TemplatePrompt         `json:"workerExecution"`
	Review          TemplatePrompt         `json:"review"`
	Aggregation     TemplatePrompt         `json:"aggregation"`
	Verification    TemplatePrompt         `json:"verification"`
}

// TemplateResponseFormat says how answers are delimited and which dialect
// the plan and the worker reports use.
type TemplateResponseFormat struct {
	StartDelimiter string `json:"startDelimiter"`
	EndDelimiter   string `json:"endDelimiter"`
	Dialect        string `json:"dialect"`
}

// TemplatePrompt is the text of one phase: its system prompt and its
// message.
type TemplatePrompt struct {
	System string `json:"system,omitempty"`
	User   string `json:"user,omitempty"`
}

// TemplateVariable is a value the user fills in when starting a run.
type TemplateVariable struct {
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
	// Error is set when the template cannot be resolved or is invalid.
	Error string `json:"error,omitempty"`
}

// TemplateProblem is one problem in a template: where (a JSON pointer into
// the document, "" for the whole document) and what.
type TemplateProblem struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

// ResolvedTemplate is a template with its inheritance resolved, and where
// each value came from.
type ResolvedTemplate struct {
	Template Template `json:"template"`
	// Chain lists the template and its ancestors, child first.
	Chain []string `json:"chain"`
	// Sources maps the JSON pointer of every leaf value to the id of the
	// template in Chain that set it.
	Sources map[string]string `json:"sources"`
}

// TemplateImport is what importing a template did: nothing when the user
// cancelled the file picker, else the template it stored.
type TemplateImport struct {
	Cancelled bool     `json:"cancelled"`
	Template  Template `json:"template"`
}

// TemplateExport is what exporting a template did: nothing when the user
// cancelled the file picker, else the file it wrote.
type TemplateExport struct {
	Cancelled bool   `json:"cancelled"`
	Path      string `json:"path"`
}

// TemplateOf is the view of a template.
func TemplateOf(t template.Template) Template {
	c := t.Config
	v := Template{
		ID: t.ID, Name: t.Name, Description: t.Description, Icon: t.Icon, Version: t.Version, Author: t.Author,
		Tags: t.Tags, Extends: t.Extends, UI: t.UI,
		Config: TemplateConfig{
			MaxWorkers: c.MaxWorkers, WorkerTimeout: c.WorkerTimeout, InactivityTimeout: c.InactivityTimeout,
			MaxRetries: c.MaxRetries, SpawnDelay: c.SpawnDelay, PollInterval: c.PollInterval, AutoConfirm: c.AutoConfirm,
			PermissionMode: c.PermissionMode, MaxTasks: c.MaxTasks, Models: TemplateModels(c.Models), Transport: c.Transport,
			Skills: TemplateSkills(c.Skills), Journal: TemplateJournal(c.Journal), RetryFailed: c.RetryFailed,
			Isolation: c.Isolation, Checks: c.Checks, CheckTimeout: c.CheckTimeout, StrictScope: c.StrictScope, Machines: c.Machines,
		},
		Phases: TemplatePhases{
			Analysis: TemplatePhase(t.Phases.Analysis), TaskPlanning: TemplatePhase(t.Phases.TaskPlanning),
			Review: TemplateReview(t.Phases.Review), WorkerExecution: TemplatePhase(t.Phases.WorkerExecution),
			Aggregation: TemplatePhase(t.Phases.Aggregation), Verification: TemplateVerification(t.Phases.Verification),
		},
		Prompts: TemplatePrompts{
			ResponseFormat: TemplateResponseFormat(t.Prompts.ResponseFormat),
			Analysis:       TemplatePrompt(t.Prompts.Analysis), TaskPlanning: TemplatePrompt(t.Prompts.TaskPlanning),
			WorkerExecution: TemplatePrompt(t.Prompts.WorkerExecution), Review: TemplatePrompt(t.Prompts.Review),
			Aggregation: TemplatePrompt(t.Prompts.Aggregation), Verification: TemplatePrompt(t.Prompts.Verification),
		},
	}
	if c.Budget != nil {
		b := Budget(*c.Budget)
		v.Config.Budget = &b
	}
	if c.Permissions != nil {
		p := PermissionRules{Allow: c.Permissions.Allow, Deny: c.Permissions.Deny}
		v.Config.Permissions = &p
	}
	if t.Variables != nil {
		v.Variables = make(map[string]TemplateVariable, len(t.Variables))
		for name, x := range t.Variables {
			v.Variables[name] = TemplateVariable(x)
		}
	}
	return v
}

// TemplateInfosOf is the view of the template list.
func TemplateInfosOf(list []template.TemplateInfo) []TemplateInfo {
	return mapAll(list, func(i template.TemplateInfo) TemplateInfo { return TemplateInfo(i) })
}

// TemplateProblemsOf is the view of a template's problems: an empty list
// (not null) for a valid one.
func TemplateProblemsOf(problems []template.ValidationError) []TemplateProblem {
	out := make([]TemplateProblem, 0, len(problems))
	for _, p := range problems {
		out = append(out, TemplateProblem{Pointer: p.Pointer, Message: p.Message})
	}
	return out
}

// ResolvedTemplateOf is the view of a resolved template.
func ResolvedTemplateOf(r template.Resolved) ResolvedTemplate {
	return ResolvedTemplate{Template: TemplateOf(r.Template), Chain: r.Chain, Sources: r.Sources}
}
