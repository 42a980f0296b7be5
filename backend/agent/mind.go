package agent

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// The delimiters of Baton's protocol block (protocol.DefaultStart and
// DefaultEnd), which the agent writes as a model told by Baton's prompts
// would.
const (
	startDelim = "<<<ORCHESTRATOR_RESPONSE>>>"
	endDelim   = "<<<END_ORCHESTRATOR_RESPONSE>>>"
)

// Mind is the scripted agent's decisions, shared by its two faces: the
// simulator page, which plays the tools itself, and the model face
// (Answer), which answers the real Claude Code CLI with tool calls its real
// tools run. It holds what the agent knows in one turn and decides what to
// say: which files to read first, the analysis, the plan in either
// dialect, the worker's report, the aggregation, the verification and the
// review, and the block that carries them (Respond).
type Mind struct {
	cwd       string // the session's working directory
	sessionID string // the session's id ("" when unknown)
	initial   string // the first user message of the session
	system    string // Baton's part of the session's system prompt ("" when it has none apart)
	prompt    string // the user message this turn answers
	scenario  string
	// delegation is set when the prompt asks for the seed 003 dialect:
	// new_task objects for a plan, an attempt_completion report for a task.
	delegation bool
	// dialect is the dialect the phase is answered in (dialectDelegation,
	// dialectReport, or "" for the orchestrator block).
	dialect string
	// planMode is set when the session runs in plan mode: the agent
	// changes nothing and proposes its changes in its report.
	planMode bool
	// params are the scenario's parameters (times=N for the lies).
	params map[string]string
	// attempt is the number of times the phase was asked in the session,
	// this one included (Respond sets it).
	attempt int

	files     []File
	reads     map[string]string
	untracked map[string]bool // files git does not track (SetUntracked)
}

// Turn is what a face tells the agent of the turn it is to answer.
type Turn struct {
	Cwd       string // the session's working directory
	SessionID string // the session's id, "" when unknown
	Initial   string // the first user message of the session
	// System is Baton's part of the session's system prompt, when the
	// template's system text is not in the first message (the CLI's
	// --append-system-prompt).
	System   string
	Prompt   string // the user message this turn answers
	Scenario string // the session's scenario ("happy" or "" for none)
	// Dialect is the dialect the phase is asked in: as Detect reads the
	// prompt, or, when it says none (a follow-up such as an answer), the
	// dialect the phase was last asked in.
	Dialect string
	// PlanMode is set when the session is in plan mode (the page's
	// permission mode, the CLI's plan-mode reminder).
	PlanMode bool
	// Params are the parameters of the scenario's marker (k=v).
	Params map[string]string
}

// NewMind is the agent's mind for one turn; it knows no file yet.
func NewMind(t Turn) *Mind {
	return &Mind{cwd: t.Cwd, sessionID: t.SessionID, initial: t.Initial, system: t.System, prompt: t.Prompt, scenario: t.Scenario,
		delegation: t.Dialect == dialectDelegation, dialect: t.Dialect, planMode: t.PlanMode, params: t.Params,
		reads: map[string]string{}, untracked: map[string]bool{}}
}

// File is one entry of a folder listing, as the agent sees the project.
type File struct {
	Path string `json:"path"` // slash-separated, relative to the working directory
	Size int64  `json:"size"`
}

// Listings leave out what SkipDir says and stop at MaxListed files.
const MaxListed = 500

// SkipDir reports whether a folder of this name is left out of the
// project's listings (hidden folders, dependencies, build output).
func SkipDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor" || name == "dist" || name == "build"
}

// SetFiles gives the mind the project's listing, as the face's listing
// tool returned it.
func (m *Mind) SetFiles(files []File) { m.files = files }

// Files is the project's listing the mind knows.
func (m *Mind) Files() []File { return m.files }

// Read records the text of a file the face read for the agent.
func (m *Mind) Read(name, text string) { m.reads[name] = text }

// block writes the protocol block, broken the way the scenario asks on the
// first attempt of a phase.
func (m *Mind) block(phase string, data map[string]any, before string, attempt int) string {
	broken := attempt == 1
	if broken && m.scenario == "missing-fields" {
		for _, k := range []string{"recommended_splits", "status", "summary"} {
			delete(data, k)
		}
		if tasks, ok := data["tasks"].([]map[string]any); ok {
			for _, task := range tasks {
				delete(task, "description")
			}
		}
	}
	body, _ := json.MarshalIndent(map[string]any{"phase": phase, "data": data}, "", "  ")
	js := string(body)
	switch {
	case broken && m.scenario == "malformed-json":
		js = strings.TrimSuffix(js, "}") + "  ,\n}"
		js = strings.Replace(js, `"phase"`, `phase`, 1)
	case broken && m.scenario == "no-delimiters":
		return before + "\n\n```json\n" + js + "\n```\n\nThe " + strings.ReplaceAll(phase, "_", " ") + " is complete."
	}
	return before + "\n\n" + startDelim + "\n" + js + "\n" + endDelim
}

// objectBlocks writes delegation-dialect objects, each in its own block,
// broken the way the scenario asks on the first attempt of a phase: a
// required field missing from every object, broken JSON in the first block,
// or every object in a Markdown fence without delimiters.
func (m *Mind) objectBlocks(objs []map[string]any, before string, attempt int) string {
	broken := attempt == 1
	var b strings.Builder
	b.WriteString(before)
	for i, o := range objs {
		if broken && m.scenario == "missing-fields" {
			// attempt_completion needs a summary; a new_task without its
			// taskId is still a new_task (it has an objective and a mode).
			delete(o, "summary")
			if _, ok := o["objective"]; ok {
				delete(o, "taskId")
			}
		}
		body, _ := json.MarshalIndent(o, "", "  ")
		js := string(body)
		switch {
		case broken && m.scenario == "malformed-json" && i == 0:
			js = strings.TrimSuffix(js, "}") + "  ,\n}"
			js = strings.Replace(js, `"taskId"`, `taskId`, 1)
		case broken && m.scenario == "no-delimiters":
			b.WriteString("\n\n```json\n" + js + "\n```")
			continue
		}
		b.WriteString("\n\n" + startDelim + "\n" + js + "\n" + endDelim)
	}
	return b.String()
}

// KeyFiles returns up to n files an agent would read first.
func (m *Mind) KeyFiles(n int) []string {
	var out []string
	prio := []string{"README.md", "README", "readme.md", "go.mod", "package.json", "main.go", "Cargo.toml", "pyproject.toml", "Makefile"}
	for _, p := range prio {
		for _, f := range m.files {
			if f.Path == p && len(out) < n {
				out = append(out, p)
			}
		}
	}
	rest := slices.Clone(m.files)
	sort.SliceStable(rest, func(i, j int) bool { return rest[i].Size > rest[j].Size })
	for _, f := range rest {
		if len(out) >= n {
			break
		}
		if !slices.Contains(out, f.Path) {
			out = append(out, f.Path)
		}
	}
	return out
}

func (m *Mind) languages() string {
	count := map[string]int{}
	for _, f := range m.files {
		ext := strings.TrimPrefix(path.Ext(f.Path), ".")
		if ext == "" {
			ext = "other"
		}
		count[ext]++
	}
	type kv struct {
		k string
		v int
	}
	var kvs []kv
	for k, v := range count {
		kvs = append(kvs, kv{k, v})
	}
	sort.Slice(kvs, func(i, j int) bool { return kvs[i].v > kvs[j].v || kvs[i].v == kvs[j].v && kvs[i].k < kvs[j].k })
	var parts []string
	for _, e := range kvs[:min(4, len(kvs))] {
		parts = append(parts, fmt.Sprintf("%d .%s", e.v, e.k))
	}
	return strings.Join(parts, ", ")
}

func complexity(n int) string {
	switch {
	case n < 10:
		return "low"
	case n < 60:
		return "medium"
	default:
		return "high"
	}
}

func (m *Mind) analysis() (map[string]any, string) {
	comps := m.components()
	var cs []map[string]any
	for _, c := range comps {
		cs = append(cs, map[string]any{"name": componentName(c.name, m.cwd), "files": c.files[:min(5, len(c.files))], "complexity": complexity(len(c.files))})
	}
	splits := max(1, len(comps))
	data := map[string]any{
		"summary":              fmt.Sprintf("%s holds %d files (%s) in %d parts.", path.Base(m.cwd), len(m.files), m.languages(), len(comps)),
		"key_files":            m.KeyFiles(5),
		"estimated_complexity": complexity(len(m.files)),
		"recommended_splits":   splits,
		"components":           cs,
		"notes":                "Simulated analysis built from the folder listing; no AI was involved.",
	}
	if notes := m.scopeNotes(); len(notes) > 0 {
		data["warnings"] = notes
	}
	return data, fmt.Sprintf("I explored %s and found %s.", path.Base(m.cwd), count(len(m.files), "file"))
}

// count is "1 file", "2 files".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func componentName(name, cwd string) string {
	if name == "." {
		return path.Base(cwd) + " (top level)"
	}
	return name
}

// requestPattern finds the user's request in Baton's prompts ("## The
// request" in the analysis prompt, "The user's request…:" in others).
var requestPattern = regexp.MustCompile(`(?s)(?:## The request|The user's request[^\n]*:)\n(.*?)(?:\n\n|$)`)

// userRequest is the user's request quoted in a prompt, or the whole prompt
// when it quotes none (a message typed into the session).
func userRequest(prompt string) string {
	if m := requestPattern.FindStringSubmatch(prompt); m != nil {
		return m[1]
	}
	return prompt
}

func (m *Mind) verb() string {
	// The verb follows what the user asked, not the words of the template.
	req := strings.ToLower(userRequest(m.initial))
	switch {
	case strings.Contains(req, "test"), strings.Contains(req, "cover"):
		return "Add tests for"
	case strings.Contains(req, "review"):
		return "Review"
	case strings.Contains(req, "doc"):
		return "Document"
	default:
		return "Work on"
	}
}

func (m *Mind) taskList() (map[string]any, string) {
	plan := m.plan()
	var tasks []map[string]any
	var ids, first []string
	for i, p := range plan {
		id := fmt.Sprintf("task_%03d", i+1)
		deps := []string{}
		for _, a := range p.after {
			deps = append(deps, ids[a])
		}
		if p.final {
			deps = slices.Clone(ids)
		} else if len(deps) == 0 {
			first = append(first, id)
		}
		ids = append(ids, id)
		t := map[string]any{
			"id": id, "title": p.title, "description": p.description,
			"scope": nonNilStrings(p.scope), "priority": max(1, 10-i), "dependencies": deps,
			"estimated_tokens": 2000 + 500*len(m.inScope(p.scope)),
			"complexity":       complexity(len(m.inScope(p.scope))),
		}
		if p.final {
			t["priority"] = 1
		}
		if len(p.outputs) > 0 {
			t["expected_outputs"] = p.outputs
		}
		if len(p.criteria) > 0 {
			t["acceptance_criteria"] = p.criteria
		}
		if m.asksFor("architecture") {
			t["architecture"] = m.architecture(p)
		}
		tasks = append(tasks, t)
	}
	groups := [][]string{first}
	var later []string
	for _, id := range ids {
		if !slices.Contains(first, id) {
			later = append(later, id)
		}
	}
	if len(later) > 0 {
		groups = append(groups, later)
	}
	data := map[string]any{"total_tasks": len(tasks), "tasks": tasks, "parallelizable_groups": groups}
	return data, fmt.Sprintf("Here is the task list: %d tasks.", len(tasks))
}

// asksFor reports whether the planning prompt asks for a task field.
func (m *Mind) asksFor(field string) bool {
	return strings.Contains(m.system+"\n"+m.prompt, `"`+field+`"`)
}

// architecture is what a planned task's worker is told to follow, for a
// planner asked for it (seed 001's team lead): the project's make-up and
// where the task's work goes.
func (m *Mind) architecture(p plannedTask) string {
	where := p.outputs
	if len(where) == 0 {
		where = p.scope
	}
	s := fmt.Sprintf("Keep to the layout of %s (%s files)", m.project(), m.languages())
	if len(where) > 0 {
		s += ": the work goes in " + strings.Join(where, ", ")
	}
	return s + ", in the style and conventions of the files around it; change nothing outside the task's scope."
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// newTasks plans the same split as taskList in the delegation dialect of
// seed 003: one new_task object per component, delegated to the specialist
// the request calls for, and an integration task after them.
func (m *Mind) newTasks() ([]map[string]any, string) {
	plan := m.plan()
	prefix, mode := m.specialist()
	var objs []map[string]any
	var ids []string
	for i, p := range plan {
		id := fmt.Sprintf("%s-%03d", prefix, i+1)
		taskMode := mode
		deps := []string{}
		for _, a := range p.after {
			deps = append(deps, ids[a])
		}
		if p.final {
			id, taskMode, deps = "INT-001", "integration", slices.Clone(ids)
		}
		ids = append(ids, id)
		inputs := []map[string]any{}
		for _, s := range p.scope {
			inputs = append(inputs, map[string]any{"type": "code", "path": s, "description": p.title + ": input"})
		}
		outputs := []map[string]any{}
		for _, o := range p.outputs {
			outputs = append(outputs, map[string]any{"type": "document", "path": o, "description": "Written by " + id})
		}
		priority := "medium"
		switch {
		case i == 0:
			priority = "high"
		case p.final:
			priority = "low"
		}
		criteria := p.criteria
		if len(criteria) == 0 {
			criteria = []string{"Every input of " + id + " was read", "The report says what was found"}
		}
		objs = append(objs, map[string]any{
			"taskId": id, "delegatedToMode": taskMode,
			"objective": p.description,
			"context": fmt.Sprintf("%s holds %d files (%s). Simulated delegation built from the folder listing.",
				path.Base(m.cwd), len(m.files), m.languages()),
			"inputs":              inputs,
			"expectedOutputs":     outputs,
			"constraintsAndRules": []string{"Stay inside the inputs of this task", "Do not change files other agents work on"},
			"acceptanceCriteria":  criteria,
			"priority":            priority,
			"dependencies":        deps,
			"deadlineHint":        "15 minutes",
		})
	}
	return objs, fmt.Sprintf("I delegate %d tasks, one new_task each.", len(objs))
}

// specialist is the task id prefix and the SPARC mode for the request.
func (m *Mind) specialist() (string, string) {
	switch m.work() {
	case workTests:
		return "TEST", "tdd"
	case workReview:
		return "REVIEW", "security-review"
	case workBugs:
		return "DEBUG", "debug"
	case workDocs:
		return "DOCS", "docs-writer"
	default:
		return "CODE", "code"
	}
}

var taskIDPattern = regexp.MustCompile(`"(?:task_id|taskId)"\s*:\s*"([A-Za-z0-9_-]+)"|\b(task_[A-Za-z0-9-]+)\b`)

var ownTask = regexp.MustCompile(`## Your task: ([A-Za-z0-9_-]+)`)

// TaskID is the task a prompt is about. A worker session's task is named in
// its first prompt (its "## Your task: ID", or the first id there when the
// session's id names a worker): a later message (a re-prompt quoting an
// example or another task's id, an answer) may name other ids.
func (m *Mind) TaskID() string {
	if t := ownTask.FindStringSubmatch(m.initial); t != nil {
		return t[1]
	}
	prompts := []string{m.prompt}
	if strings.Contains(m.sessionID, "_worker_") {
		prompts = []string{m.initial, m.prompt}
	}
	for _, p := range prompts {
		if m := taskIDPattern.FindStringSubmatch(p); m != nil {
			if m[1] != "" {
				return m[1]
			}
			return m[2]
		}
	}
	if _, after, ok := strings.Cut(m.sessionID, "_worker_"); ok {
		return after
	}
	return "task_001"
}

// Kinds of worker reports.
const (
	reportSuccess  = "success"
	reportQuestion = "question"
	reportFailed   = "failed"
	reportConflict = "conflict"
)

// Report is the outcome of a worker turn, written in the turn's dialect
// by the phase dispatch.
type Report struct {
	id, kind, before string
	summary, output  string
	metrics          map[string]any
	question         string // reportQuestion
	err              string // reportFailed
	// reportConflict: the file another agent changed, and what to do.
	conflict, resolution string
	// files the worker wrote or changed (or claims it did), and those of
	// them that were there before
	files, modified []string
	warnings        []string // reportFailed
	checked         string   // the check the worker ran, which passed
}

// completion is the report as {"phase": "completion"} data.
func (r Report) completion() map[string]any {
	d := map[string]any{"task_id": r.id}
	switch r.kind {
	case reportQuestion:
		d["status"] = "needs_input"
		d["questions"] = []string{r.question}
	case reportFailed:
		d["status"] = "failed"
		d["error"] = r.err
		d["warnings"] = append([]string{}, r.warnings...)
	case reportConflict:
		d["status"] = "conflict"
		d["summary"] = r.summary
		d["issues"] = []map[string]any{{"type": "conflict", "description": r.conflict, "suggested_resolution": r.resolution}}
	default:
		d["status"] = "success"
		d["summary"] = r.summary
		d["output"] = r.output
		d["output_files"] = append([]string{}, r.files...)
		d["metrics"] = r.metrics
	}
	return d
}

// completionReport is the report as a seed 001 completion_report message,
// with the build result the simulated agent can honestly give: the check
// it ran and passed, else no build (not_applicable), or the failed build.
func (r Report) completionReport(platform string, now time.Time) map[string]any {
	created, modified := []string{}, []string{}
	for _, f := range r.files {
		if slices.Contains(r.modified, f) {
			modified = append(modified, f)
		} else {
			created = append(created, f)
		}
	}
	build := map[string]any{"status": "not_applicable", "command": "", "errors": 0, "output": "simulated: the simulated agent ran no build"}
	if r.checked != "" {
		build = map[string]any{"status": "success", "command": r.checked, "errors": 0, "output": ""}
	}
	d := map[string]any{"type": "completion_report", "taskId": r.id, "platform": platform, "status": "awaiting_review",
		"summary": r.summary, "filesCreated": created, "filesModified": modified, "buildResult": build,
		"timestamp": now.UTC().Format("2006-01-02T15:04:05.000Z")}
	switch r.kind {
	case reportFailed:
		d["buildResult"] = map[string]any{"status": "failed", "command": "go build ./...", "errors": 1, "output": r.err}
	case reportQuestion:
		d["summary"] = r.summary + " Open question: " + r.question
	case reportConflict:
		d["summary"] = r.summary + " Conflict: " + r.conflict + " (suggested: " + r.resolution + ")"
	}
	return d
}

var quotedPlatform = regexp.MustCompile(`"platform"\s*:\s*"(web|android|ios|custom)"`)

// platform is the seed 001 platform the prompt names (custom when none).
func (m *Mind) platform() string {
	if p := quotedPlatform.FindStringSubmatch(m.prompt); p != nil {
		return p[1]
	}
	if _, after, ok := strings.Cut(m.prompt, "Platform: "); ok {
		for _, p := range []string{"web", "android", "ios", "custom"} {
			if strings.HasPrefix(after, p) {
				return p
			}
		}
	}
	return "custom"
}

// attemptCompletion is the report as a seed 003 attempt_completion object.
func (r Report) attemptCompletion() map[string]any {
	artifacts := []any{}
	for _, f := range r.files {
		artifacts = append(artifacts, map[string]any{"type": "code", "path": f, "description": "Written by " + r.id})
	}
	d := map[string]any{"taskId": r.id, "summary": r.summary, "outputArtifacts": artifacts, "issues_encountered": []any{}}
	switch r.kind {
	case reportQuestion:
		d["result"] = "clarification_needed"
		d["issues_encountered"] = []map[string]any{{"type": "clarification_needed", "description": r.question,
			"suggestedResolution": "Markdown, like the README"}}
	case reportFailed:
		d["result"] = "failure"
		d["issues_encountered"] = []map[string]any{{"type": "technical_issue", "description": r.err,
			"suggestedResolution": "Fix the build, then delegate " + r.id + " again"}}
	case reportConflict:
		d["result"] = "conflict_detected"
		d["issues_encountered"] = []map[string]any{{"type": "conflict", "description": r.conflict, "suggestedResolution": r.resolution}}
	default:
		d["result"] = "success"
		if r.output != "" {
			d["summary"] = r.summary + "\n" + r.output
		}
	}
	return d
}

// Progress is a worker's progress text while it works on file, the i-th
// of n: a progress block in the orchestrator dialect, which has them.
func (m *Mind) Progress(file string, i, n int) string {
	if m.delegation {
		return "Working on " + file + "."
	}
	prog := map[string]any{"phase": "progress", "data": map[string]any{
		"task_id": m.TaskID(), "status": "in_progress", "progress_percent": 100 * i / max(1, n),
		"current_action": "Reading " + file, "files_processed": i, "files_total": n,
	}}
	b, _ := json.Marshal(prog)
	return "Working on " + file + ".\n" + startDelim + "\n" + string(b) + "\n" + endDelim
}

var (
	taskHeading  = regexp.MustCompile(`(?m)^### ([A-Za-z0-9_-]+) - `)
	taskStatus   = regexp.MustCompile(`(?m)^### ([A-Za-z0-9_-]+) - .*\(([a-z_]+)\)$`)
	taskWord     = regexp.MustCompile(`\btask_[A-Za-z0-9-]+\b`)
	conflictLine = regexp.MustCompile(`(?m)^Conflict to resolve: (.+)$`)
)

// aggregation merges the tasks the prompt names (the "### ID - title
// (status)" headings of the worker reports, else task_ words): only those
// that completed, naming the others as not merged; and it lists every
// "Conflict to resolve:" line of the prompt as a conflict it leaves to the
// user.
func (m *Mind) aggregation() (map[string]any, string) {
	ids := map[string]bool{}
	var notMerged []string
	for _, h := range taskStatus.FindAllStringSubmatch(m.prompt, -1) {
		if h[2] != "completed" {
			notMerged = append(notMerged, h[1]+" ("+h[2]+")")
			ids[h[1]] = false
		}
	}
	for _, m := range taskHeading.FindAllStringSubmatch(m.prompt, -1) {
		if _, out := ids[m[1]]; !out {
			ids[m[1]] = true
		}
	}
	if len(ids) == 0 {
		for _, m := range taskWord.FindAllString(m.prompt, -1) {
			ids[m] = true
		}
	}
	var list []string
	for id, merged := range ids {
		if merged {
			list = append(list, id)
		}
	}
	sort.Strings(list)
	sort.Strings(notMerged)
	conflicts := []any{}
	headings := taskHeading.FindAllStringSubmatchIndex(m.prompt, -1)
	for _, c0 := range conflictLine.FindAllStringSubmatchIndex(m.prompt, -1) {
		c := map[string]any{"type": "overlap", "description": m.prompt[c0[2]:c0[3]],
			"resolution": "left to the user: the simulator changes no files"}
		for _, h := range headings {
			if h[0] < c0[0] {
				c["tasks"] = []string{m.prompt[h[2]:h[3]]}
			}
		}
		conflicts = append(conflicts, c)
	}
	status, summary := "success", fmt.Sprintf("Merged the outputs of %s.", count(len(list), "task"))
	if len(notMerged) > 0 {
		summary += " Not merged: " + strings.Join(notMerged, ", ") + "."
	}
	if len(conflicts) > 0 {
		status = "partial"
		summary += fmt.Sprintf(" %s left to resolve.", map[bool]string{true: "1 conflict is", false: fmt.Sprintf("%d conflicts are", len(conflicts))}[len(conflicts) == 1])
	}
	return map[string]any{
		"status":        status,
		"summary":       summary,
		"conflicts":     conflicts,
		"merged_output": "Merged: " + strings.Join(list, ", "),
		"output_files":  []string{},
	}, "I merged the results."
}

// Verification is the verification answer of the attempt-th asking and
// the text before its block: qa-fails fails the first with one issue per
// task the prompt names, else it passes (verification-lies adds that the
// build and the tests pass, whatever they do).
func (m *Mind) Verification(attempt int) (map[string]any, string) {
	if m.scenario == "qa-fails" && attempt == 1 {
		var issues []any
		seen := map[string]bool{}
		for _, m := range taskWord.FindAllString(m.prompt, -1) {
			if !seen[m] && len(issues) < 2 {
				seen[m] = true
				issues = append(issues, map[string]any{"description": "simulated QA failure: " + m + " lacks an example",
					"severity": "high", "task_id": m, "suggested_fix": "add an example to the output of " + m})
			}
		}
		if len(issues) == 0 {
			issues = append(issues, map[string]any{"description": "simulated QA failure: the result lacks an example",
				"severity": "high", "suggested_fix": "add an example"})
		}
		return map[string]any{"status": "fail", "summary": fmt.Sprintf("%d acceptance criteria are not met.", len(issues)),
			"issues": issues}, "Verification found problems."
	}
	summary := fmt.Sprintf("Checked %s; no issues found.", count(len(m.files), "file"))
	if m.lies("verification-lies") {
		// Whatever the checks say.
		summary += " The build and the tests pass."
	}
	return map[string]any{"status": "pass", "summary": summary, "issues": []any{}}, "Verification finished."
}

// review decides on a task's completion report: rejected-once rejects the
// first review of each task, everything else is approved. n counts the
// reviews of the task so far, this one included; taskID names the task.
func (m *Mind) review(id string, n int) (map[string]any, string) {
	if m.scenario == "rejected-once" && n == 1 {
		return map[string]any{"task_id": id, "decision": "rejected",
			"reason":           "simulated review: the output of " + id + " lacks an example",
			"required_changes": []string{"add an example to the output of " + id}}, "I reviewed " + id + "."
	}
	return map[string]any{"task_id": id, "decision": "approved", "reason": "simulated review: " + id + " does what it should",
		"required_changes": []string{}}, "I reviewed " + id + "."
}

// Dialects the agent answers in.
const (
	dialectOrchestrator = "orchestrator" // {"phase": …, "data": …} blocks (seed 000)
	dialectDelegation   = "delegation"   // new_task and attempt_completion objects (seed 003)
)

var (
	quotedPhase     = regexp.MustCompile(`"phase"\s*:\s*"([a-z_]+)"`)
	quotedResult    = regexp.MustCompile(`"result"\s*:\s*"`)
	quotedObjective = regexp.MustCompile(`"objective"\s*:\s*"`)
	quotedReport    = regexp.MustCompile(`"type"\s*:\s*"completion_report"`)
)

// Detect reads which phase the prompt asks for, and in which dialect:
//
//  1. quoted block examples such as "phase": "task_list": that phase, in
//     the orchestrator dialect;
//  2. a quoted attempt_completion example ("result": "…" with the word
//     attempt_completion): a completion in the delegation dialect;
//  3. a quoted new_task example ("objective": "…" with the word new_task):
//     a task list in the delegation dialect;
//  4. a quoted completion_report ("type": "completion_report", seed 001):
//     a completion in the report dialect;
//  5. keywords: the phase, with the dialect left "" (not said).
//
// A worker prompt of the delegation dialect also quotes its own new_task,
// so attempt_completion is looked for first.
func Detect(prompt string) (phase, dialect string) {
	quoted := map[string]bool{}
	for _, m := range quotedPhase.FindAllStringSubmatch(prompt, -1) {
		quoted[m[1]] = true
	}
	order := []string{"aggregation", "verification", "review", "task_list", "completion", "progress", "analysis"}
	for _, p := range order {
		if quoted[p] {
			if p == "progress" {
				return "completion", dialectOrchestrator
			}
			return p, dialectOrchestrator
		}
	}
	switch {
	case strings.Contains(prompt, "attempt_completion") && quotedResult.MatchString(prompt):
		return "completion", dialectDelegation
	case strings.Contains(prompt, "new_task") && quotedObjective.MatchString(prompt):
		return "task_list", dialectDelegation
	case quotedReport.MatchString(prompt):
		return "completion", dialectReport
	}
	l := strings.ToLower(prompt)
	switch {
	case strings.Contains(l, "aggregat"):
		return "aggregation", ""
	case strings.Contains(l, "verif"):
		return "verification", ""
	case strings.Contains(l, "task_list") || strings.Contains(l, "task list"):
		return "task_list", ""
	case strings.Contains(l, "task_id") || strings.Contains(l, "completion"):
		return "completion", ""
	case strings.Contains(l, "analy"):
		return "analysis", ""
	}
	return "", ""
}

// firstLine is the first line of s, cut to n characters.
func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
