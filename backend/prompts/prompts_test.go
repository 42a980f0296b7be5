package prompts

import (
	"fmt"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// host is a session host that only says whether it takes a system prompt
// apart.
type host struct {
	session.Host
	system bool
}

func (h host) TakesSystemPrompt() bool { return h.system }

// flows adds a section to every worker prompt and words of its own to
// completion re-prompts.
type flows struct{}

func (flows) Sections(t *store.Task) []string { return []string{"## Skills for " + t.ID} }
func (flows) Reprompt(taskID, problem string) string {
	return "fix the mailbox report of " + taskID + ": " + problem
}

// dirs puts task a in a worktree.
type dirs struct{}

func (dirs) TaskDir(id string) string {
	if id == "a" {
		return "/wt/a"
	}
	return ""
}
func (dirs) RunCwd() string { return "/wt/run" }

func prompter(t *testing.T, system bool, folders Folders) *Prompter {
	t.Helper()
	tmpl := template.Template{ID: "t"}
	tmpl.Prompts.ResponseFormat = template.ResponseFormat{StartDelimiter: "<<<", EndDelimiter: ">>>"}
	tmpl.Prompts.WorkerExecution = template.Prompt{System: "You are a worker in {CWD}.", User: "Do {TASK_ID}: {TASK_TITLE}"}
	tmpl.Prompts.Aggregation = template.Prompt{User: "Merge in {CWD}:\n{WORKER_OUTPUTS}"}
	tmpl.Prompts.Verification = template.Prompt{User: "Check {CWD}"}
	tmpl.Config.Models = template.Models{Easy: "haiku", Normal: "sonnet", Complex: "opus"}
	parser, err := protocol.NewParser(protocol.Delimiters{Start: "<<<", End: ">>>"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return New(tmpl, map[string]any{template.VarCWD: "/repo"}, "/repo", parser, host{system: system}, flows{}, folders)
}

// A worker's prompt: the template's in its folder, the model it runs as,
// the workflows' sections and the last rejection; its system text apart
// for a host that takes it.
func TestWorkerPrompt(t *testing.T) {
	t.Parallel()
	task := &store.Task{ID: "a", Title: "Docs", Complexity: "complex"}
	p := prompter(t, false, dirs{})
	prompt, system, err := p.Worker(task, "Your previous attempt was rejected.")
	if err != nil {
		t.Fatal(err)
	}
	text := prompt()
	if system != "" || !strings.HasPrefix(text, "You are a worker in /wt/a.") || !strings.Contains(text, "Do a: Docs\n\n## Model\nYou are running as: opus\n\n## Skills for a") ||
		!strings.HasSuffix(text, "Your previous attempt was rejected.") {
		t.Errorf("prompt %q, system %q", text, system)
	}
	prompt, system, err = prompter(t, true, nil).Worker(task, "")
	if err != nil {
		t.Fatal(err)
	}
	if system != "You are a worker in /repo." || !strings.HasPrefix(prompt(), "Do a: Docs\n\n## Model\nYou are running as: opus\n\n## Skills for a") {
		t.Errorf("apart: system %q, prompt %q", system, prompt())
	}
	if p.Model(task) != "opus" || p.Folder("a") != "/wt/a" || p.Folder("b") != "/repo" {
		t.Errorf("model %q, folders %q %q", p.Model(task), p.Folder("a"), p.Folder("b"))
	}
	opts := prompter(t, true, nil).WithSystem(session.StartOptions{Message: "all"}, template.PhaseWorkerExecution, map[string]any{template.VarTaskID: "b"})
	if opts.SystemPrompt != "You are a worker in /repo." || opts.Message != "Do b: {TASK_TITLE}" {
		t.Errorf("with system: %+v", opts)
	}
}

// Aggregation reads every worker's outcome in plan order, in the run's
// worktree when the workers had their own.
func TestPhaseValues(t *testing.T) {
	t.Parallel()
	tasks := []store.Task{{ID: "a", Title: "A"}, {ID: "b", Title: "B"}, {ID: "c", Title: "C"}}
	workers := map[string]store.Worker{
		"a": {Status: "completed", Summary: "did a", OutputFiles: []string{"a.md"}, Conflicts: []string{"a.md: both"}},
		"b": {Status: "cancelled", Skipped: true, Error: "skipped because a failed"},
	}
	p := prompter(t, false, dirs{})
	v := p.Phase(template.PhaseAggregation, tasks, workers)
	out, _ := v[template.VarWorkerOutputs].(string)
	for _, want := range []string{"### a - A (completed)\nSummary: did a\nFiles: a.md\nConflict to resolve: a.md: both", "### b - B (skipped)\nNot run, nothing to merge: skipped because a failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("outputs lack %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "### c") || v[template.VarCWD] != "/wt/run" {
		t.Errorf("outputs %q, cwd %v", out, v[template.VarCWD])
	}
	text, err := p.Render(template.PhaseVerification, p.Phase(template.PhaseVerification, tasks, workers))
	if err != nil || text != "Check /wt/run" {
		t.Errorf("verification = %q, %v", text, err)
	}
	if p.Phase(template.PhaseAnalysis, tasks, workers) != nil || prompter(t, false, nil).Phase(template.PhaseVerification, nil, nil)[template.VarCWD] != nil {
		t.Error("values where a phase adds none")
	}
}

// A completion re-prompt uses the workflows' words; others the parser's.
func TestReprompt(t *testing.T) {
	t.Parallel()
	p := prompter(t, false, nil)
	if got := p.Reprompt(protocol.Failure{Message: "no build result", TaskID: "task_004"}, protocol.PhaseCompletion); got != "fix the mailbox report of task_004: no build result" {
		t.Errorf("completion: %q", got)
	}
	if got := p.Reprompt(protocol.Failure{Kind: protocol.FailureNoBlock, Phase: protocol.PhaseAnalysis, Message: "no answer block"}, protocol.PhaseAnalysis); !strings.Contains(got, "<<<") {
		t.Errorf("analysis: %q", got)
	}
	if got := Rejection("the user", "too short", []string{"add examples"}); !strings.Contains(got, "rejected by the user. Reason: too short\nRequired changes:\n- add examples") {
		t.Errorf("rejection: %q", got)
	}
	if got := Answer("  port 8080 "); !strings.HasPrefix(got, "The answer to your questions:\nport 8080\n") {
		t.Errorf("answer: %q", got)
	}
}

// The run so far, for a main session that replaces a lost one.
func TestSummary(t *testing.T) {
	t.Parallel()
	run := store.Run{Request: "Document\n the  code", Cwd: "/repo"}
	if got := Summary(run, nil, nil); !strings.Contains(got, "Request: Document the code\nFolder: /repo\nNo task list was made yet.") {
		t.Errorf("no tasks: %q", got)
	}
	tasks := []store.Task{{ID: "a", Title: "A"}, {ID: "b", Title: "B"}, {ID: "c", Title: "C"}}
	workers := map[string]store.Worker{
		"a": {Status: "completed", Summary: "did a", OutputFiles: []string{"a.md"}},
		"b": {Status: "failed", Error: "broke"},
	}
	got := Summary(run, tasks, workers)
	for _, want := range []string{"Tasks: 3, 1 completed, 1 failed, 0 skipped.", `- a "A": completed. Report: did a. Files: a.md`,
		`- b "B": failed. Problem: broke`, `- c "C": pending`} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
}

// A session told to go on after its turn stopped hears why, what it did
// already (the newest steps when there are many) and what to end with.
func TestGoOnSaysWhatIsDone(t *testing.T) {
	t.Parallel()
	done := []string{"Write docs/a.md", "Edit store/store.go", "Bash go test ./..."}
	w := GoOn(StoppedMidTurn, done, true)
	for _, want := range []string{StoppedMidTurn, "- Write docs/a.md\n- Edit store/store.go\n- Bash go test ./...", "do not do them again", "completion report"} {
		if !strings.Contains(w, want) {
			t.Errorf("the worker's message lacks %q:\n%s", want, w)
		}
	}
	m := GoOn(ModelBack, nil, false)
	if !strings.HasPrefix(m, ModelBack) || strings.Contains(m, "already did") || !strings.Contains(m, "give the answer you were asked for") {
		t.Errorf("the main session's message:\n%s", m)
	}
	var many []string
	for i := range 50 {
		many = append(many, fmt.Sprintf("Read f%d.go", i))
	}
	l := GoOn(StoppedMidTurn, many, true)
	if !strings.Contains(l, "(10 earlier steps)") || strings.Contains(l, "Read f9.go\n") || !strings.Contains(l, "Read f49.go") {
		t.Errorf("a long list is not cut to its newest steps:\n%s", l)
	}
}

// The checks Baton ran reach the verification prompt: at its end when the
// template does not place {CHECK_RESULTS}, once where it does.
func TestVerificationCarriesTheChecks(t *testing.T) {
	t.Parallel()
	checks := "## The project's checks, as Baton ran them\n- `go test ./...` failed (exit 1, 2.0 s)."
	p := prompter(t, false, nil)
	text, err := p.Render(template.PhaseVerification, map[string]any{template.VarCheckResults: checks})
	if err != nil || !strings.HasPrefix(text, "Check /repo") || !strings.HasSuffix(text, checks) {
		t.Errorf("verification without the placeholder = %q, %v", text, err)
	}
	placed := prompter(t, false, nil)
	placed.tmpl.Prompts.Verification = template.Prompt{User: "Facts first:\n{CHECK_RESULTS}\nNow check {CWD}."}
	text, err = placed.Render(template.PhaseVerification, map[string]any{template.VarCheckResults: checks})
	if err != nil || strings.Count(text, checks) != 1 || !strings.HasSuffix(text, "Now check /repo.") {
		t.Errorf("verification with the placeholder = %q, %v", text, err)
	}
	// Other phases never get them.
	if text, _ := p.Render(template.PhaseAggregation, map[string]any{template.VarCheckResults: checks}); strings.Contains(text, checks) {
		t.Errorf("aggregation got the checks: %q", text)
	}
}
