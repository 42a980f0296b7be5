package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/baton-app/baton/backend/jsonkind"
)

// PhaseData is the typed data of one phase: *Analysis, *TaskList,
// *Progress, *Completion, *Review, *Aggregation or *Verification.
type PhaseData interface {
	Phase() Phase
}

// Allowed values (seed 000, seed 001, seed 003 and DESIGN.md).
var (
	complexityValues   = []string{"low", "medium", "high"}
	progressStatuses   = []string{"in_progress", "blocked", "retrying"}
	completionStatuses = []string{"success", "partial", "failed", "timeout", "needs_input", "conflict", "awaiting_review"}
	aggregateStatuses  = []string{"success", "partial", "failed"}
	verifyStatuses     = []string{"pass", "fail", "partial"}
	severityValues     = []string{"low", "medium", "high", "critical"}
	buildStatuses      = []string{"success", "failed", "not_applicable", "not_verified"}
	reviewDecisions    = []string{ReviewApproved, ReviewRejected}
)

// AllowedStatuses returns the status values a phase accepts (nil for phases
// without a status).
func AllowedStatuses(p Phase) []string {
	switch p {
	case PhaseProgress:
		return append([]string(nil), progressStatuses...)
	case PhaseCompletion:
		return append([]string(nil), completionStatuses...)
	case PhaseAggregation:
		return append([]string(nil), aggregateStatuses...)
	case PhaseVerification:
		return append([]string(nil), verifyStatuses...)
	}
	return nil
}

const maxInt = math.MaxInt32

// Analysis is the answer of the analysis phase.
type Analysis struct {
	Summary             string      `json:"summary"`
	RecommendedSplits   int         `json:"recommended_splits"`
	KeyFiles            []string    `json:"key_files,omitempty"`
	EstimatedComplexity string      `json:"estimated_complexity,omitempty"`
	Notes               string      `json:"notes,omitempty"`
	Warnings            []string    `json:"warnings,omitempty"`
	Components          []Component `json:"components,omitempty"`
}

// Component is one part of the codebase named by the analysis.
type Component struct {
	Name        string   `json:"name"`
	Files       []string `json:"files,omitempty"`
	Complexity  string   `json:"complexity,omitempty"`
	Description string   `json:"description,omitempty"`
}

// Phase implements PhaseData.
func (*Analysis) Phase() Phase { return PhaseAnalysis }

// TaskList is the answer of the planning phase.
type TaskList struct {
	Tasks                []Task     `json:"tasks"`
	TotalTasks           *int       `json:"total_tasks,omitempty"`
	ParallelizableGroups [][]string `json:"parallelizable_groups,omitempty"`
	ExecutionOrder       []string   `json:"execution_order,omitempty"`
}

// Phase implements PhaseData.
func (*TaskList) Phase() Phase { return PhaseTaskList }

// Task is one unit of work for a worker. The fields after EstimatedTokens
// carry what a seed 003 new_task says beyond seed 000.
type Task struct {
	ID                 string   `json:"id"`
	Title              string   `json:"title"`
	Description        string   `json:"description"`
	Scope              []string `json:"scope,omitempty"`
	Priority           *int     `json:"priority,omitempty"` // 1–10, higher is more important
	Dependencies       []string `json:"dependencies,omitempty"`
	EstimatedTokens    *int     `json:"estimated_tokens,omitempty"`
	Complexity         string   `json:"complexity,omitempty"`
	ParentID           string   `json:"parent_id,omitempty"`
	Mode               string   `json:"mode,omitempty"`
	Context            string   `json:"context,omitempty"`
	ExpectedOutputs    []string `json:"expected_outputs,omitempty"`
	Constraints        []string `json:"constraints,omitempty"`
	AcceptanceCriteria []string `json:"acceptance_criteria,omitempty"`
	Deadline           string   `json:"deadline,omitempty"`
	// Architecture is the architecture the task's worker follows (seed
	// 001's task_assignment asks for it).
	Architecture string `json:"architecture,omitempty"`
	// Inputs and OutputArtifacts are a new_task's inputs and
	// expectedOutputs whole (type, version, description), so that the
	// worker's new_task carries them as the planner wrote them; Scope and
	// ExpectedOutputs hold their paths.
	Inputs          []Artifact `json:"inputs,omitempty"`
	OutputArtifacts []Artifact `json:"output_artifacts,omitempty"`
}

// Progress is a worker's progress report.
type Progress struct {
	TaskID          string   `json:"task_id"`
	Status          string   `json:"status"`
	ProgressPercent *float64 `json:"progress_percent,omitempty"`
	CurrentAction   string   `json:"current_action,omitempty"`
	FilesProcessed  *int     `json:"files_processed,omitempty"`
	FilesTotal      *int     `json:"files_total,omitempty"`
	OutputPreview   string   `json:"output_preview,omitempty"`
}

// Phase implements PhaseData.
func (*Progress) Phase() Phase { return PhaseProgress }

// Completion is a worker's final report. Status is one of success, partial,
// failed, timeout (seed 000), needs_input, conflict (seed 003) or
// awaiting_review (seed 001).
type Completion struct {
	TaskID      string         `json:"task_id"`
	Status      string         `json:"status"`
	Summary     string         `json:"summary,omitempty"`
	OutputFiles []string       `json:"output_files,omitempty"`
	Output      string         `json:"output,omitempty"`
	Error       string         `json:"error,omitempty"`
	Warnings    []string       `json:"warnings,omitempty"`
	Metrics     map[string]any `json:"metrics,omitempty"`
	// Questions the worker needs answered (status needs_input).
	Questions []string `json:"questions,omitempty"`
	// Issues met, such as the conflicts of status conflict.
	Issues []TaskIssue `json:"issues,omitempty"`
	// Artifacts are the seed 003 outputArtifacts.
	Artifacts []Artifact `json:"artifacts,omitempty"`
	// The seed 001 completion report fields.
	FilesCreated  []string     `json:"files_created,omitempty"`
	FilesModified []string     `json:"files_modified,omitempty"`
	Build         *BuildResult `json:"build,omitempty"`
	Platform      string       `json:"platform,omitempty"`
	Timestamp     string       `json:"timestamp,omitempty"`
}

// Phase implements PhaseData.
func (*Completion) Phase() Phase { return PhaseCompletion }

// TaskIssue is one issue a worker met (seed 003 issues_encountered).
type TaskIssue struct {
	Type                string `json:"type,omitempty"`
	Description         string `json:"description"`
	SuggestedResolution string `json:"suggested_resolution,omitempty"`
}

// Artifact is one output of a task (seed 003 outputArtifacts).
type Artifact struct {
	Type        string `json:"type,omitempty"`
	Path        string `json:"path"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description,omitempty"`
}

// BuildResult is the build check of a seed 001 completion report.
type BuildResult struct {
	Status  string `json:"status"`
	Command string `json:"command,omitempty"`
	Errors  *int   `json:"errors,omitempty"`
	Output  string `json:"output,omitempty"`
}

// Review decisions.
const (
	ReviewApproved = "approved"
	ReviewRejected = "rejected"
)

// Review is a reviewer's decision on one task a worker reported as done
// (the review gate of seed 001: awaiting_review becomes completed when
// approved; rejected sends the task back to the worker with the reason and
// the required changes).
type Review struct {
	TaskID string `json:"task_id"`
	// Decision is ReviewApproved or ReviewRejected.
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
	// RequiredChanges lists, for a rejection, each change the worker must
	// make; empty when approved.
	RequiredChanges []string `json:"required_changes,omitempty"`
}

// Phase implements PhaseData.
func (*Review) Phase() Phase { return PhaseReview }

// Approved reports whether the reviewer approved the work.
func (r *Review) Approved() bool { return r.Decision == ReviewApproved }

// Aggregation is the merged result of all workers.
type Aggregation struct {
	Status       string     `json:"status"`
	Summary      string     `json:"summary,omitempty"`
	Conflicts    []Conflict `json:"conflicts,omitempty"`
	MergedOutput string     `json:"merged_output,omitempty"`
	OutputFiles  []string   `json:"output_files,omitempty"`
}

// Phase implements PhaseData.
func (*Aggregation) Phase() Phase { return PhaseAggregation }

// Conflict is one conflict found while merging.
type Conflict struct {
	Type        string   `json:"type,omitempty"`
	Description string   `json:"description"`
	Resolution  string   `json:"resolution,omitempty"`
	Tasks       []string `json:"tasks,omitempty"`
	Files       []string `json:"files,omitempty"`
}

// Verification is the QA answer (seed 004 phase 4): pass/fail per
// acceptance criterion, the issues found, regression risks.
type Verification struct {
	Status          string              `json:"status"`
	Summary         string              `json:"summary,omitempty"`
	Criteria        []Criterion         `json:"criteria,omitempty"`
	Issues          []VerificationIssue `json:"issues,omitempty"`
	RegressionRisks []string            `json:"regression_risks,omitempty"`
	Readiness       string              `json:"readiness,omitempty"`
}

// Phase implements PhaseData.
func (*Verification) Phase() Phase { return PhaseVerification }

// Criterion is one acceptance criterion and whether it is met.
type Criterion struct {
	Criterion string `json:"criterion"`
	Passed    bool   `json:"passed"`
	Notes     string `json:"notes,omitempty"`
}

// VerificationIssue is one problem QA found; each may become a remediation
// task.
type VerificationIssue struct {
	Description  string   `json:"description"`
	Severity     string   `json:"severity,omitempty"`
	TaskID       string   `json:"task_id,omitempty"`
	Files        []string `json:"files,omitempty"`
	SuggestedFix string   `json:"suggested_fix,omitempty"`
}

// Validation is the outcome of validating the data of one phase.
type Validation struct {
	Data     PhaseData `json:"data,omitempty"`
	Errors   []Issue   `json:"errors,omitempty"`
	Warnings []Issue   `json:"warnings,omitempty"`
}

// Valid reports whether there were no errors.
func (v Validation) Valid() bool { return len(v.Errors) == 0 && v.Data != nil }

// Validate checks the data object of a phase (the value of "data" in a
// block) and reads it into its typed form. Paths in issues start at "data".
func Validate(phase Phase, data []byte) Validation {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return Validation{Errors: []Issue{{Path: "data", Code: CodeType, Message: "is not valid JSON: " + err.Error()}}}
	}
	var c checker
	d := c.phaseData(phase, v, "data")
	return Validation{Data: d, Errors: c.errs, Warnings: c.warns}
}

// phaseData validates v as the data of phase.
func (c *checker) phaseData(phase Phase, v any, path string) PhaseData {
	m, ok := v.(map[string]any)
	if !ok {
		c.errorf(path, CodeType, "must be an object, not %s", jsonkind.Of(v))
		return nil
	}
	f := c.object(m, path)
	defer f.done()
	switch phase {
	case PhaseAnalysis:
		return c.analysis(f)
	case PhaseTaskList:
		return c.taskList(f)
	case PhaseProgress:
		return c.progress(f)
	case PhaseCompletion:
		return c.completion(f)
	case PhaseReview:
		return c.review(f)
	case PhaseAggregation:
		return c.aggregation(f)
	case PhaseVerification:
		return c.verification(f)
	}
	for k := range m {
		f.used[k] = true
	}
	c.errorf("phase", CodeEnum, "unknown phase %q (expected one of %s)", phase, phaseList())
	return nil
}

func (c *checker) analysis(f *fields) *Analysis {
	a := &Analysis{
		Summary:             f.str("summary", true),
		KeyFiles:            f.strs("key_files", false),
		EstimatedComplexity: f.enum("estimated_complexity", false, complexityValues...),
		Notes:               f.str("notes", false),
		Warnings:            f.strs("warnings", false),
	}
	if n := f.integer("recommended_splits", true, 1, maxInt); n != nil {
		a.RecommendedSplits = *n
	}
	f.objects("components", false, func(m map[string]any, path string) {
		g := c.object(m, path)
		a.Components = append(a.Components, Component{
			Name:        g.str("name", true),
			Files:       g.strs("files", false),
			Complexity:  g.enum("complexity", false, complexityValues...),
			Description: g.str("description", false),
		})
		g.done()
	})
	return a
}

func (c *checker) taskList(f *fields) *TaskList {
	tl := &TaskList{
		TotalTasks:     f.integer("total_tasks", false, 0, maxInt),
		ExecutionOrder: f.strs("execution_order", false),
	}
	f.objects("tasks", true, func(m map[string]any, path string) {
		tl.Tasks = append(tl.Tasks, c.task(c.object(m, path)))
	})
	if f.has("tasks") && f.m["tasks"] != nil && len(tl.Tasks) == 0 {
		if list, ok := f.m["tasks"].([]any); ok && len(list) == 0 {
			c.errorf(f.p("tasks"), CodeEmpty, "must hold at least one task")
		}
	}
	if v, ok := f.get("parallelizable_groups", false); ok {
		path := f.p("parallelizable_groups")
		list, ok := v.([]any)
		if !ok {
			c.errorf(path, CodeType, "must be a list of lists of task ids, not %s", jsonkind.Of(v))
		}
		for i, g := range list {
			ids := c.asStrings(g, fmt.Sprintf("%s[%d]", path, i))
			if ids == nil {
				ids = []string{}
			}
			tl.ParallelizableGroups = append(tl.ParallelizableGroups, ids)
		}
	}
	if tl.TotalTasks != nil && len(tl.Tasks) > 0 && *tl.TotalTasks != len(tl.Tasks) {
		c.warnf(f.p("total_tasks"), CodeInconsistent, "says %d but tasks holds %d", *tl.TotalTasks, len(tl.Tasks))
	}
	return tl
}

func (c *checker) task(g *fields) Task {
	defer g.done()
	artifacts := func(name string) []Artifact {
		var out []Artifact
		g.objects(name, false, func(m map[string]any, path string) {
			h := c.object(m, path)
			out = append(out, c.artifact(h))
			h.done()
		})
		return out
	}
	return Task{
		Inputs:             artifacts("inputs"),
		OutputArtifacts:    artifacts("output_artifacts"),
		ID:                 g.str("id", true),
		Title:              g.str("title", true),
		Description:        g.str("description", true),
		Scope:              g.strs("scope", false),
		Priority:           g.integer("priority", false, 1, 10),
		Dependencies:       g.strs("dependencies", false),
		EstimatedTokens:    g.integer("estimated_tokens", false, 0, maxInt),
		Complexity:         g.str("complexity", false),
		ParentID:           g.str("parent_id", false),
		Mode:               g.str("mode", false),
		Context:            g.str("context", false),
		ExpectedOutputs:    g.strs("expected_outputs", false),
		Constraints:        g.strs("constraints", false),
		AcceptanceCriteria: g.strs("acceptance_criteria", false),
		Deadline:           g.str("deadline", false),
		Architecture:       g.str("architecture", false),
	}
}

func (c *checker) progress(f *fields) *Progress {
	p := &Progress{
		TaskID:          f.str("task_id", true),
		Status:          f.enum("status", true, progressStatuses...),
		ProgressPercent: f.float("progress_percent", false, 0, 100),
		CurrentAction:   f.str("current_action", false),
		FilesProcessed:  f.integer("files_processed", false, 0, maxInt),
		FilesTotal:      f.integer("files_total", false, 0, maxInt),
		OutputPreview:   f.str("output_preview", false),
	}
	if p.FilesProcessed != nil && p.FilesTotal != nil && *p.FilesProcessed > *p.FilesTotal {
		c.warnf(f.p("files_processed"), CodeInconsistent, "%d is more than files_total %d", *p.FilesProcessed, *p.FilesTotal)
	}
	return p
}

func (c *checker) completion(f *fields) *Completion {
	d := &Completion{
		TaskID:        f.str("task_id", true),
		Status:        f.enum("status", true, completionStatuses...),
		Summary:       f.str("summary", false),
		OutputFiles:   f.strs("output_files", false),
		Output:        f.str("output", false),
		Error:         f.str("error", false),
		Warnings:      f.strs("warnings", false),
		Metrics:       f.anyObject("metrics"),
		Questions:     f.strs("questions", false),
		FilesCreated:  f.strs("files_created", false),
		FilesModified: f.strs("files_modified", false),
		Platform:      f.str("platform", false),
		Timestamp:     f.str("timestamp", false),
	}
	f.objects("issues", false, func(m map[string]any, path string) {
		g := c.object(m, path)
		d.Issues = append(d.Issues, TaskIssue{
			Type:                g.str("type", false),
			Description:         g.str("description", true),
			SuggestedResolution: g.str("suggested_resolution", false),
		})
		g.done()
	})
	f.objects("artifacts", false, func(m map[string]any, path string) {
		g := c.object(m, path)
		d.Artifacts = append(d.Artifacts, c.artifact(g))
		g.done()
	})
	if v, ok := f.get("build", false); ok {
		d.Build = c.build(v, f.p("build"))
	}
	switch d.Status {
	case "failed":
		if d.Error == "" {
			c.warnf(f.p("error"), CodeMissing, "a failed task should say why in error")
		}
	case "needs_input":
		if len(d.Questions) == 0 {
			c.warnf(f.p("questions"), CodeMissing, "a task that needs input should list its questions")
		}
	case "conflict":
		if len(d.Issues) == 0 {
			c.warnf(f.p("issues"), CodeMissing, "a task with a conflict should describe it in issues")
		}
	}
	return d
}

func (c *checker) artifact(g *fields) Artifact {
	return Artifact{
		Type:        g.str("type", false),
		Path:        g.str("path", true),
		Version:     g.str("version", false),
		Description: g.str("description", false),
	}
}

func (c *checker) build(v any, path string) *BuildResult {
	m, ok := v.(map[string]any)
	if !ok {
		c.errorf(path, CodeType, "must be an object, not %s", jsonkind.Of(v))
		return nil
	}
	g := c.object(m, path)
	defer g.done()
	return &BuildResult{
		Status:  g.enum("status", true, buildStatuses...),
		Command: g.str("command", false),
		Errors:  g.integer("errors", false, 0, maxInt),
		Output:  g.str("output", false),
	}
}

// reviewSynonyms are the decision words reviewers write instead of the
// exact values; they are accepted with a warning.
var reviewSynonyms = map[string]string{
	"approve": ReviewApproved, "accept": ReviewApproved, "accepted": ReviewApproved,
	"reject": ReviewRejected, "changes_requested": ReviewRejected, "request_changes": ReviewRejected,
}

// review reads a review decision. task_id, decision and reason are
// required. A rejection without required_changes and an approval with
// required changes are warnings: the decision stands, but the worker gets
// less to go on (or the changes are not sent back).
func (c *checker) review(f *fields) *Review {
	r := &Review{TaskID: f.str("task_id", true)}
	if v, ok := f.get("decision", true); ok {
		path := f.p("decision")
		if s, isStr := v.(string); isStr {
			if d, ok := reviewSynonyms[canon(s)]; ok {
				c.warnf(path, CodeCoerced, "%q read as %q", s, d)
				r.Decision = d
			}
		}
		if r.Decision == "" {
			r.Decision = c.asEnum(v, path, reviewDecisions)
		}
	}
	r.Reason = f.str("reason", true)
	r.RequiredChanges = f.strs("required_changes", false)
	switch {
	case r.Decision == ReviewRejected && len(r.RequiredChanges) == 0:
		c.warnf(f.p("required_changes"), CodeMissing, "a rejection should list the changes the worker must make")
	case r.Decision == ReviewApproved && len(r.RequiredChanges) > 0:
		c.warnf(f.p("required_changes"), CodeInconsistent, "an approval lists %d required change(s); they are not sent to the worker", len(r.RequiredChanges))
	}
	return r
}

func (c *checker) aggregation(f *fields) *Aggregation {
	a := &Aggregation{
		Status:       f.enum("status", true, aggregateStatuses...),
		Summary:      f.str("summary", false),
		MergedOutput: f.str("merged_output", false),
		OutputFiles:  f.strs("output_files", false),
	}
	f.objects("conflicts", false, func(m map[string]any, path string) {
		g := c.object(m, path)
		a.Conflicts = append(a.Conflicts, Conflict{
			Type:        g.str("type", false),
			Description: g.str("description", true),
			Resolution:  g.str("resolution", false),
			Tasks:       g.strs("tasks", false),
			Files:       g.strs("files", false),
		})
		g.done()
	})
	return a
}

func (c *checker) verification(f *fields) *Verification {
	v := &Verification{
		Status:          f.enum("status", true, verifyStatuses...),
		Summary:         f.str("summary", false),
		RegressionRisks: f.strs("regression_risks", false),
		Readiness:       f.str("readiness", false),
	}
	f.objects("criteria", false, func(m map[string]any, path string) {
		g := c.object(m, path)
		v.Criteria = append(v.Criteria, Criterion{
			Criterion: g.str("criterion", true),
			Passed:    g.boolean("passed", true),
			Notes:     g.str("notes", false),
		})
		g.done()
	})
	f.objects("issues", false, func(m map[string]any, path string) {
		g := c.object(m, path)
		v.Issues = append(v.Issues, VerificationIssue{
			Description:  g.str("description", true),
			Severity:     g.enum("severity", false, severityValues...),
			TaskID:       g.str("task_id", false),
			Files:        g.strs("files", false),
			SuggestedFix: g.str("suggested_fix", false),
		})
		g.done()
	})
	if v.Status == "fail" && len(v.Issues) == 0 {
		c.warnf(f.p("issues"), CodeMissing, "a failed verification should list the issues found")
	}
	return v
}
