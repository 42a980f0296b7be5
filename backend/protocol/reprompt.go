package protocol

import (
	"encoding/json"
	"fmt"
	"strings"
)

// FailureKind names why a reply holds no valid answer.
type FailureKind string

// Failure kinds.
const (
	FailureNoBlock     FailureKind = "no_block"         // no block and no dialect object at all
	FailureIncomplete  FailureKind = "incomplete_block" // a start delimiter without its end
	FailureInvalidJSON FailureKind = "invalid_json"     // not JSON, even after repair
	FailureInvalidData FailureKind = "invalid_data"     // JSON, but missing or wrong fields
	FailureWrongPhase  FailureKind = "wrong_phase"      // a valid answer, for another phase
	FailureWrongTask   FailureKind = "wrong_task"       // a valid answer, about another task (Message says which)
)

// Failure says why a reply holds no valid answer; BuildReprompt turns it
// into the follow-up message.
type Failure struct {
	Kind FailureKind `json:"kind"`
	// Phase is the phase that was asked for (may be empty).
	Phase Phase `json:"phase,omitempty"`
	// Found is the phase of the answer that was found, if any.
	Found Phase `json:"found,omitempty"`
	// Dialect is the dialect of the answer the failure is about.
	Dialect   Dialect    `json:"dialect,omitempty"`
	Message   string     `json:"message"`
	JSONError *JSONError `json:"json_error,omitempty"`
	Errors    []Issue    `json:"errors,omitempty"`
	// TaskID, when set, is the task the answer is for: the re-prompt's
	// example and its words carry it, never another task's id.
	TaskID string `json:"task_id,omitempty"`
}

// failureOf decides why res holds no valid answer for phase.
func failureOf(res Result, phase Phase) *Failure {
	if _, ok := res.Last(phase); ok {
		return nil
	}
	pick := -1
	for i := len(res.Responses) - 1; i >= 0 && pick < 0; i-- {
		if r := res.Responses[i]; r.Status == StatusInvalid && (phase == "" || r.Phase == phase) {
			pick = i
		}
	}
	for i := len(res.Responses) - 1; i >= 0 && pick < 0; i-- {
		if r := res.Responses[i]; !r.Valid() && (r.Phase == "" || phase == "") {
			pick = i
		}
	}
	if pick < 0 {
		for i := len(res.Responses) - 1; i >= 0; i-- {
			if r := res.Responses[i]; r.Valid() || r.Phase != "" {
				f := &Failure{Kind: FailureWrongPhase, Phase: phase, Found: r.Phase}
				f.Message = fmt.Sprintf("the reply holds a %s answer, but a %s answer was asked for", r.Phase, phase)
				return f
			}
		}
		return &Failure{Kind: FailureNoBlock, Phase: phase, Message: "the reply holds no response block"}
	}
	r := res.Responses[pick]
	f := &Failure{Phase: phase, Found: r.Phase, Dialect: r.Dialect}
	switch r.Status {
	case StatusIncomplete:
		f.Kind = FailureIncomplete
		f.Message = "the response block has no end delimiter"
	case StatusInvalidJSON:
		f.Kind = FailureInvalidJSON
		f.JSONError = r.JSONError
		if r.JSONError != nil {
			f.Message = fmt.Sprintf("the JSON in the response block is invalid at line %d, column %d: %s", r.JSONError.Line, r.JSONError.Column, r.JSONError.Message)
		} else {
			f.Message = "the JSON in the response block is invalid"
		}
	default:
		f.Kind = FailureInvalidData
		f.Errors = r.Errors
		f.Message = fmt.Sprintf("the response block has %d error(s), the first: %s", len(r.Errors), firstIssue(r.Errors))
	}
	return f
}

func firstIssue(is []Issue) string {
	if len(is) == 0 {
		return "no data"
	}
	if is[0].Path == "" {
		return is[0].Message
	}
	return is[0].String()
}

// BuildReprompt writes the stricter follow-up message for a failure: it
// names exactly what was wrong and shows the expected shape of the phase.
// phase overrides f.Phase when set.
func (p *Parser) BuildReprompt(f Failure, phase Phase) string {
	return p.buildReprompt(f, phase, false)
}

// BuildDelegationReprompt is BuildReprompt for a template that speaks the
// delegation dialect of seed 003: for a completion it shows the
// attempt_completion report, for a task list the new_task object, instead of
// the phase block the agent was never asked for.
func (p *Parser) BuildDelegationReprompt(f Failure, phase Phase) string {
	return p.buildReprompt(f, phase, true)
}

func (p *Parser) buildReprompt(f Failure, phase Phase, delegation bool) string {
	if phase == "" {
		phase = f.Phase
	}
	if phase == "" {
		phase = f.Found
	}
	start, end := p.delims.Start, p.delims.End
	var b strings.Builder
	b.WriteString("Baton could not read your last reply: ")
	switch f.Kind {
	case FailureNoBlock:
		fmt.Fprintf(&b, "it holds no response block between %s and %s.\n", start, end)
	case FailureIncomplete:
		fmt.Fprintf(&b, "the response block that starts with %s never ends with %s (the reply may have been cut off).\n", start, end)
	case FailureInvalidJSON:
		if je := f.JSONError; je != nil {
			fmt.Fprintf(&b, "the JSON inside the response block is invalid at line %d, column %d: %s.\n", je.Line, je.Column, je.Message)
			if je.Excerpt != "" {
				fmt.Fprintf(&b, "The error is at » in: %s\n", je.Excerpt)
			}
		} else {
			b.WriteString("the JSON inside the response block is invalid.\n")
		}
	case FailureInvalidData:
		if f.Dialect != "" && f.Dialect != DialectOrchestrator {
			fmt.Fprintf(&b, "your %s object has these errors:\n", f.Dialect)
		} else {
			b.WriteString("the response block has these errors:\n")
		}
		for i, is := range f.Errors {
			if i == 20 {
				fmt.Fprintf(&b, "- and %d more\n", len(f.Errors)-i)
				break
			}
			if is.Path == "" {
				fmt.Fprintf(&b, "- %s\n", is.Message)
			} else {
				fmt.Fprintf(&b, "- %s: %s\n", is.Path, is.Message)
			}
		}
	case FailureWrongPhase:
		fmt.Fprintf(&b, "it holds a %q answer, but this step needs a %q answer.\n", f.Found, phase)
	default:
		fmt.Fprintf(&b, "%s.\n", strings.TrimSuffix(f.Message, "."))
	}
	b.WriteString("\n")
	own := ""
	if f.TaskID != "" {
		own = fmt.Sprintf("Your task's id is %q: the report is about that task and no other.\n", f.TaskID)
	}
	switch {
	case delegation && phase == PhaseCompletion:
		b.WriteString("Reply again with exactly one attempt_completion report in a block, in exactly this form:\n\n")
		fmt.Fprintf(&b, "%s\n%s\n%s\n\n", start, exampleAttemptCompletion(f.TaskID), end)
		b.WriteString(own)
		b.WriteString(`Required: "taskId" (your task's id), "result" ("success", "failure", "clarification_needed" or "conflict_detected") and "summary". ` +
			`"outputArtifacts" and "issues_encountered" are arrays, [] when empty; for "clarification_needed" put each question in "issues_encountered" ` +
			`as {"type": "clarification_needed", "description": "the question"}.` + "\n\n")
	case delegation && phase == PhaseTaskList:
		b.WriteString("Reply again with one block per task, each holding one new_task object in exactly this form:\n\n")
		fmt.Fprintf(&b, "%s\n%s\n%s\n\n", start, ExampleNewTask, end)
		b.WriteString(`Required in each: "taskId" (unique), "delegatedToMode", "objective", "context" and "acceptanceCriteria"; ` +
			`"dependencies" lists the taskIds that must be completed first, [] when none.` + "\n\n")
	case phase.Known():
		fmt.Fprintf(&b, "Reply again with exactly one response block for the %q phase, in exactly this form:\n\n", phase)
		fmt.Fprintf(&b, "%s\n%s\n%s\n\n", start, exampleBlock(phase, f.TaskID), end)
		if phase == PhaseCompletion || phase == PhaseProgress || phase == PhaseReview {
			b.WriteString(own)
		}
		b.WriteString(fieldGuide(phase))
	default:
		fmt.Fprintf(&b, "Reply again with exactly one response block in this form:\n\n%s\n{\"phase\": \"<one of %s>\", \"data\": { … }}\n%s\n\n", start, phaseList(), end)
	}
	fmt.Fprintf(&b, "Put nothing between %s and %s except one JSON object. Use double quotes around every key and string, no comments, no trailing commas, and write line breaks inside strings as \\n. Close the block with %s.", start, end, end)
	return b.String()
}

// ExampleAttemptCompletion and ExampleNewTask are the delegation dialect's
// report and task as re-prompts show them; each parses as a valid answer.
const (
	ExampleAttemptCompletion = `{
  "taskId": "CODE-001",
  "result": "success",
  "summary": "What was accomplished, in one to four sentences",
  "outputArtifacts": [{"type": "code", "path": "path/to/output", "version": "1.0.0", "description": "What this file is"}],
  "issues_encountered": []
}`
	ExampleNewTask = `{
  "taskId": "SPEC-001",
  "parentTaskId": "",
  "delegatedToMode": "spec-pseudocode",
  "objective": "What must be accomplished, in one or two sentences",
  "context": "The background the agent needs",
  "inputs": [{"type": "code", "path": "path/to/input", "description": "What to read"}],
  "expectedOutputs": [{"type": "document", "path": "path/to/output", "description": "What to produce"}],
  "constraintsAndRules": ["A rule to follow"],
  "acceptanceCriteria": ["A check that proves the task is done"],
  "priority": "high",
  "dependencies": [],
  "deadlineHint": "20 minutes"
}`
)

// exampleAttemptCompletion is ExampleAttemptCompletion for task taskID
// (its own example id when "").
func exampleAttemptCompletion(taskID string) string {
	if taskID == "" {
		return ExampleAttemptCompletion
	}
	id, _ := json.Marshal(taskID)
	return strings.Replace(ExampleAttemptCompletion, `"CODE-001"`, string(id), 1)
}

// ExampleBlock returns the JSON of a valid answer for phase, as shown in
// re-prompts; it parses as a valid response of that phase.
func ExampleBlock(phase Phase) string { return exampleBlock(phase, "") }

// exampleBlock is ExampleBlock with taskID ("" an example id) as the task
// a completion, progress or review answer is about.
func exampleBlock(phase Phase, taskID string) string {
	example := "task_001"
	if taskID != "" {
		example = taskID
	}
	var data PhaseData
	switch phase {
	case PhaseAnalysis:
		data = &Analysis{Summary: "What the codebase is and how it is organized", RecommendedSplits: 4,
			KeyFiles: []string{"path/to/important_file"}, EstimatedComplexity: "medium"}
	case PhaseTaskList:
		data = &TaskList{Tasks: []Task{
			{ID: "task_001", Title: "Short title", Description: "What this task must accomplish", Scope: []string{"path/to/files"}, Priority: intPtr(5)},
			{ID: "task_002", Title: "Another task", Description: "What this task must accomplish", Priority: intPtr(3), Dependencies: []string{"task_001"}},
		}}
	case PhaseProgress:
		pct := 50.0
		data = &Progress{TaskID: example, Status: "in_progress", ProgressPercent: &pct, CurrentAction: "What you are doing now"}
	case PhaseCompletion:
		data = &Completion{TaskID: example, Status: "success", Summary: "What was accomplished", OutputFiles: []string{"path/to/output"}}
	case PhaseReview:
		data = &Review{TaskID: example, Decision: ReviewRejected,
			Reason:          "Why the work is approved or rejected, in one to three sentences",
			RequiredChanges: []string{"path/to/file: the problem and the expected result"}}
	case PhaseAggregation:
		data = &Aggregation{Status: "success", Summary: "How the results were merged", OutputFiles: []string{"path/to/output"}}
	case PhaseVerification:
		data = &Verification{Status: "fail", Summary: "What was checked",
			Criteria: []Criterion{{Criterion: "An acceptance criterion", Passed: true}},
			Issues:   []VerificationIssue{{Description: "A problem found", Severity: "medium", TaskID: "task_001"}}}
	default:
		return `{"phase": "...", "data": {}}`
	}
	out, err := json.MarshalIndent(struct {
		Phase Phase     `json:"phase"`
		Data  PhaseData `json:"data"`
	}{phase, data}, "", "  ")
	if err != nil {
		return `{"phase": "` + string(phase) + `", "data": {}}`
	}
	return string(out)
}

// fieldGuide lists the required fields and allowed values of a phase.
func fieldGuide(phase Phase) string {
	var req, notes string
	switch phase {
	case PhaseAnalysis:
		req = "summary (text), recommended_splits (whole number, at least 1)"
		notes = "estimated_complexity, if given, is low, medium or high."
	case PhaseTaskList:
		req = "tasks (a list with at least one task; each task needs id, title and description)"
		notes = "priority, if given, is a whole number from 1 to 10 (higher is more important); dependencies list task ids."
	case PhaseProgress:
		req = "task_id (text), status (text)"
		notes = "progress_percent, if given, is a number from 0 to 100."
	case PhaseCompletion:
		req = "task_id (text), status (text)"
		notes = "A failed task says why in error; a task that needs input lists questions; a conflict is described in issues."
	case PhaseReview:
		req = "task_id (text), decision (text), reason (text)"
		notes = "decision is approved or rejected; a rejection lists each change the worker must make in required_changes (a list of texts), an approval leaves it empty."
	case PhaseAggregation:
		req = "status (text)"
		notes = "conflicts, if any, is a list of objects each with a description."
	case PhaseVerification:
		req = "status (text)"
		notes = "criteria is a list of {criterion, passed}; issues is a list of {description, severity, task_id}."
	}
	s := fmt.Sprintf("Required in data: %s.\n", req)
	if st := AllowedStatuses(phase); len(st) > 0 {
		s += fmt.Sprintf("status is one of: %s.\n", strings.Join(st, ", "))
	}
	return s + notes + "\n"
}
