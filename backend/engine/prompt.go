package engine

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/baton-app/baton/backend/engine/isolation"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/skills"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// prompter assembles every prompt a run sends: the phase prompts of the
// main session (with the workers' outputs for aggregation), a worker's
// prompt (the template's, the workflows' sections, the reviewer's last
// rejection), the review prompt, re-prompts and the answer to a worker's
// questions.
type prompter struct {
	tmpl   template.Template
	values map[string]any
	parser *protocol.Parser
	// host is asked each time whether it takes a session's system prompt
	// apart (the host the settings choose may change).
	host  session.Host
	flows Workflows
	// iso is the run's worktree isolation (nil: the workers share cwd).
	iso *isolation.Workspace
	cwd string
}

// render renders the prompt of a phase with the run's values and extra:
// its system text and its message in one.
func (pr *prompter) render(phase template.Phase, extra map[string]any) (string, error) {
	p, err := pr.renderParts(phase, extra)
	if err != nil {
		return "", err
	}
	return joinPrompt(p.System, p.User), nil
}

// renderParts renders the prompt of a phase with the run's values and
// extra, its system text apart.
func (pr *prompter) renderParts(phase template.Phase, extra map[string]any) (template.Prompt, error) {
	values := make(map[string]any, len(pr.values)+len(extra))
	for k, v := range pr.values {
		values[k] = v
	}
	for k, v := range extra {
		values[k] = v
	}
	return pr.tmpl.Render(phase, values)
}

// joinPrompt joins a system text and a user text (session.JoinPrompt).
func joinPrompt(system, user string) string { return session.JoinPrompt(system, user) }

// withSystem gives a session that starts with the prompt of phase the
// phase's system text as its system prompt, when the host takes one apart
// (TakesSystemPrompt); otherwise opts are left as they are, the system text
// in the message.
func (pr *prompter) withSystem(opts session.StartOptions, phase template.Phase, extra map[string]any) session.StartOptions {
	if !session.TakesSystemPrompt(pr.host) {
		return opts
	}
	p, err := pr.renderParts(phase, extra)
	if err != nil || strings.TrimSpace(p.System) == "" || strings.TrimSpace(p.User) == "" {
		return opts
	}
	opts.Message, opts.SystemPrompt = p.User, p.System
	return opts
}

// workerPrompt renders the first prompt of task t's worker and, for a host
// that takes it apart, its system prompt. The function it returns completes
// the prompt with what the workflows add (skills, journal) and the
// reviewer's last rejection; it runs off the run's goroutine, before the
// worker's session starts, since the journal reads and writes files.
func (pr *prompter) workerPrompt(t *store.Task, ws *workerState) (prompt func() string, system string, err error) {
	p, err := pr.renderParts(template.PhaseWorkerExecution, pr.workerValues(t))
	if err != nil {
		return nil, "", fmt.Errorf("render the worker prompt: %w", err)
	}
	text := joinPrompt(p.System, p.User)
	if session.TakesSystemPrompt(pr.host) && strings.TrimSpace(p.System) != "" && strings.TrimSpace(p.User) != "" {
		text, system = p.User, p.System
	}
	task, feedback, flows := *t, ws.book.Feedback, pr.flows
	return func() string {
		for _, sec := range flows.Sections(&task) {
			text += "\n\n" + sec
		}
		if feedback != "" {
			text += "\n\n" + feedback
		}
		return text
	}, system, nil
}

// reviewValues are the values of the review prompt of task t (nil when
// unknown) with id, whose worker is ws.
func (pr *prompter) reviewValues(id string, t *store.Task, ws *workerState) map[string]any {
	values := map[string]any{template.VarTaskID: id, template.VarCompletionReport: string(ws.book.Report)}
	if t != nil {
		values = pr.workerValues(t)
		values[template.VarCompletionReport] = string(ws.book.Report)
	}
	return values
}

// rejection is what a worker is told of the rejection of its last attempt,
// at the end of its next prompt.
func rejection(who, reason string, required []string) string {
	var fb strings.Builder
	fmt.Fprintf(&fb, "Your previous attempt at this task was rejected by %s. Reason: %s", who, reason)
	if len(required) > 0 {
		fb.WriteString("\nRequired changes:")
		for _, c := range required {
			fb.WriteString("\n- " + c)
		}
	}
	fb.WriteString("\nMake these changes, then report completion again.")
	return fb.String()
}

// answerMessage sends the user's answer to a worker's questions.
func answerMessage(text string) string {
	return "The answer to your questions:\n" + strings.TrimSpace(text) +
		"\n\nContinue the task with this answer and report completion as before."
}

// phaseValues are the values a main-session phase adds: the workers'
// outputs of plan for aggregation; with worktree isolation, aggregation and
// verification look at the run's worktree, where the merged changes are.
func (pr *prompter) phaseValues(phase template.Phase, plan *taskPlan) map[string]any {
	if phase != template.PhaseAggregation && phase != template.PhaseVerification {
		return nil
	}
	values := map[string]any{}
	if pr.iso != nil && pr.iso.Started() {
		values[template.VarCWD] = pr.iso.RunCwd()
	}
	if phase != template.PhaseAggregation {
		return values
	}
	var b strings.Builder
	for _, id := range plan.order() {
		ws := plan.workers[id]
		t := plan.task(id)
		fmt.Fprintf(&b, "### %s - %s (%s)\n", id, t.Title, ws.status)
		if ws.w.Skipped {
			fmt.Fprintf(&b, "Not run: %s\n\n", ws.w.Error)
			continue
		}
		if ws.w.Unstructured {
			b.WriteString("Note: the worker sent no structured report; this is its last message.\n")
		}
		if ws.w.Summary != "" {
			fmt.Fprintf(&b, "Summary: %s\n", ws.w.Summary)
		}
		if len(ws.w.OutputFiles) > 0 {
			fmt.Fprintf(&b, "Files: %s\n", strings.Join(ws.w.OutputFiles, ", "))
		}
		if ws.w.Error != "" {
			fmt.Fprintf(&b, "Error: %s\n", ws.w.Error)
		}
		for _, c := range ws.w.Conflicts {
			fmt.Fprintf(&b, "Conflict to resolve: %s\n", c)
		}
		if ws.w.Output != "" {
			fmt.Fprintf(&b, "Output:\n%s\n", ws.w.Output)
		}
		b.WriteString("\n")
	}
	values[template.VarWorkerOutputs] = b.String()
	return values
}

// folder is where worker taskID works: its worktree (standing for the
// run's folder) or the run's folder. A worker's file paths are relative to
// it.
func (pr *prompter) folder(taskID string) string {
	if pr.iso != nil {
		if d := pr.iso.TaskDir(taskID); d != "" {
			return d
		}
	}
	return pr.cwd
}

// modelFor is the model of a task's worker: the template's model for the
// task's complexity, in any of the words the planning prompts allow (seed
// 004).
func (pr *prompter) modelFor(t *store.Task) string {
	return pr.tmpl.Config.Models.For(skills.NormalizeComplexity(t.Complexity))
}

// taskValues are the prompt variables of one task.
func taskValues(t *store.Task) map[string]any {
	scope := strings.Join(t.Scope, ", ")
	if scope == "" {
		scope = "(no particular files)"
	}
	tj, _ := json.Marshal(protocol.Task{ID: t.ID, Title: t.Title, Description: t.Description, Scope: t.Scope,
		Priority: &t.Priority, Dependencies: t.Dependencies, Complexity: t.Complexity})
	return map[string]any{
		template.VarTaskID: t.ID, template.VarTaskTitle: t.Title, template.VarTaskDescription: t.Description,
		template.VarTaskScope: scope, template.VarTaskJSON: string(tj)}
}

// delegation reports whether the template speaks the delegation dialect of
// seed 003 (new_task plans, attempt_completion reports).
func (pr *prompter) delegation() bool {
	return pr.tmpl.Prompts.ResponseFormat.Dialect == "delegation"
}

// reprompt is the follow-up for a failed answer, in the shape the template
// asked for.
func (pr *prompter) reprompt(f protocol.Failure, phase protocol.Phase) string {
	if phase == protocol.PhaseCompletion {
		if text := pr.flows.Reprompt(f.Message); text != "" {
			return text
		}
	}
	if pr.delegation() {
		return pr.parser.BuildDelegationReprompt(f, phase)
	}
	return pr.parser.BuildReprompt(f, phase)
}

// workerValues are the prompt variables of one task for its worker or its
// reviewer: in the delegation dialect TASK_JSON is the task's new_task.
func (pr *prompter) workerValues(t *store.Task) map[string]any {
	v := taskValues(t)
	if pr.iso != nil {
		if d := pr.iso.TaskDir(t.ID); d != "" {
			v[template.VarCWD] = d
		}
	}
	if pr.delegation() {
		v[template.VarTaskJSON] = newTaskJSON(t)
	}
	return v
}

// newTask is a seed 003 new_task object, in the order of the seed.
type newTask struct {
	TaskID              string              `json:"taskId"`
	ParentTaskID        string              `json:"parentTaskId,omitempty"`
	DelegatedToMode     string              `json:"delegatedToMode,omitempty"`
	Objective           string              `json:"objective"`
	Context             string              `json:"context,omitempty"`
	Inputs              []protocol.Artifact `json:"inputs"`
	ExpectedOutputs     []protocol.Artifact `json:"expectedOutputs"`
	ConstraintsAndRules []string            `json:"constraintsAndRules"`
	AcceptanceCriteria  []string            `json:"acceptanceCriteria"`
	Priority            string              `json:"priority"`
	Dependencies        []string            `json:"dependencies"`
	DeadlineHint        string              `json:"deadlineHint,omitempty"`
}

// newTaskJSON writes a task as the new_task that delegates it: what the
// planner wrote (mode, context, constraints, acceptance criteria, expected
// outputs), with the stored fields, which the user may have edited, over it.
func newTaskJSON(t *store.Task) string {
	var def protocol.Task
	_ = json.Unmarshal(t.Definition, &def)
	// A path the planner described keeps its type, version and
	// description; a path the user added is a bare path.
	paths := func(ps []string, known []protocol.Artifact) []protocol.Artifact {
		out := []protocol.Artifact{}
		for _, p := range ps {
			a := protocol.Artifact{Path: p}
			for _, k := range known {
				if k.Path == p {
					a = k
					break
				}
			}
			out = append(out, a)
		}
		return out
	}
	objective := t.Description
	if strings.TrimSpace(objective) == "" {
		objective = t.Title
	}
	// high, medium and low were read as 8, 5 and 2.
	priority := "medium"
	switch {
	case t.Priority >= 7:
		priority = "high"
	case t.Priority <= 3:
		priority = "low"
	}
	b, _ := json.Marshal(newTask{
		TaskID: t.ID, ParentTaskID: def.ParentID, DelegatedToMode: def.Mode, Objective: objective, Context: def.Context,
		Inputs: paths(t.Scope, def.Inputs), ExpectedOutputs: paths(def.ExpectedOutputs, def.OutputArtifacts),
		ConstraintsAndRules: nonNil(def.Constraints), AcceptanceCriteria: nonNil(def.AcceptanceCriteria),
		Priority: priority, Dependencies: nonNil(t.Dependencies), DeadlineHint: def.Deadline,
	})
	return string(b)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
