// Package prompts assembles every prompt a run sends: the phase prompts of
// the main session (with the workers' outputs for aggregation, and for a
// main session that replaces a lost one the run so far), a worker's prompt
// (the template's, the workflows' sections, the reviewer's last rejection;
// in the delegation dialect of seed 003 its task as a new_task), the review
// prompt, the re-prompts after a missing or broken answer, and the answer
// to a worker's questions. The template renders them; what a run adds is
// here.
package prompts

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/skills"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// Workflows is what a run's seed workflows add to its prompts
// (engine.Workflows).
type Workflows interface {
	// Sections are what the workflows add to the worker prompt of task t.
	Sections(t *store.Task) []string
	// Reprompt is what the worker of task taskID is told when its
	// completion report could not be used because of problem ("" the
	// parser's words).
	Reprompt(taskID, problem string) string
}

// Folders says where a run's workers work when they do not share the run's
// Folder (worktree isolation, isolation.Workspace).
type Folders interface {
	// TaskDir is the folder worker id works in ("" the run's).
	TaskDir(id string) string
	// RunCwd is the folder where the workers' changes come together (""
	// the run's).
	RunCwd() string
}

// Prompter assembles the prompts of one run.
type Prompter struct {
	tmpl   template.Template
	values map[string]any
	parser *protocol.Parser
	host   session.Host
	flows  Workflows
	dirs   Folders
	cwd    string
}

// New returns the prompter of a run of tmpl in folder cwd with the run's
// variables values, parsing with parser. host is asked each time whether
// it takes a session's system prompt apart (the host the settings choose
// may change); dirs is nil when the workers share the run's folder.
func New(tmpl template.Template, values map[string]any, cwd string, parser *protocol.Parser, host session.Host, flows Workflows, dirs Folders) *Prompter {
	return &Prompter{tmpl: tmpl, values: values, parser: parser, host: host, flows: flows, dirs: dirs, cwd: cwd}
}

// Render renders the prompt of a phase with the run's values and extra:
// its system text and its message in one.
func (pr *Prompter) Render(phase template.Phase, extra map[string]any) (string, error) {
	p, err := pr.renderParts(phase, extra)
	if err != nil {
		return "", err
	}
	return joinPrompt(p.System, p.User), nil
}

// RenderParts renders the prompt of a phase with the run's values and
// extra, its system text apart.
func (pr *Prompter) renderParts(phase template.Phase, extra map[string]any) (template.Prompt, error) {
	values := make(map[string]any, len(pr.values)+len(extra))
	for k, v := range pr.values {
		values[k] = v
	}
	for k, v := range extra {
		values[k] = v
	}
	p, err := pr.tmpl.Render(phase, values)
	if err != nil {
		return p, err
	}
	// The checks Baton ran reach the verification whether or not the
	// template's prompt places them.
	if cr, ok := values[template.VarCheckResults].(string); ok && phase == template.PhaseVerification &&
		strings.TrimSpace(cr) != "" && !strings.Contains(p.System+p.User, cr) {
		p.User = strings.TrimRight(p.User, "\n") + "\n\n" + cr
	}
	return p, nil
}

// joinPrompt joins a system text and a user text (session.JoinPrompt).
func joinPrompt(system, user string) string { return session.JoinPrompt(system, user) }

// WithSystem gives a session that starts with the prompt of phase the
// phase's system text as its system prompt, when the host takes one apart
// (TakesSystemPrompt); otherwise opts are left as they are, the system text
// in the message.
func (pr *Prompter) WithSystem(opts session.StartOptions, phase template.Phase, extra map[string]any) session.StartOptions {
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

// Worker renders the first prompt of task t's worker (with the model it
// runs as, when the template names one) and, for a host that takes it
// apart, its system prompt. The function it returns completes
// the prompt with what the workflows add (skills, journal) and the
// reviewer's last rejection; it runs off the run's goroutine, before the
// worker's session starts, since the journal reads and writes files.
func (pr *Prompter) Worker(t *store.Task, feedback string) (prompt func() string, system string, err error) {
	p, err := pr.renderParts(template.PhaseWorkerExecution, pr.workerValues(t))
	if err != nil {
		return nil, "", fmt.Errorf("render the worker prompt: %w", err)
	}
	text := joinPrompt(p.System, p.User)
	if session.TakesSystemPrompt(pr.host) && strings.TrimSpace(p.System) != "" && strings.TrimSpace(p.User) != "" {
		text, system = p.User, p.System
	}
	if model := pr.Model(t); model != "" {
		// Seed 004 3.5: the worker knows the model it runs as.
		text += "\n\n## Model\nYou are running as: " + model
	}
	task, flows := *t, pr.flows
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

// Review is the values of the review prompt of task id (t: the task, nil
// when unknown), whose worker reported report.
func (pr *Prompter) Review(id string, t *store.Task, report string) map[string]any {
	values := map[string]any{template.VarTaskID: id, template.VarCompletionReport: report}
	if t != nil {
		values = pr.workerValues(t)
		values[template.VarCompletionReport] = report
	}
	return values
}

// Rejection is what a worker is told of the rejection of its last attempt,
// at the end of its next prompt.
func Rejection(who, reason string, required []string) string {
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

// Answer is how the user's answer goes the user's answer to a worker's questions.
func Answer(text string) string {
	return "The answer to your questions:\n" + strings.TrimSpace(text) +
		"\n\nContinue the task with this answer and report completion as before."
}

// The reasons a session is told to go on after its turn stopped.
const (
	// StoppedMidTurn: the process stopped while the turn ran (Baton was
	// stopped, killed or restarted, or the process died).
	StoppedMidTurn = "Your session was stopped in the middle of your work (Baton or Claude Code stopped) and now goes on where it was."
	// ModelBack: the model could not be reached for a while.
	ModelBack = "The connection to the model was lost for a while and is back."
)

// goOnDone is how many of the calls a session made GoOn lists at most.
const goOnDone = 40

// GoOn is what a session whose turn stopped before it ended is sent so
// that it goes on in the same session: why it stopped, what it already did
// there (its tool calls in order, the last goOnDone), that none of it is to
// be done again, and what to end with: a worker's completion report
// (worker), else the answer the main session was asked for.
func GoOn(why string, done []string, worker bool) string {
	var b strings.Builder
	b.WriteString(why)
	if len(done) > 0 {
		b.WriteString("\n\nWhat you already did in this session, in order:\n")
		if len(done) > goOnDone {
			fmt.Fprintf(&b, "- (%d earlier steps)\n", len(done)-goOnDone)
			done = done[len(done)-goOnDone:]
		}
		for _, d := range done {
			fmt.Fprintf(&b, "- %s\n", oneLine(d, 200))
		}
		b.WriteString("\nThese steps are done: do not do them again (a file you wrote or edited is already changed; read it if you need to see it). ")
	} else {
		b.WriteString("\n\n")
	}
	if worker {
		b.WriteString("Continue the task exactly where you left off and finish with your completion report.")
	} else {
		b.WriteString("Continue where you left off and give the answer you were asked for.")
	}
	return b.String()
}

// Phase is the values a main-session phase adds: for aggregation the
// outputs of the workers (by task id) of tasks, in their order; with
// worktree isolation, aggregation and verification look at the run's
// worktree, where the merged changes are.
func (pr *Prompter) Phase(phase template.Phase, tasks []store.Task, workers map[string]store.Worker) map[string]any {
	if phase != template.PhaseAggregation && phase != template.PhaseVerification {
		return nil
	}
	values := map[string]any{}
	if pr.dirs != nil {
		if d := pr.dirs.RunCwd(); d != "" {
			values[template.VarCWD] = d
		}
	}
	if phase != template.PhaseAggregation {
		return values
	}
	var b strings.Builder
	for _, t := range tasks {
		w, ok := workers[t.ID]
		if !ok {
			continue
		}
		if w.Skipped {
			fmt.Fprintf(&b, "### %s - %s (skipped)\nNot run, nothing to merge: %s\n\n", t.ID, t.Title, w.Error)
			continue
		}
		fmt.Fprintf(&b, "### %s - %s (%s)\n", t.ID, t.Title, w.Status)
		if w.Status != "completed" {
			b.WriteString("It did not complete: do not count its work as merged.\n")
		}
		if len(w.MissingOutputs) > 0 {
			fmt.Fprintf(&b, "Declared but not written (Baton checked): %s\n", strings.Join(w.MissingOutputs, ", "))
		}
		if w.Unstructured {
			b.WriteString("Note: the worker sent no structured report; this is its last message.\n")
		}
		if w.Summary != "" {
			fmt.Fprintf(&b, "Summary: %s\n", w.Summary)
		}
		if len(w.OutputFiles) > 0 {
			fmt.Fprintf(&b, "Files: %s\n", strings.Join(w.OutputFiles, ", "))
		}
		if w.Error != "" {
			fmt.Fprintf(&b, "Error: %s\n", w.Error)
		}
		for _, c := range w.Conflicts {
			fmt.Fprintf(&b, "Conflict to resolve: %s\n", c)
		}
		if w.Output != "" {
			fmt.Fprintf(&b, "Output:\n%s\n", w.Output)
		}
		b.WriteString("\n")
	}
	values[template.VarWorkerOutputs] = b.String()
	return values
}

// Folder is where worker taskID works: its worktree (standing for the
// run's folder) or the run's folder. A worker's file paths are relative to
// it.
func (pr *Prompter) Folder(taskID string) string {
	if pr.dirs != nil {
		if d := pr.dirs.TaskDir(taskID); d != "" {
			return d
		}
	}
	return pr.cwd
}

// Model is the model of a task's worker: the template's model for the
// task's complexity, in any of the words the planning prompts allow (seed
// 004).
func (pr *Prompter) Model(t *store.Task) string {
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
func (pr *Prompter) delegation() bool {
	return pr.tmpl.Prompts.ResponseFormat.Dialect == "delegation"
}

// Reprompt is the follow-up for a failed answer, in the shape the template
// asked for.
func (pr *Prompter) Reprompt(f protocol.Failure, phase protocol.Phase) string {
	if phase == protocol.PhaseCompletion {
		if text := pr.flows.Reprompt(f.TaskID, f.Message); text != "" {
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
func (pr *Prompter) workerValues(t *store.Task) map[string]any {
	v := taskValues(t)
	if pr.dirs != nil {
		if d := pr.dirs.TaskDir(t.ID); d != "" {
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

// Summary is what a new main session reads before its first prompt when
// the host lost the first one: the request of run and every one of tasks
// with its outcome and report (workers by task id).
func Summary(run store.Run, tasks []store.Task, workers map[string]store.Worker) string {
	var b strings.Builder
	b.WriteString("Baton continues an orchestration run in this new session: the session host no longer has the run's first main session. ")
	b.WriteString("Here is the run so far; the instructions for the current step follow it.\n\n")
	fmt.Fprintf(&b, "Request: %s\nFolder: %s\n", oneLine(run.Request, 2000), run.Cwd)
	if len(tasks) == 0 {
		b.WriteString("No task list was made yet.\n\n")
		return b.String()
	}
	done, failed, skipped := 0, 0, 0
	for _, w := range workers {
		switch {
		case w.Skipped:
			skipped++
		case w.Status == "completed":
			done++
		case w.Status == "failed" || w.Status == "cancelled":
			failed++
		}
	}
	fmt.Fprintf(&b, "Tasks: %d, %d completed, %d failed, %d skipped.\n", len(tasks), done, failed, skipped)
	for _, task := range tasks {
		w, ok := workers[task.ID]
		status := "pending"
		if ok {
			status = w.Status
		}
		fmt.Fprintf(&b, "- %s %q: %s", task.ID, oneLine(task.Title, 200), status)
		if ok {
			if w.Summary != "" {
				fmt.Fprintf(&b, ". Report: %s", oneLine(w.Summary, 1500))
			}
			if len(w.OutputFiles) > 0 {
				fmt.Fprintf(&b, ". Files: %s", oneLine(strings.Join(w.OutputFiles, ", "), 500))
			}
			if w.Error != "" && w.Status != "completed" {
				fmt.Fprintf(&b, ". Problem: %s", oneLine(w.Error, 500))
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	return b.String()
}

// oneLine keeps text on one line and clips it to n characters (runes),
// ending it with "..." when it was longer.
func oneLine(s string, n int) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-3]) + "..."
}
