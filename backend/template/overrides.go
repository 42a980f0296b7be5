package template

import (
	"fmt"
	"slices"
	"strings"

	"github.com/baton-app/baton/backend/permrules"
	"github.com/baton-app/baton/backend/session"
)

// Limits of the settings a run may override, as templates/schema.json sets
// them for a template's config (overrides_test.go checks they agree).
const (
	OverrideMinWorkers = 1
	OverrideMaxWorkers = 20
	// OverrideMaxTimeout is the longest worker or inactivity timeout in
	// seconds; 0 means no limit.
	OverrideMaxTimeout = 86400
	OverrideMaxRetries = 10
)

// Overrides change some of the template's settings for one run; a nil field
// keeps the template's value. Timeouts are in seconds, as in the template,
// and 0 means no limit.
type Overrides struct {
	MaxWorkers        *int    `json:"maxWorkers,omitempty"`
	WorkerTimeout     *int    `json:"workerTimeout,omitempty"`
	InactivityTimeout *int    `json:"inactivityTimeout,omitempty"`
	MaxRetries        *int    `json:"maxRetries,omitempty"`
	PermissionMode    *string `json:"permissionMode,omitempty"`
	// Budget replaces the template's budget for this run.
	Budget *Budget `json:"budget,omitempty"`
	// Isolation is "worktree" or "shared" for this run (such as shared in a
	// folder that is not a git repository).
	Isolation *string `json:"isolation,omitempty"`
	// Allow and Deny are permission rules for this run (Claude Code's
	// syntax), added to the template's; they are stored with the run's
	// permission rules (store.PermissionRule), not in its template.
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
	// Machines replace the template's machines for this run.
	Machines []string `json:"machines,omitempty"`
}

// OverridesError is a run's overrides that cannot be used; Problems says
// why, one sentence each.
type OverridesError struct{ Problems []string }

func (e *OverridesError) Error() string {
	return strings.Join(e.Problems, "; ") + ": bad request"
}

// Apply returns cfg with the overrides set. A value out of range is an
// *OverridesError naming every such field; cfg is returned unchanged then.
func (o *Overrides) Apply(cfg Config) (Config, error) {
	if o == nil {
		return cfg, nil
	}
	var problems []string
	between := func(v *int, field, what string, lo, hi int, unit string) {
		if v == nil {
			return
		}
		if *v < lo || *v > hi {
			problems = append(problems, fmt.Sprintf("%s (%s) must be from %d to %d%s, not %d", what, field, lo, hi, unit, *v))
		}
	}
	between(o.MaxWorkers, "maxWorkers", "the number of workers at once", OverrideMinWorkers, OverrideMaxWorkers, "")
	between(o.WorkerTimeout, "workerTimeout", "the worker timeout", 0, OverrideMaxTimeout, " seconds (0: no limit)")
	between(o.InactivityTimeout, "inactivityTimeout", "the inactivity timeout", 0, OverrideMaxTimeout, " seconds (0: no limit)")
	between(o.MaxRetries, "maxRetries", "the number of retries", 0, OverrideMaxRetries, "")
	if o.PermissionMode != nil && !slices.Contains(session.PermissionModes, *o.PermissionMode) {
		problems = append(problems, fmt.Sprintf("the permission mode (permissionMode) must be one of %s, not %q",
			strings.Join(session.PermissionModes, ", "), *o.PermissionMode))
	}
	if b := o.Budget; b != nil && (b.MaxCostUSD < 0 || b.MaxTokens < 0) {
		problems = append(problems, "the budget (budget) must not be negative")
	}
	if o.Isolation != nil && *o.Isolation != IsolationWorktree && *o.Isolation != IsolationShared {
		problems = append(problems, fmt.Sprintf("the isolation (isolation) must be worktree or shared, not %q", *o.Isolation))
	}
	if err := (permrules.Lists{Allow: o.Allow, Deny: o.Deny}).Check(); err != nil {
		problems = append(problems, "the run's permission rules: "+err.Error())
	}
	if len(problems) > 0 {
		return cfg, &OverridesError{Problems: problems}
	}
	if o.MaxWorkers != nil {
		cfg.MaxWorkers = *o.MaxWorkers
	}
	if o.WorkerTimeout != nil {
		cfg.WorkerTimeout = *o.WorkerTimeout
	}
	if o.InactivityTimeout != nil {
		cfg.InactivityTimeout = *o.InactivityTimeout
	}
	if o.MaxRetries != nil {
		cfg.MaxRetries = *o.MaxRetries
	}
	if o.PermissionMode != nil {
		cfg.PermissionMode = *o.PermissionMode
	}
	if o.Budget != nil {
		b := *o.Budget
		cfg.Budget = &b
	}
	if o.Isolation != nil {
		cfg.Isolation = *o.Isolation
	}
	if o.Machines != nil {
		cfg.Machines = slices.Clone(o.Machines)
	}
	return cfg, nil
}
