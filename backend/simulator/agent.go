package simulator

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

const (
	startDelim = "<<<ORCHESTRATOR_RESPONSE>>>"
	endDelim   = "<<<END_ORCHESTRATOR_RESPONSE>>>"
	stepDelay  = 300 * time.Millisecond
)

// turn is one scripted answer to one user message.
type turn struct {
	s        *Simulator
	ss       *session
	ctx      context.Context
	scenario string
	prompt   string
	started  time.Time
	// delegation is set when the prompt asks for the seed 003 dialect:
	// new_task objects for a plan, an attempt_completion report for a task.
	delegation bool

	assistantCount int
	inTokens       int
	outTokens      int
	files          []fileInfo
	reads          map[string]string
}

// run plays the turn and always ends it with a result entry.
func (t *turn) run() {
	t.reads = map[string]string{}
	phase, dialect := detect(t.prompt)
	t.s.mu.Lock()
	t.ss.phaseCount[phase]++
	attempt := t.ss.phaseCount[phase]
	if dialect == "" {
		// A follow-up such as the answer to a question: the format the
		// phase was last asked in.
		dialect = t.ss.dialects[phase]
	} else {
		t.ss.dialects[phase] = dialect
	}
	t.s.mu.Unlock()
	t.delegation = dialect == dialectDelegation

	final, failed, err := t.play(phase, attempt)
	if err != nil {
		// interrupted (or the simulator is stopping)
		t.emit(map[string]any{"type": "user", "uuid": newUUID(), "timestamp": now(),
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "[Request interrupted by user]"}}}})
		t.result("error_during_execution", true, "")
		return
	}
	if failed {
		t.result("error_during_execution", true, final)
		return
	}
	t.result("success", false, final)
}

// play runs the phase's script and returns the final text.
func (t *turn) play(phase string, attempt int) (string, bool, error) {
	if err := t.explore(); err != nil {
		return "", false, err
	}
	if t.scenario == "page-reload" {
		// mid-turn, once per session: the entries so far and those to come
		// live on the Go side and survive
		t.s.mu.Lock()
		first := !t.ss.reloaded
		t.ss.reloaded = true
		t.s.mu.Unlock()
		if first {
			t.s.Reload()
			if err := t.sleep(2); err != nil {
				return "", false, err
			}
		}
	}
	if t.scenario == "flood" {
		if err := t.flood(); err != nil {
			return "", false, err
		}
	}
	switch t.scenario {
	case "needs-permission":
		if err := t.askWrite(); err != nil {
			return "", false, err
		}
	case "asks-question":
		if err := t.askQuestion(); err != nil {
			return "", false, err
		}
	case "worker-hangs":
		t.toolUse("Bash", map[string]any{"command": "go test ./...", "description": "Run the tests"})
		<-t.ctx.Done()
		return "", false, t.ctx.Err()
	}

	var data map[string]any
	var objs []map[string]any // delegation dialect: one object per block
	var before string
	failed := false
	switch phase {
	case "analysis":
		data, before = t.analysis()
	case "task_list":
		if t.delegation {
			objs, before = t.newTasks()
		} else {
			data, before = t.taskList()
		}
	case "completion":
		rep, err := t.worker()
		if err != nil {
			return "", false, err
		}
		failed = rep.kind == reportFailed
		before = rep.before
		if t.delegation {
			objs = []map[string]any{rep.attemptCompletion()}
		} else {
			data = rep.completion()
		}
	case "aggregation":
		data, before = t.aggregation()
	case "verification":
		data, before = t.verification(attempt)
	case "review":
		data, before = t.review()
	default:
		text := fmt.Sprintf("I looked at %d files in %s. Tell me which phase you need (analysis, task_list, completion, aggregation or verification) and I will answer with a %s block.", len(t.files), path.Base(t.ss.cwd), startDelim)
		t.text(text)
		return text, false, nil
	}
	if err := t.sleep(2); err != nil {
		return "", false, err
	}
	var text string
	if objs != nil {
		text = t.objectBlocks(objs, before, attempt)
	} else {
		text = t.block(phase, data, before, attempt)
	}
	t.text(text)
	return text, failed, nil
}

// block writes the protocol block, broken the way the scenario asks on the
// first attempt of a phase.
func (t *turn) block(phase string, data map[string]any, before string, attempt int) string {
	broken := attempt == 1
	if broken && t.scenario == "missing-fields" {
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
	case broken && t.scenario == "malformed-json":
		js = strings.TrimSuffix(js, "}") + "  ,\n}"
		js = strings.Replace(js, `"phase"`, `phase`, 1)
	case broken && t.scenario == "no-delimiters":
		return before + "\n\n```json\n" + js + "\n```\n\nThe " + strings.ReplaceAll(phase, "_", " ") + " is complete."
	}
	return before + "\n\n" + startDelim + "\n" + js + "\n" + endDelim
}

// objectBlocks writes delegation-dialect objects, each in its own block,
// broken the way the scenario asks on the first attempt of a phase: a
// required field missing from every object, broken JSON in the first block,
// or every object in a Markdown fence without delimiters.
func (t *turn) objectBlocks(objs []map[string]any, before string, attempt int) string {
	broken := attempt == 1
	var b strings.Builder
	b.WriteString(before)
	for i, o := range objs {
		if broken && t.scenario == "missing-fields" {
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
		case broken && t.scenario == "malformed-json" && i == 0:
			js = strings.TrimSuffix(js, "}") + "  ,\n}"
			js = strings.Replace(js, `"taskId"`, `taskId`, 1)
		case broken && t.scenario == "no-delimiters":
			b.WriteString("\n\n```json\n" + js + "\n```")
			continue
		}
		b.WriteString("\n\n" + startDelim + "\n" + js + "\n" + endDelim)
	}
	return b.String()
}

// explore lists the folder and reads a key file, as an agent starts.
func (t *turn) explore() error {
	fc := folderClient{base: t.s.base, session: t.ss.id, client: t.s.fs}
	id := t.toolUse("Glob", map[string]any{"pattern": "**/*"})
	files, err := fc.list(t.ctx)
	if err != nil {
		t.toolResult(id, "Error: "+err.Error(), true)
	} else {
		t.files = files
		var names []string
		for _, f := range files[:min(len(files), 100)] {
			names = append(names, f.Path)
		}
		t.toolResult(id, strings.Join(names, "\n"), false)
	}
	if err := t.sleep(1); err != nil {
		return err
	}
	if key := t.keyFiles(1); len(key) > 0 {
		return t.read(fc, key[0])
	}
	return nil
}

func (t *turn) read(fc folderClient, name string) error {
	id := t.toolUse("Read", map[string]any{"file_path": path.Join(t.ss.cwd, name)})
	text, err := fc.read(t.ctx, name)
	if err != nil {
		t.toolResult(id, "Error: "+err.Error(), true)
	} else {
		t.reads[name] = text
		t.toolResult(id, numbered(text, 60), false)
	}
	return t.sleep(1)
}

// keyFiles returns up to n files an agent would read first.
func (t *turn) keyFiles(n int) []string {
	var out []string
	prio := []string{"README.md", "README", "readme.md", "go.mod", "package.json", "main.go", "Cargo.toml", "pyproject.toml", "Makefile"}
	for _, p := range prio {
		for _, f := range t.files {
			if f.Path == p && len(out) < n {
				out = append(out, p)
			}
		}
	}
	rest := slices.Clone(t.files)
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

type component struct {
	name  string
	files []string
}

// components groups the files by top-level directory (loose top-level
// files form one group named after the folder).
func (t *turn) components() []component {
	groups := map[string][]string{}
	var order []string
	for _, f := range t.files {
		top, _, nested := strings.Cut(f.Path, "/")
		if !nested {
			top = "."
		}
		if _, ok := groups[top]; !ok {
			order = append(order, top)
		}
		groups[top] = append(groups[top], f.Path)
	}
	sort.Strings(order)
	var out []component
	for _, g := range order {
		out = append(out, component{name: g, files: groups[g]})
	}
	if len(out) > 8 {
		sort.SliceStable(out, func(i, j int) bool { return len(out[i].files) > len(out[j].files) })
		out = out[:8]
	}
	return out
}

func (t *turn) languages() string {
	count := map[string]int{}
	for _, f := range t.files {
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

func (t *turn) analysis() (map[string]any, string) {
	comps := t.components()
	var cs []map[string]any
	for _, c := range comps {
		cs = append(cs, map[string]any{"name": componentName(c.name, t.ss.cwd), "files": c.files[:min(5, len(c.files))], "complexity": complexity(len(c.files))})
	}
	splits := max(1, len(comps))
	data := map[string]any{
		"summary":              fmt.Sprintf("%s holds %d files (%s) in %d parts.", path.Base(t.ss.cwd), len(t.files), t.languages(), len(comps)),
		"key_files":            t.keyFiles(5),
		"estimated_complexity": complexity(len(t.files)),
		"recommended_splits":   splits,
		"components":           cs,
		"notes":                "Simulated analysis built from the folder listing; no AI was involved.",
	}
	return data, fmt.Sprintf("I explored %s and found %s.", path.Base(t.ss.cwd), count(len(t.files), "file"))
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

func (t *turn) verb() string {
	// The verb follows what the user asked, not the words of the template.
	m := strings.ToLower(userRequest(t.ss.initialMessage))
	switch {
	case strings.Contains(m, "test"), strings.Contains(m, "cover"):
		return "Add tests for"
	case strings.Contains(m, "review"):
		return "Review"
	case strings.Contains(m, "doc"):
		return "Document"
	default:
		return "Work on"
	}
}

func (t *turn) taskList() (map[string]any, string) {
	comps := t.components()
	var tasks []map[string]any
	var ids []string
	for i, c := range comps {
		id := fmt.Sprintf("task_%03d", i+1)
		ids = append(ids, id)
		tasks = append(tasks, map[string]any{
			"id": id, "title": t.verb() + " " + componentName(c.name, t.ss.cwd),
			"description":      fmt.Sprintf("%s %s (%s).", t.verb(), componentName(c.name, t.ss.cwd), count(len(c.files), "file")),
			"scope":            scopeList(c),
			"priority":         max(1, 10-i),
			"dependencies":     []string{},
			"estimated_tokens": 2000 + 500*len(c.files),
		})
	}
	groups := [][]string{ids}
	if len(comps) > 1 {
		id := fmt.Sprintf("task_%03d", len(comps)+1)
		tasks = append(tasks, map[string]any{
			"id": id, "title": "Integrate the results", "description": "Bring the parts together and check they agree.",
			"scope": []string{}, "priority": 1, "dependencies": slices.Clone(ids), "estimated_tokens": 3000,
		})
		groups = append(groups, []string{id})
	}
	data := map[string]any{"total_tasks": len(tasks), "tasks": tasks, "parallelizable_groups": groups}
	return data, fmt.Sprintf("Here is the task list: %d tasks.", len(tasks))
}

// newTasks plans the same split as taskList in the delegation dialect of
// seed 003: one new_task object per component, delegated to the specialist
// the request calls for, and an integration task after them.
func (t *turn) newTasks() ([]map[string]any, string) {
	comps := t.components()
	prefix, mode := t.specialist()
	var objs []map[string]any
	var ids []string
	for i, c := range comps {
		id := fmt.Sprintf("%s-%03d", prefix, i+1)
		ids = append(ids, id)
		name := componentName(c.name, t.ss.cwd)
		var inputs []map[string]any
		for _, p := range scopeList(c) {
			inputs = append(inputs, map[string]any{"type": "code", "path": p, "description": "Part of " + name})
		}
		priority := "medium"
		if i == 0 {
			priority = "high"
		}
		objs = append(objs, map[string]any{
			"taskId": id, "delegatedToMode": mode,
			"objective": fmt.Sprintf("%s %s.", t.verb(), name),
			"context": fmt.Sprintf("%s holds %d files (%s); this task covers %s (%d files). Simulated delegation built from the folder listing.",
				path.Base(t.ss.cwd), len(t.files), t.languages(), name, len(c.files)),
			"inputs":              inputs,
			"expectedOutputs":     []any{},
			"constraintsAndRules": []string{"Stay inside the inputs of this task", "Do not change files other agents work on"},
			"acceptanceCriteria":  []string{"Every input of " + id + " was read", "The report says what was found"},
			"priority":            priority,
			"dependencies":        []string{},
			"deadlineHint":        "15 minutes",
		})
	}
	if len(comps) > 1 {
		objs = append(objs, map[string]any{
			"taskId": "INT-001", "delegatedToMode": "integration",
			"objective":           "Bring the parts together and check they agree.",
			"context":             "The other tasks each covered one part of " + path.Base(t.ss.cwd) + ": " + strings.Join(ids, ", ") + ".",
			"inputs":              []any{},
			"expectedOutputs":     []any{},
			"constraintsAndRules": []string{"Change nothing the other tasks produced"},
			"acceptanceCriteria":  []string{"The parts agree with each other"},
			"priority":            "low",
			"dependencies":        slices.Clone(ids),
			"deadlineHint":        "10 minutes",
		})
	}
	return objs, fmt.Sprintf("I delegate %d tasks, one new_task each.", len(objs))
}

// specialist is the task id prefix and the SPARC mode for the request.
func (t *turn) specialist() (string, string) {
	switch t.verb() {
	case "Add tests for":
		return "TEST", "tdd"
	case "Review":
		return "REVIEW", "security-review"
	case "Document":
		return "DOCS", "docs-writer"
	default:
		return "CODE", "code"
	}
}

func scopeList(c component) []string {
	if c.name != "." {
		return []string{c.name + "/"}
	}
	return c.files[:min(5, len(c.files))]
}

var taskIDPattern = regexp.MustCompile(`"(?:task_id|taskId)"\s*:\s*"([A-Za-z0-9_-]+)"|\b(task_[A-Za-z0-9-]+)\b`)

// taskID is the task a prompt is about. A worker session's task is named in
// its first prompt: a later message (a re-prompt quoting an example, an
// answer) may name other ids.
func (t *turn) taskID() string {
	prompts := []string{t.prompt}
	if strings.Contains(t.ss.id, "_worker_") {
		prompts = []string{t.ss.initialMessage, t.prompt}
	}
	for _, p := range prompts {
		if m := taskIDPattern.FindStringSubmatch(p); m != nil {
			if m[1] != "" {
				return m[1]
			}
			return m[2]
		}
	}
	if _, after, ok := strings.Cut(t.ss.id, "_worker_"); ok {
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

// report is the outcome of a worker turn, written in either dialect.
type report struct {
	id, kind, before string
	summary, output  string
	metrics          map[string]any
	question         string // reportQuestion
	err              string // reportFailed
	// reportConflict: the file another agent changed, and what to do.
	conflict, resolution string
}

// completion is the report as {"phase": "completion"} data.
func (r report) completion() map[string]any {
	d := map[string]any{"task_id": r.id}
	switch r.kind {
	case reportQuestion:
		d["status"] = "needs_input"
		d["questions"] = []string{r.question}
	case reportFailed:
		d["status"] = "failed"
		d["error"] = r.err
		d["warnings"] = []string{"scenario worker-fails"}
	case reportConflict:
		d["status"] = "conflict"
		d["summary"] = r.summary
		d["issues"] = []map[string]any{{"type": "conflict", "description": r.conflict, "suggested_resolution": r.resolution}}
	default:
		d["status"] = "success"
		d["summary"] = r.summary
		d["output"] = r.output
		d["output_files"] = []string{}
		d["metrics"] = r.metrics
	}
	return d
}

// attemptCompletion is the report as a seed 003 attempt_completion object.
func (r report) attemptCompletion() map[string]any {
	d := map[string]any{"taskId": r.id, "summary": r.summary, "outputArtifacts": []any{}, "issues_encountered": []any{}}
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

// worker plays a worker turn: progress blocks (in the orchestrator
// dialect, which has them) while reading the files of its scope, then the
// report the scenario calls for.
func (t *turn) worker() (report, error) {
	id := t.taskID()
	fc := folderClient{base: t.s.base, session: t.ss.id, client: t.s.fs}
	var scope []string
	for _, f := range t.files {
		dir := path.Dir(f.Path)
		if strings.Contains(t.prompt, f.Path) || dir != "." && strings.Contains(t.prompt, dir+"/") {
			scope = append(scope, f.Path)
		}
	}
	if len(scope) == 0 {
		scope = t.keyFiles(3)
	}
	scope = scope[:min(3, len(scope))]
	for i, f := range scope {
		if t.delegation {
			t.text("Working on " + f + ".")
		} else {
			prog := map[string]any{"phase": "progress", "data": map[string]any{
				"task_id": id, "status": "in_progress", "progress_percent": 100 * i / max(1, len(scope)),
				"current_action": "Reading " + f, "files_processed": i, "files_total": len(scope),
			}}
			b, _ := json.Marshal(prog)
			t.text("Working on " + f + ".\n" + startDelim + "\n" + string(b) + "\n" + endDelim)
		}
		if err := t.read(fc, f); err != nil {
			return report{}, err
		}
	}
	t.s.mu.Lock()
	first := t.ss.phaseCount["completion"] == 1
	t.s.mu.Unlock()
	switch {
	case t.scenario == "clarification" && first:
		return report{id: id, kind: reportQuestion, before: "Before I write " + id + " I need an answer.",
			summary:  "Read " + strings.Join(scope, ", ") + "; the output format needs a decision before " + id + " can be written.",
			question: "Should the output of " + id + " be Markdown or plain text?"}, nil
	case t.scenario == "worker-fails":
		tid := t.toolUse("Bash", map[string]any{"command": "go build ./...", "description": "Build the project"})
		t.toolResult(tid, "exit status 1: simulated build failure", true)
		return report{id: id, kind: reportFailed, before: "I could not finish " + id + ".",
			summary: "The build of the project failed, so " + id + " could not be done.",
			err:     "simulated failure: the build of the project failed"}, nil
	case t.scenario == "conflict":
		file := "README.md"
		if len(scope) > 0 {
			file = scope[0]
		}
		return report{id: id, kind: reportConflict, before: "I stopped " + id + ": another agent changed the same file.",
			summary:    "Stopped " + id + ": " + file + " was changed by another agent while this task was working on it.",
			conflict:   file + ": another agent changed the same lines while " + id + " was working on them",
			resolution: "keep the other agent's change and apply " + id + "'s part on top of it"}, nil
	}
	var lines int
	var outline []string
	for _, f := range scope {
		text := t.reads[f]
		lines += strings.Count(text, "\n")
		outline = append(outline, fmt.Sprintf("- %s: %s", f, firstLine(text, 80)))
	}
	return report{id: id, kind: reportSuccess, before: "Task " + id + " is done.",
		summary: fmt.Sprintf("Read %s (%s) for %s.", count(len(scope), "file"), count(lines, "line"), id),
		output:  "## " + id + "\n\n" + strings.Join(outline, "\n"),
		metrics: map[string]any{"files_read": len(scope), "lines_read": lines}}, nil
}

var (
	taskHeading  = regexp.MustCompile(`(?m)^### ([A-Za-z0-9_-]+) - `)
	taskWord     = regexp.MustCompile(`\btask_[A-Za-z0-9-]+\b`)
	conflictLine = regexp.MustCompile(`(?m)^Conflict to resolve: (.+)$`)
)

// aggregation merges the tasks the prompt names (the "### ID - title"
// headings of the worker reports, else task_ words) and lists every
// "Conflict to resolve:" line of the prompt as a conflict it leaves to the
// user.
func (t *turn) aggregation() (map[string]any, string) {
	ids := map[string]bool{}
	for _, m := range taskHeading.FindAllStringSubmatch(t.prompt, -1) {
		ids[m[1]] = true
	}
	if len(ids) == 0 {
		for _, m := range taskWord.FindAllString(t.prompt, -1) {
			ids[m] = true
		}
	}
	var list []string
	for id := range ids {
		list = append(list, id)
	}
	sort.Strings(list)
	conflicts := []any{}
	headings := taskHeading.FindAllStringSubmatchIndex(t.prompt, -1)
	for _, m := range conflictLine.FindAllStringSubmatchIndex(t.prompt, -1) {
		c := map[string]any{"type": "overlap", "description": t.prompt[m[2]:m[3]],
			"resolution": "left to the user: the simulator changes no files"}
		for _, h := range headings {
			if h[0] < m[0] {
				c["tasks"] = []string{t.prompt[h[2]:h[3]]}
			}
		}
		conflicts = append(conflicts, c)
	}
	status, summary := "success", fmt.Sprintf("Merged the outputs of %d tasks.", len(list))
	if len(conflicts) > 0 {
		status = "partial"
		summary += fmt.Sprintf(" %d conflicts are left to resolve.", len(conflicts))
	}
	return map[string]any{
		"status":        status,
		"summary":       summary,
		"conflicts":     conflicts,
		"merged_output": "Merged: " + strings.Join(list, ", "),
		"output_files":  []string{},
	}, "I merged the results."
}

func (t *turn) verification(attempt int) (map[string]any, string) {
	if t.scenario == "qa-fails" && attempt == 1 {
		var issues []any
		seen := map[string]bool{}
		for _, m := range taskWord.FindAllString(t.prompt, -1) {
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
	return map[string]any{
		"status":  "pass",
		"summary": fmt.Sprintf("Checked %s; no issues found.", count(len(t.files), "file")),
		"issues":  []any{},
	}, "Verification finished."
}

// review decides on a task's completion report: rejected-once rejects the
// first review of each task, everything else is approved.
func (t *turn) review() (map[string]any, string) {
	id := t.taskID()
	t.s.mu.Lock()
	t.ss.phaseCount["review:"+id]++
	n := t.ss.phaseCount["review:"+id]
	t.s.mu.Unlock()
	if t.scenario == "rejected-once" && n == 1 {
		return map[string]any{"task_id": id, "decision": "rejected",
			"reason":           "simulated review: the output of " + id + " lacks an example",
			"required_changes": []string{"add an example to the output of " + id}}, "I reviewed " + id + "."
	}
	return map[string]any{"task_id": id, "decision": "approved", "reason": "simulated review: " + id + " does what it should",
		"required_changes": []string{}}, "I reviewed " + id + "."
}

func (t *turn) askWrite() error {
	t.s.mu.Lock()
	allowed := t.ss.allowed["Write"] || t.ss.permissionMode == "bypassPermissions" || t.ss.permissionMode == "acceptEdits"
	t.s.mu.Unlock()
	input := map[string]any{"file_path": path.Join(t.ss.cwd, "NOTES.md"), "content": "notes\n"}
	id := t.toolUse("Write", input)
	if allowed {
		t.toolResult(id, "Simulated: no file was written.", false)
		return nil
	}
	a, err := t.s.ask(t.ctx, t.ss, "Write", input, []any{map[string]any{"type": "addRules", "rules": []any{map[string]any{"toolName": "Write"}}, "behavior": "allow", "destination": "session"}})
	if err != nil {
		return err
	}
	if a.decision == "deny" {
		t.toolResult(id, "The user denied this tool use.", true)
	} else {
		t.toolResult(id, "Simulated: no file was written (allowed "+a.decision+").", false)
	}
	return nil
}

func (t *turn) askQuestion() error {
	input := map[string]any{"questions": []any{map[string]any{
		"question": "Which part should I start with?", "header": "Start",
		"options":     []any{map[string]any{"label": "Backend", "description": "Go code"}, map[string]any{"label": "Frontend", "description": "Svelte code"}},
		"multiSelect": false,
	}}}
	id := t.toolUse("AskUserQuestion", input)
	a, err := t.s.ask(t.ctx, t.ss, "AskUserQuestion", input, nil)
	if err != nil {
		return err
	}
	if a.decision == "deny" {
		t.toolResult(id, "The user declined to answer.", true)
		return nil
	}
	answer := "no answer"
	var upd struct {
		Answers map[string]string `json:"answers"`
	}
	if json.Unmarshal(a.updatedInput, &upd) == nil && len(upd.Answers) > 0 {
		var parts []string
		for q, v := range upd.Answers {
			parts = append(parts, fmt.Sprintf("%q=%q", q, v))
		}
		sort.Strings(parts)
		answer = strings.Join(parts, ", ")
	}
	t.toolResult(id, "User has answered your questions: "+answer, false)
	return nil
}

// flood emits many tool calls quickly.
func (t *turn) flood() error {
	n := 3000
	t.s.mu.Lock()
	if v, err := strconv.Atoi(t.ss.params["entries"]); err == nil && v > 0 {
		n = min(v, 200000)
	}
	t.s.mu.Unlock()
	for i := 0; i < n/2; i++ {
		if t.ctx.Err() != nil {
			return t.ctx.Err()
		}
		name := "README.md"
		if len(t.files) > 0 {
			name = t.files[i%len(t.files)].Path
		}
		id := t.toolUse("Grep", map[string]any{"pattern": "TODO", "path": name})
		t.toolResult(id, fmt.Sprintf("%s: no matches (%d)", name, i), false)
	}
	return nil
}

// sleep waits n steps, scaled by the speed (and ten times longer when slow).
func (t *turn) sleep(n int) error {
	d := time.Duration(float64(stepDelay) * float64(n) / t.s.opts.Speed)
	if t.scenario == "slow" {
		d *= 10
	}
	if d <= 0 {
		return t.ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-t.ctx.Done():
		return t.ctx.Err()
	}
}

func (t *turn) emit(entry map[string]any) {
	t.s.mu.Lock()
	t.s.appendLocked(t.ss, entry)
	t.s.mu.Unlock()
}

func (t *turn) assistant(content []any, outText string) {
	t.assistantCount++
	in := 400 + len(t.prompt)/4 + 50*t.assistantCount
	out := 20 + len(outText)/4
	t.inTokens += in
	t.outTokens += out
	t.emit(map[string]any{
		"type": "assistant", "uuid": newUUID(), "timestamp": now(),
		"message": map[string]any{
			"id": "msg_" + newUUID()[:8], "role": "assistant", "model": t.ss.model, "content": content,
			"usage": map[string]any{"input_tokens": in, "output_tokens": out, "cache_read_input_tokens": in / 2},
		},
	})
}

func (t *turn) toolUse(name string, input map[string]any) string {
	id := "toolu_" + strings.ReplaceAll(newUUID(), "-", "")[:20]
	b, _ := json.Marshal(input)
	t.assistant([]any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}, string(b))
	return id
}

func (t *turn) toolResult(id, content string, isErr bool) {
	t.emit(map[string]any{
		"type": "user", "uuid": newUUID(), "timestamp": now(),
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": content, "is_error": isErr}}},
	})
}

func (t *turn) text(s string) {
	t.assistant([]any{map[string]any{"type": "text", "text": s}}, s)
}

func (t *turn) result(subtype string, isErr bool, final string) {
	cost := float64(t.inTokens)*3e-6 + float64(t.outTokens)*15e-6
	t.emit(map[string]any{
		"type": "result", "subtype": subtype, "is_error": isErr, "num_turns": t.assistantCount,
		"duration_ms": time.Since(t.started).Milliseconds(), "total_cost_usd": float64(int(cost*1e6)) / 1e6,
		"result": final, "uuid": newUUID(), "timestamp": now(),
		"usage": map[string]any{"input_tokens": t.inTokens, "output_tokens": t.outTokens},
	})
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

// detect reads which phase the prompt asks for, and in which dialect:
//
//  1. quoted block examples such as "phase": "task_list": that phase, in
//     the orchestrator dialect;
//  2. a quoted attempt_completion example ("result": "…" with the word
//     attempt_completion): a completion in the delegation dialect;
//  3. a quoted new_task example ("objective": "…" with the word new_task):
//     a task list in the delegation dialect;
//  4. a quoted completion_report ("type": "completion_report", seed 001):
//     a completion, with the dialect left "" (the orchestrator block);
//  5. keywords: the phase, with the dialect left "" (not said).
//
// A worker prompt of the delegation dialect also quotes its own new_task,
// so attempt_completion is looked for first.
func detect(prompt string) (phase, dialect string) {
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
		return "completion", ""
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

func numbered(text string, n int) string {
	lines := strings.Split(text, "\n")
	var b strings.Builder
	for i, l := range lines[:min(n, len(lines))] {
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, l)
	}
	return b.String()
}
