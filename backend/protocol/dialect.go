package protocol

import (
	"fmt"
	"sort"
	"strings"

	"github.com/baton-app/baton/backend/jsonkind"
)

// normalize turns one decoded JSON object into responses: an orchestrator
// block {"phase","data"}, a seed 003 attempt_completion or new_task object
// (bare or wrapped in a key of that name), a seed 001 completion_report, or
// a seed 001 message file {"messages":[…]}.
func normalize(m map[string]any, base Response) []Response {
	if _, ok := m["phase"]; ok {
		return []Response{orchestrator(m, base)}
	}
	if d, inner, ok := secondDialect(m); ok {
		return []Response{fromDialect(d, inner, base, "")}
	}
	if msgs, ok := m["messages"].([]any); ok {
		var out []Response
		for i, e := range msgs {
			mm, ok := e.(map[string]any)
			if !ok {
				continue
			}
			if d, inner, ok := secondDialect(mm); ok {
				out = append(out, fromDialect(d, inner, base, fmt.Sprintf("messages[%d]", i)))
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	base.Status = StatusInvalid
	base.Errors = []Issue{{Path: "phase", Code: CodeMissing, Message: `required field "phase" is missing, and the object is not a new_task, attempt_completion or completion_report either`}}
	return []Response{base}
}

// secondDialect recognizes the objects of seeds 003 and 001.
func secondDialect(m map[string]any) (Dialect, map[string]any, bool) {
	for _, d := range []Dialect{DialectAttemptCompletion, DialectNewTask, DialectCompletionReport} {
		if inner, ok := m[string(d)].(map[string]any); ok && len(m) == 1 {
			return d, inner, true
		}
	}
	if t, _ := m["type"].(string); t == string(DialectCompletionReport) {
		return DialectCompletionReport, m, true
	}
	_, hasID := m["taskId"]
	if !hasID {
		_, hasID = m["task_id"]
	}
	if _, ok := m["result"]; ok && hasID {
		return DialectAttemptCompletion, m, true
	}
	if _, ok := m["objective"]; ok {
		if _, ok := m["delegatedToMode"]; ok || hasID {
			return DialectNewTask, m, true
		}
	}
	return "", nil, false
}

// orchestrator reads a {"phase": …, "data": …} object.
func orchestrator(m map[string]any, base Response) Response {
	var c checker
	top := c.object(m, "")
	base.Dialect = DialectOrchestrator
	phaseVal, _ := top.get("phase", true)
	phaseStr, isStr := phaseVal.(string)
	if phaseVal != nil && !isStr {
		c.errorf("phase", CodeType, "must be a string, not %s", jsonkind.Of(phaseVal))
	}
	// A second-dialect name used as the phase: read data in that dialect.
	if d := Dialect(canon(phaseStr)); d == DialectAttemptCompletion || d == DialectNewTask || d == DialectCompletionReport {
		if inner, ok := m["data"].(map[string]any); ok {
			r := fromDialect(d, inner, base, "data")
			r.Warnings = append([]Issue{{Path: "phase", Code: CodeCoerced, Message: fmt.Sprintf("%q is not a phase; data is read as a %s object", phaseStr, d)}}, r.Warnings...)
			return r
		}
	}
	var phase Phase
	if isStr {
		phase = Phase(phaseStr)
		if !phase.Known() {
			if k := Phase(canon(phaseStr)); k.Known() {
				c.warnf("phase", CodeCoerced, "%q read as %q", phaseStr, k)
				phase = k
			} else {
				c.errorf("phase", CodeEnum, "unknown phase %q (expected one of %s)", phaseStr, phaseList())
			}
		}
	}
	base.Phase = phase
	data, hasData := m["data"]
	top.used["data"] = true
	if !hasData || data == nil {
		// Fields written beside "phase" instead of inside "data".
		rest := map[string]any{}
		for k, v := range m {
			if k != "phase" && k != "data" {
				rest[k] = v
				top.used[k] = true
			}
		}
		if len(rest) == 0 || !phase.Known() {
			c.errorf("data", CodeMissing, `required field "data" is missing`)
		} else {
			c.warnf("data", CodeCoerced, `there is no "data" object; the fields beside "phase" are read as data`)
			data = rest
		}
	}
	top.done()
	if phase.Known() && data != nil {
		base.Data = c.phaseData(phase, data, "data")
	}
	return finishResponse(base, &c)
}

func finishResponse(r Response, c *checker) Response {
	r.Errors = append(r.Errors, c.errs...)
	r.Warnings = append(r.Warnings, c.warns...)
	if len(r.Errors) > 0 || r.Data == nil {
		r.Status = StatusInvalid
	} else {
		r.Status = StatusValid
	}
	return r
}

// fromDialect validates a second-dialect object in its own field names
// (paths like "taskId") and normalizes it to a phase.
func fromDialect(d Dialect, m map[string]any, base Response, path string) Response {
	var c checker
	f := c.object(m, path)
	base.Dialect = d
	switch d {
	case DialectAttemptCompletion:
		base.Phase = PhaseCompletion
		base.Data = c.attemptCompletion(f)
	case DialectNewTask:
		base.Phase = PhaseTaskList
		base.Data = &TaskList{Tasks: []Task{c.newTask(f)}}
	case DialectCompletionReport:
		base.Phase = PhaseCompletion
		base.Data = c.completionReport(f)
	}
	f.done()
	return finishResponse(base, &c)
}

// taskID reads taskId, or task_id as agents often write it.
func (f *fields) taskID() string {
	if f.has("taskId") || !f.has("task_id") {
		f.used["task_id"] = true
		return f.str("taskId", true)
	}
	f.c.warnf(f.p("task_id"), CodeCoerced, `"task_id" read as "taskId"`)
	return f.str("task_id", true)
}

// attemptCompletion maps the seed 003 result onto a completion status:
// success → success, failure → failed, clarification_needed → needs_input
// (with the questions), conflict_detected → conflict (with the issues).
func (c *checker) attemptCompletion(f *fields) *Completion {
	d := &Completion{TaskID: f.taskID()}
	result := f.enum("result", true, "success", "failure", "clarification_needed", "conflict_detected")
	d.Summary = f.str("summary", true)
	f.objects("outputArtifacts", false, func(m map[string]any, path string) {
		g := c.object(m, path)
		a := c.artifact(g)
		g.done()
		d.Artifacts = append(d.Artifacts, a)
		if a.Path != "" {
			d.OutputFiles = append(d.OutputFiles, a.Path)
		}
	})
	f.objects("issues_encountered", false, func(m map[string]any, path string) {
		g := c.object(m, path)
		d.Issues = append(d.Issues, TaskIssue{
			Type:                g.enum("type", false, "clarification_needed", "technical_issue", "conflict", "other"),
			Description:         g.str("description", true),
			SuggestedResolution: g.str("suggestedResolution", false),
		})
		g.done()
	})
	switch result {
	case "success":
		d.Status = "success"
	case "failure":
		d.Status = "failed"
		d.Error = d.Summary
		if len(d.Issues) > 0 && d.Issues[0].Description != "" {
			d.Error = d.Issues[0].Description
		}
	case "clarification_needed":
		d.Status = "needs_input"
		for _, is := range d.Issues {
			if is.Type == "clarification_needed" || is.Type == "" {
				d.Questions = append(d.Questions, is.Description)
			}
		}
		if len(d.Questions) == 0 {
			for _, is := range d.Issues {
				d.Questions = append(d.Questions, is.Description)
			}
		}
		if len(d.Questions) == 0 && d.Summary != "" {
			d.Questions = []string{d.Summary}
		}
	case "conflict_detected":
		d.Status = "conflict"
		if len(d.Issues) == 0 {
			c.warnf(f.p("issues_encountered"), CodeMissing, "a conflict should be described in issues_encountered")
		}
	}
	return d
}

// newTask maps a seed 003 delegation onto one task. Priority high, medium
// and low become 8, 5 and 2 on the 1–10 scale of seed 000. dependencies
// (the taskIds that must be completed first, as the SPARC template asks)
// are kept as the task's dependencies.
func (c *checker) newTask(f *fields) Task {
	t := Task{ID: f.taskID()}
	obj := f.str("objective", true)
	t.Title = titleOf(obj)
	t.Description = obj
	t.ParentID = f.str("parentTaskId", false)
	t.Mode = f.str("delegatedToMode", false)
	t.Context = f.str("context", false)
	t.Constraints = f.strs("constraintsAndRules", false)
	t.AcceptanceCriteria = f.strs("acceptanceCriteria", false)
	t.Deadline = f.str("deadlineHint", false)
	t.Dependencies = f.strs("dependencies", false)
	f.objects("inputs", false, func(m map[string]any, path string) {
		g := c.object(m, path)
		a := c.artifact(g)
		g.done()
		if a.Path != "" {
			t.Scope = append(t.Scope, a.Path)
			t.Inputs = append(t.Inputs, a)
		}
	})
	f.objects("expectedOutputs", false, func(m map[string]any, path string) {
		g := c.object(m, path)
		a := c.artifact(g)
		g.done()
		if a.Path != "" {
			t.ExpectedOutputs = append(t.ExpectedOutputs, a.Path)
			t.OutputArtifacts = append(t.OutputArtifacts, a)
		}
	})
	switch f.enum("priority", false, "high", "medium", "low") {
	case "high":
		t.Priority = intPtr(8)
	case "medium":
		t.Priority = intPtr(5)
	case "low":
		t.Priority = intPtr(2)
	}
	return t
}

func intPtr(n int) *int { return &n }

// titleOf shortens an objective to a title of at most 80 characters.
func titleOf(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	r := []rune(s)
	if len(r) <= 80 {
		return s
	}
	cut := 79
	for cut > 40 && r[cut] != ' ' {
		cut--
	}
	return strings.TrimSpace(string(r[:cut])) + "…"
}

// completionReport reads a seed 001 report; its status must be
// awaiting_review, and it stays so: the review gate decides.
func (c *checker) completionReport(f *fields) *Completion {
	f.used["type"] = true
	d := &Completion{TaskID: f.taskID()}
	d.Platform = f.enum("platform", true, "web", "android", "ios", "custom")
	d.Status = f.enum("status", true, "awaiting_review")
	d.Summary = f.str("summary", true)
	d.FilesCreated = f.strs("filesCreated", true)
	d.FilesModified = f.strs("filesModified", true)
	if v, ok := f.get("buildResult", true); ok {
		d.Build = c.build(v, f.p("buildResult"))
	}
	d.Timestamp = f.str("timestamp", true)
	files := append(append([]string(nil), d.FilesCreated...), d.FilesModified...)
	sort.Strings(files)
	d.OutputFiles = compactStrings(files)
	if d.Build != nil && d.Build.Status == "failed" && d.Build.Output == "" {
		c.warnf(f.p("buildResult.output"), CodeMissing, "a failed build should include its output")
	}
	return d
}

func compactStrings(s []string) []string {
	var out []string
	for i, v := range s {
		if i > 0 && v == s[i-1] {
			continue
		}
		out = append(out, v)
	}
	return out
}
