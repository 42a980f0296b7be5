package simulator

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/agent"
	contract "github.com/baton-app/baton/backend/session"
)

const stepDelay = 300 * time.Millisecond

// turn is one scripted answer to one user message: the page's face of the
// scripted agent. The decisions are the agent's (agent.Mind); the turn
// plays them on the simulator page, running the tools itself, and is the
// agent.Face its phase dispatch calls back.
type turn struct {
	s        *Simulator
	ss       *session
	ctx      context.Context
	started  time.Time
	prompt   string // the user message the turn answers
	scenario string
	mind     *agent.Mind

	assistantCount int
	inTokens       int
	outTokens      int
	cacheTokens    int // cache reads
}

// run plays the turn and always ends it with a result entry.
func (t *turn) run() {
	phase, dialect := agent.Detect(t.prompt)
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
	planMode, params := t.ss.permissionMode == "plan", t.ss.params
	t.s.mu.Unlock()
	t.mind = agent.NewMind(agent.Turn{Cwd: t.ss.cwd, SessionID: t.ss.id, Initial: t.ss.initialMessage,
		Prompt: t.prompt, Scenario: t.scenario, Dialect: dialect, PlanMode: planMode, Params: params})

	final, failed, err := t.play(phase, attempt)
	if err != nil {
		// interrupted (or the simulator is stopping)
		t.emit(t.ss.userEntry([]any{map[string]any{"type": "text", "text": "[Request interrupted by user]"}}))
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
	if err := t.explore(phase); err != nil {
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

	text, failed, known, err := t.mind.Respond(t, phase, attempt)
	if err != nil {
		return "", false, err
	}
	if !known {
		t.text(text)
		return text, false, nil
	}
	if err := t.sleep(2); err != nil {
		return "", false, err
	}
	t.text(text)
	return text, failed, nil
}

// Verify is the verification answer: the page's agent runs no tool for it.
func (t *turn) Verify(attempt int) (map[string]any, string, error) {
	data, before := t.mind.Verification(attempt)
	return data, before, nil
}

// Reviews counts the reviews of task id in this session.
func (t *turn) Reviews(id string) int {
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	t.ss.phaseCount["review:"+id]++
	return t.ss.phaseCount["review:"+id]
}

// explore lists the folder, asks git which files it does not track when
// the phase plans, and reads a key file, as an agent starts.
func (t *turn) explore(phase string) error {
	fc := t.folder()
	id := t.toolUse("Glob", map[string]any{"pattern": "**/*"})
	files, err := fc.list(t.ctx)
	if err != nil {
		t.toolResult(id, "Error: "+err.Error(), true)
	} else {
		t.mind.SetFiles(files)
		var names []string
		for _, f := range files[:min(len(files), 100)] {
			names = append(names, f.Path)
		}
		t.toolResult(id, strings.Join(names, "\n"), false)
	}
	if err := t.sleep(1); err != nil {
		return err
	}
	if agent.PlansWork(phase) {
		id := t.toolUse("Bash", map[string]any{"command": agent.UntrackedCommand, "description": "List the files git does not track"})
		out, err := fc.untracked(t.ctx)
		if err != nil {
			t.toolResult(id, "Error: "+err.Error(), true)
		} else {
			t.mind.SetUntracked(out)
			t.toolResult(id, out, false)
		}
	}
	if key := t.mind.KeyFiles(1); len(key) > 0 {
		return t.read(fc, key[0])
	}
	return nil
}

func (t *turn) read(fc folderClient, name string) error {
	if t.ctx.Err() != nil {
		return t.ctx.Err()
	}
	id := t.toolUse("Read", map[string]any{"file_path": path.Join(t.ss.cwd, name)})
	text, err := fc.read(t.ctx, name)
	if err != nil {
		t.toolResult(id, "Error: "+err.Error(), true)
	} else {
		t.mind.Read(name, text)
		t.toolResult(id, numbered(text, 60), false)
	}
	return t.sleep(1)
}

// folder is the client of the session's folder endpoint.
func (t *turn) folder() folderClient {
	return folderClient{base: t.s.base, session: t.ss.id, token: t.s.token, client: t.s.fs}
}

// Worker plays a worker turn: progress blocks (in the orchestrator
// dialect, which has them) while reading what the task needs, then its
// work written into the session's folder (as Write and Edit calls) and
// the report the scenario calls for.
func (t *turn) Worker() (agent.Report, error) {
	fc := t.folder()
	reads := t.mind.WorkerReads()
	for i, f := range reads {
		t.text(t.mind.Progress(f, i, len(reads)))
		if err := t.read(fc, f); err != nil {
			return agent.Report{}, err
		}
	}
	t.s.mu.Lock()
	first := t.ss.phaseCount["completion"] == 1
	t.s.mu.Unlock()
	if rep, ok := t.mind.Interrupts(reads, first); ok {
		return rep, nil
	}
	if t.scenario == "deadlock" && !strings.HasSuffix(t.mind.TaskID(), "001") {
		// The tasks beside the failing one take their time, so that the
		// user can retry the skipped task while they run.
		if err := t.sleep(20); err != nil {
			return agent.Report{}, err
		}
	}
	w := t.mind.Work(reads)
	var o agent.Outcome
	if w.Write {
		for _, c := range w.Changes {
			if err := t.apply(fc, c, &o); err != nil {
				return agent.Report{}, err
			}
		}
	}
	if t.scenario == "worker-fails" {
		tid := t.toolUse("Bash", map[string]any{"command": "go build ./...", "description": "Build the project"})
		t.toolResult(tid, "exit status 1: simulated build failure", true)
	}
	return t.mind.Report(w, o), nil
}

// apply writes one change into the session's folder, shown as the CLI's
// Edit (a part added at the end of a file) or Write; a change the file
// already holds is not written again, and a file read only in part is not
// rewritten.
func (t *turn) apply(fc folderClient, c agent.Change, o *agent.Outcome) error {
	if c.Done() {
		o.Written = append(o.Written, c.Path)
		return nil
	}
	abs := path.Join(t.ss.cwd, c.Path)
	var id string
	if old, repl, ok := c.Appended(); ok {
		id = t.toolUse("Edit", map[string]any{"file_path": abs, "old_string": old, "new_string": repl})
	} else {
		id = t.toolUse("Write", map[string]any{"file_path": abs, "content": c.Content})
	}
	if c.Existed && !t.mind.ReadWhole(c.Path) {
		t.toolResult(id, "Error: the file was read only in part", true)
		o.Refused = append(o.Refused, c.Path+": read only in part")
		return t.sleep(1)
	}
	if err := fc.write(t.ctx, c.Path, c.Content); err != nil {
		if t.ctx.Err() != nil {
			return t.ctx.Err()
		}
		t.toolResult(id, "Error: "+err.Error(), true)
		o.Refused = append(o.Refused, c.Path+": "+err.Error())
		return t.sleep(1)
	}
	if c.Existed {
		t.toolResult(id, "The file "+abs+" has been updated successfully.", false)
	} else {
		t.toolResult(id, "File created successfully at: "+abs, false)
	}
	o.Written = append(o.Written, c.Path)
	return t.sleep(1)
}

func (t *turn) askWrite() error {
	t.s.mu.Lock()
	allowed := t.ss.allowed["Write"] || t.ss.permissionMode == contract.ModeBypassPermissions || t.ss.permissionMode == contract.ModeAcceptEdits
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
	files := t.mind.Files()
	for i := 0; i < n/2; i++ {
		if t.ctx.Err() != nil {
			return t.ctx.Err()
		}
		name := "README.md"
		if len(files) > 0 {
			name = files[i%len(files)].Path
		}
		id := t.toolUse("Grep", map[string]any{"pattern": "TODO", "path": name})
		t.toolResult(id, fmt.Sprintf("%s: no matches (%d)", name, i), false)
	}
	return nil
}

// sleep waits n steps, scaled by the speed (and ten times longer when slow).
func (t *turn) sleep(n int) error {
	d := time.Duration(float64(stepDelay) * float64(n) / t.s.opts.Speed)
	if t.scenario == "slow" || t.scenario == "deadlock" {
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

// The entries below have the shapes of the real Claude Code CLI's (see
// backend/claudecodetest/testdata/recordings, which a test compares them
// with field by field): conversation lines as in its on-disk transcript,
// the result as its stream-json result event.

// assistant writes one assistant entry: one content block of a message
// whose usage is counted once per message, as the API reports it.
func (t *turn) assistant(content []any, outText, stopReason string) {
	t.assistantCount++
	in := 400 + len(t.prompt)/4 + 50*t.assistantCount
	out := 20 + len(outText)/4
	t.inTokens += in
	t.outTokens += out
	t.cacheTokens += in / 2
	msgID := "msg_" + strings.ReplaceAll(newUUID(), "-", "")[:24]
	line := func(content []any, out int, stopReason any) map[string]any {
		return map[string]any{
			"type": "assistant", "uuid": newUUID(), "timestamp": now(), "isSidechain": false,
			"userType": "external", "cwd": t.ss.cwd,
			"message": map[string]any{
				"id": msgID, "type": "message", "role": "assistant",
				"model": t.ss.model, "content": content, "stop_reason": stopReason,
				"usage": map[string]any{"input_tokens": in, "cache_creation_input_tokens": 0,
					"cache_read_input_tokens": in / 2, "output_tokens": out, "service_tier": "standard"},
			},
		}
	}
	if t.ss.shape.on.SplitMessages {
		// As Claude Code writes a message: a line per content block under
		// one message.id, the early ones with the output counted so far.
		t.emit(line([]any{map[string]any{"type": "thinking", "thinking": "Deciding the next step.", "signature": ""}}, 1+out/4, nil))
	}
	t.emit(line(content, out, stopReason))
}

func (t *turn) toolUse(name string, input map[string]any) string {
	id := agent.ToolUseID()
	b, _ := json.Marshal(input)
	t.assistant([]any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}, string(b), "tool_use")
	return id
}

func (t *turn) toolResult(id, content string, isErr bool) {
	t.emit(t.ss.userEntry([]any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": content, "is_error": isErr}}))
}

func (t *turn) text(s string) {
	t.assistant([]any{map[string]any{"type": "text", "text": s}}, s, "end_turn")
}

// result ends the turn as the CLI's result event does: usage and
// model_usage_since_last_result are the turn's, total_cost_usd and
// modelUsage the session's so far.
func (t *turn) result(subtype string, isErr bool, final string) {
	cost := float64(int((float64(t.inTokens)*3e-6+float64(t.outTokens)*15e-6)*1e6)) / 1e6
	t.s.mu.Lock()
	sp := &t.ss.spent
	sp.in += t.inTokens
	sp.out += t.outTokens
	sp.cacheRead += t.cacheTokens
	sp.cost += cost
	total := *sp
	t.s.mu.Unlock()
	modelUsage := func(in, out, cacheRead int, cost float64) map[string]any {
		return map[string]any{t.ss.model: map[string]any{"inputTokens": in, "outputTokens": out,
			"cacheReadInputTokens": cacheRead, "cacheCreationInputTokens": 0, "webSearchRequests": 0, "costUSD": cost}}
	}
	var stop any = "end_turn"
	if isErr {
		stop = nil
	}
	entry := map[string]any{
		"type": "result", "subtype": subtype, "is_error": isErr, "num_turns": t.assistantCount,
		"duration_ms": time.Since(t.started).Milliseconds(), "duration_api_ms": time.Since(t.started).Milliseconds(),
		"total_cost_usd": total.cost, "result": final, "uuid": newUUID(), "stop_reason": stop,
		"usage": map[string]any{"input_tokens": t.inTokens, "cache_creation_input_tokens": 0,
			"cache_read_input_tokens": t.cacheTokens, "output_tokens": t.outTokens, "service_tier": "standard"},
		"modelUsage":                    modelUsage(total.in, total.out, total.cacheRead, total.cost),
		"model_usage_since_last_result": modelUsage(t.inTokens, t.outTokens, t.cacheTokens, cost),
		"permission_denials":            []any{},
	}
	t.emit(entry)
}

// numbered is the first n lines of text with their numbers, as the Read
// tool shows a file.
func numbered(text string, n int) string {
	lines := strings.Split(text, "\n")
	var b strings.Builder
	for i, l := range lines[:min(n, len(lines))] {
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, l)
	}
	return b.String()
}
