package agent

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The model face of the scripted agent: given the conversation the real
// Claude Code CLI sends to the Messages API, it decides the next assistant
// message. The decisions are the Mind's, as on the simulator page; here they are played through the CLI's real tools on the real
// folder. The face keeps no state between requests: a turn's script is
// replayed from the user's prompt, each tool call it makes answered from
// the tool_use / tool_result history of the conversation, until a call
// the history lacks: that call is the reply. So a CLI session resumed with
// --resume (or served by another model-sim) goes on where it was.

// ModelRequest is what the agent reads from a Messages API request.
type ModelRequest struct {
	System   json.RawMessage // a string or an array of text blocks
	Messages []ModelMessage
	Tools    []string // names of the tools the CLI offers
	// SessionID is the CLI's session id (X-Claude-Code-Session-Id), "" when
	// unknown.
	SessionID string
	// Scenario is the session's scenario (the caller chooses it, e.g. with
	// Marker), and Params its parameters.
	Scenario string
	Params   map[string]string
}

// ModelMessage is one message of the conversation.
type ModelMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string or an array of blocks
}

// ModelBlock is one content block of the agent's reply: "text" (Text) or
// "tool_use" (ID, Name, Input).
type ModelBlock struct {
	Type  string
	Text  string
	ID    string
	Name  string
	Input map[string]any
}

// ModelReply is the agent's next assistant message.
type ModelReply struct {
	Content []ModelBlock
	// StopReason is "tool_use" when the reply asks for tools, else
	// "end_turn".
	StopReason string
	// Hang is set when the agent never answers (scenario worker-hangs): the
	// server holds the request until the client goes away.
	Hang bool
	// Phase is the phase the prompt asks for ("" when none), and Step the
	// number of tool calls of this turn so far: for logs and tests.
	Phase string
	Step  int
}

// content is one block of a request message.
type content struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// blocks reads a message content: a plain string is one text block.
func blocks(raw json.RawMessage) []content {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []content{{Type: "text", Text: s}}
	}
	var out []content
	_ = json.Unmarshal(raw, &out)
	return out
}

// resultText is the text of a tool_result's content (a string or blocks).
func resultText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var parts []string
	for _, b := range blocks(raw) {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// promptText is the user's own words of a user message: its text blocks
// without the CLI's <system-reminder> blocks (and without reminders
// embedded in a text). "" for a message of tool results or reminders only.
func promptText(m ModelMessage) string {
	if m.Role != "user" {
		return ""
	}
	var parts []string
	for _, b := range blocks(m.Content) {
		switch b.Type {
		case "tool_result":
			return ""
		case "text":
			if t := strings.TrimSpace(reminderPattern.ReplaceAllString(b.Text, "")); t != "" {
				parts = append(parts, t)
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

var (
	reminderPattern = regexp.MustCompile(`(?s)<system-reminder>.*?</system-reminder>`)
	cwdPattern      = regexp.MustCompile(`Primary working directory:[ \t]*([^\n]+)`)
	numberedLine    = regexp.MustCompile(`^\s*\d+(\t|→)`)
)

// texts are the request's system prompt (as sent) and the text blocks of
// its messages, reminders included.
func (r ModelRequest) texts() []string {
	texts := []string{string(r.System)}
	for _, m := range r.Messages {
		for _, b := range blocks(m.Content) {
			if b.Type == "text" {
				texts = append(texts, b.Text)
			}
		}
	}
	return texts
}

// WorkingDirectory is the directory the CLI's environment text names
// ("Primary working directory: /path"), in the system prompt or in a
// message; "" when none does.
func (r ModelRequest) WorkingDirectory() string {
	for _, t := range r.texts() {
		if m := cwdPattern.FindStringSubmatch(t); m != nil {
			return strings.TrimSpace(m[1])
		}
	}
	return ""
}

// Prompts are the user's prompts of the conversation, oldest first.
func (r ModelRequest) Prompts() []string {
	var out []string
	for _, m := range r.Messages {
		if p := promptText(m); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// markerPattern is a scenario marker: [[sim:scenario=NAME k=v …]].
var markerPattern = regexp.MustCompile(`\[\[sim:scenario=([a-z-]+)((?:\s+[a-z]+=[A-Za-z0-9_-]+)*)\]\]`)

// Marker finds the last scenario marker ([[sim:scenario=NAME k=v…]]) in
// text whose name valid accepts: the scenario a stand-in's user chose for a
// session in a message, with its parameters.
func Marker(text string, valid func(string) bool) (name string, params map[string]string, ok bool) {
	for _, m := range slices.Backward(markerPattern.FindAllStringSubmatch(text, -1)) {
		if !valid(m[1]) {
			continue
		}
		params = map[string]string{}
		for _, kv := range strings.Fields(m[2]) {
			k, v, _ := strings.Cut(kv, "=")
			params[k] = v
		}
		return m[1], params, true
	}
	return "", nil, false
}

// StripMarkers is text without its scenario markers.
func StripMarkers(text string) string { return markerPattern.ReplaceAllString(text, "") }

// step is one tool call of the turn so far and its result.
type step struct {
	name   string
	input  map[string]any
	result string
	isErr  bool
	done   bool // a result came back
}

// errSuspend stops a replayed script at the call the history lacks.
var errSuspend = errors.New("suspend")

// modelTurn replays one turn of the agent against the conversation.
type modelTurn struct {
	*Mind
	tools   map[string]bool
	history []step
	// done are the files the conversation's earlier turns wrote (doneWrites):
	// a turn played again after a resume does not write them again.
	done    map[string]bool
	next    int
	said    []ModelBlock // text said since the last replayed call
	reply   *ModelReply
	attempt int
	phase   string
	prior   []string // the earlier prompts of the session
	root    string   // the project folder, for paths in tool inputs
}

// Answer decides the agent's next message for a Messages API request.
func Answer(req ModelRequest) ModelReply {
	prompts := req.Prompts()
	cwd := req.WorkingDirectory()
	if cwd == "" {
		cwd = "."
	}
	if len(prompts) == 0 {
		return ModelReply{StopReason: "end_turn", Content: []ModelBlock{{Type: "text", Text: "There is no message to answer."}}}
	}
	prompt, prior := prompts[len(prompts)-1], prompts[:len(prompts)-1]
	phase, dialect := Detect(prompt)
	if dialect == "" {
		// A follow-up such as an answer: the dialect the phase was last
		// asked in.
		dialect = lastDialect(prior, phase)
	}
	t := &modelTurn{tools: map[string]bool{}, root: cwd, phase: phase, prior: prior, history: turnHistory(req.Messages),
		done: doneWrites(req.Messages),
		Mind: NewMind(Turn{Cwd: cwd, SessionID: req.SessionID, Initial: prompts[0], System: req.batonSystem(), Prompt: prompt, Scenario: req.Scenario,
			Dialect: dialect, PlanMode: req.planMode(), Params: req.Params})}
	for _, name := range req.Tools {
		t.tools[name] = true
	}
	t.attempt = 1
	for _, p := range t.prior {
		if ph, _ := Detect(p); ph != phase {
			continue
		}
		if phase == "review" && t.withPrompt(p).TaskID() != t.TaskID() {
			continue
		}
		t.attempt++
	}

	final, err := t.play()
	switch {
	case errors.Is(err, errHang):
		return ModelReply{Hang: true, Phase: phase, Step: t.next}
	case err != nil:
		return *t.reply
	}
	t.said = append(t.said, ModelBlock{Type: "text", Text: final})
	return ModelReply{Content: t.said, StopReason: "end_turn", Phase: phase, Step: t.next}
}

func (t *modelTurn) withPrompt(p string) *Mind {
	m := *t.Mind
	m.prompt = p
	return &m
}

// lastDialect is the dialect phase was last asked in among prompts.
func lastDialect(prompts []string, phase string) string {
	for _, p := range slices.Backward(prompts) {
		if ph, d := Detect(p); ph == phase && d != "" {
			return d
		}
	}
	return ""
}

// turnHistory is the tool calls made since the last prompt, with their
// results.
func turnHistory(msgs []ModelMessage) []step {
	start := 0
	for i, m := range msgs {
		if promptText(m) != "" {
			start = i + 1
		}
	}
	var out []step
	index := map[string]int{}
	for _, m := range msgs[start:] {
		for _, b := range blocks(m.Content) {
			switch {
			case m.Role == "assistant" && b.Type == "tool_use":
				var in map[string]any
				_ = json.Unmarshal(b.Input, &in)
				index[b.ID] = len(out)
				out = append(out, step{name: b.Name, input: in})
			case m.Role == "user" && b.Type == "tool_result":
				if i, ok := index[b.ToolUseID]; ok {
					out[i].result = resultText(b.Content)
					out[i].isErr = b.IsError
					out[i].done = true
				}
			}
		}
	}
	return out
}

// doneWrites are the files the Write and Edit calls of the turns before
// the last prompt wrote (the calls that succeeded), by their path.
func doneWrites(msgs []ModelMessage) map[string]bool {
	start := 0
	for i, m := range msgs {
		if promptText(m) != "" {
			start = i
		}
	}
	calls := map[string]string{}
	out := map[string]bool{}
	for _, m := range msgs[:start] {
		for _, b := range blocks(m.Content) {
			switch {
			case m.Role == "assistant" && b.Type == "tool_use" && (b.Name == "Write" || b.Name == "Edit"):
				var in struct {
					FilePath string `json:"file_path"`
				}
				_ = json.Unmarshal(b.Input, &in)
				calls[b.ID] = in.FilePath
			case m.Role == "user" && b.Type == "tool_result" && !b.IsError:
				if p, ok := calls[b.ToolUseID]; ok && p != "" {
					out[p] = true
				}
			}
		}
	}
	return out
}

// batonSystem is Baton's part of the system prompt (the CLI appends
// --append-system-prompt to its own text, which never names Baton): from
// the paragraph that first names Baton on; "" when none does.
func (r ModelRequest) batonSystem() string {
	var parts []string
	var s string
	if json.Unmarshal(r.System, &s) == nil {
		parts = append(parts, s)
	} else {
		for _, b := range blocks(r.System) {
			if b.Type == "text" {
				parts = append(parts, b.Text)
			}
		}
	}
	text := strings.Join(parts, "\n\n")
	i := strings.Index(text, "Baton")
	if i < 0 {
		return ""
	}
	return text[strings.LastIndex(text[:i], "\n\n")+1:]
}

// planMode reports whether the CLI says the session is in plan mode (its
// reminder in a message or the system prompt).
func (r ModelRequest) planMode() bool {
	for _, t := range r.texts() {
		if strings.Contains(t, "Plan mode is active") || strings.Contains(t, "Plan mode still active") {
			return true
		}
	}
	return false
}

var errHang = errors.New("hang")

// ToolUseID is a new id for a tool call of the agent, in the shape the
// API gives them ("toolu_" and 24 hexadecimal digits).
func ToolUseID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "toolu_" + hex.EncodeToString(b[:])
}

// call makes a tool call: answered from the history when the turn made it
// already, else the reply (and the script stops). A request that offers
// no tools at all (the CLI's side requests, such as a title) gets no tool
// call: each one fails at once and the agent answers from what it has.
func (t *modelTurn) call(name string, input map[string]any) (string, bool, error) {
	if len(t.tools) == 0 {
		return "no tools were offered", true, nil
	}
	if t.next < len(t.history) && t.history[t.next].done {
		h := t.history[t.next]
		t.next++
		t.said = nil
		return h.result, h.isErr, nil
	}

	id := ToolUseID()
	content := append(t.said, ModelBlock{Type: "tool_use", ID: id, Name: name, Input: input})
	t.reply = &ModelReply{Content: content, StopReason: "tool_use", Phase: t.phase, Step: t.next}
	return "", false, errSuspend
}

func (t *modelTurn) say(text string) {
	t.said = append(t.said, ModelBlock{Type: "text", Text: text})
}

// abs is name inside the project folder.
func (t *modelTurn) abs(name string) string { return path.Join(t.root, name) }

// play runs the phase's script through the CLI's tools and returns the
// final text.
func (t *modelTurn) play() (string, error) {
	if err := t.explore(); err != nil {
		return "", err
	}
	switch t.scenario {
	case "needs-permission":
		// a command no permission mode but bypass allows by itself
		out, isErr, err := t.call("Bash", map[string]any{"command": "touch .baton-model-sim", "description": "Mark the folder as visited"})
		if err != nil {
			return "", err
		}
		if isErr {
			t.say("The command was not allowed: " + firstLine(out, 200))
		}
	case "asks-question":
		out, _, err := t.call("AskUserQuestion", map[string]any{"questions": []any{map[string]any{
			"question": "Which part should I start with?", "header": "Start",
			"options":     []any{map[string]any{"label": "Backend", "description": "Go code"}, map[string]any{"label": "Frontend", "description": "Svelte code"}},
			"multiSelect": false,
		}}})
		if err != nil {
			return "", err
		}
		t.say("The answer: " + firstLine(out, 200))
	case "worker-hangs":
		return "", errHang
	}

	text, _, _, err := t.Respond(t, t.phase, t.attempt)
	return text, err
}

// Reviews is the attempt of the review: the prompts of the session that
// asked for a review of the same task.
func (t *modelTurn) Reviews(string) int { return t.attempt }

// listCommand lists the folder's files with their sizes, leaving out the
// folders every listing leaves out (SkipDir).
const listCommand = `find . -mindepth 1 -maxdepth 7 -type d \( -name '.*' -o -name node_modules -o -name vendor -o -name dist -o -name build \) -prune -o -type f -printf '%s\t%P\n'`

// explore lists the folder (Glob when the CLI offers it, else find through
// Bash) and reads a key file.
func (t *modelTurn) explore() error {
	var out string
	var isErr bool
	var err error
	if t.tools["Glob"] {
		out, isErr, err = t.call("Glob", map[string]any{"pattern": "**/*", "path": t.root})
	} else {
		out, isErr, err = t.call("Bash", map[string]any{"command": listCommand, "description": "List the project's files"})
	}
	if err != nil {
		return err
	}
	if !isErr {
		t.files = parseListing(out, t.root)
	}
	if PlansWork(t.phase) && t.tools["Bash"] {
		out, isErr, err := t.call("Bash", map[string]any{"command": UntrackedCommand, "description": "List the files git does not track"})
		if err != nil {
			return err
		}
		if !isErr {
			t.SetUntracked(out)
		}
	}
	if key := t.KeyFiles(1); len(key) > 0 {
		_, err := t.read(key[0])
		return err
	}
	return nil
}

// parseListing reads the output of listCommand ("size\tpath" lines) or of
// Glob (absolute paths), sorted by path.
func parseListing(out, root string) []File {
	var files []File
	for line := range strings.SplitSeq(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "(") || strings.HasPrefix(line, "<") {
			continue
		}
		var size int64
		if s, p, ok := strings.Cut(line, "\t"); ok {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				size, line = n, p
			}
		}
		if strings.HasPrefix(line, "/") {
			rel, ok := strings.CutPrefix(line, strings.TrimSuffix(root, "/")+"/")
			if !ok {
				continue
			}
			line = rel
		}
		if skipped(line) {
			continue
		}
		files = append(files, File{Path: line, Size: size})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files[:min(len(files), MaxListed)]
}

// skipped reports whether a listed path lies in a folder listings leave out.
func skipped(p string) bool {
	dirs := strings.Split(p, "/")
	for _, d := range dirs[:len(dirs)-1] {
		if SkipDir(d) {
			return true
		}
	}
	return false
}

// read reads one file of the project with the Read tool and keeps its
// text (without the line numbers the tool adds).
func (t *modelTurn) read(name string) (string, error) {
	out, isErr, err := t.call("Read", map[string]any{"file_path": t.abs(name)})
	if err != nil {
		return "", err
	}
	if isErr {
		return "", nil
	}
	text := plainRead(out)
	t.reads[name] = text
	return text, nil
}

// plainRead strips the line numbers of the Read tool's output and the
// reminders it appends.
func plainRead(out string) string {
	out = reminderPattern.ReplaceAllString(out, "")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for i, l := range lines {
		if loc := numberedLine.FindStringIndex(l); loc != nil {
			lines[i] = l[loc[1]:]
		}
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n") + "\n"
}

// testCommand is the command that builds and tests the project, "" when
// it has none the agent knows.
func (t *modelTurn) testCommand() (string, error) {
	has := func(p string) bool {
		return slices.ContainsFunc(t.files, func(f File) bool { return f.Path == p })
	}
	switch {
	case has("go.mod"):
		return "go test ./...", nil
	case has("package.json"):
		text, ok := t.reads["package.json"]
		if !ok {
			var err error
			if text, err = t.read("package.json"); err != nil {
				return "", err
			}
		}
		var pkg struct {
			Scripts map[string]string `json:"scripts"`
		}
		if json.Unmarshal([]byte(text), &pkg) == nil && pkg.Scripts["test"] != "" && !strings.Contains(pkg.Scripts["test"], "no test specified") {
			return "npm test", nil
		}
	case has("Cargo.toml"):
		return "cargo test", nil
	}
	return "", nil
}

// runTests runs the project's tests, if it has some. ran is false when
// there were none or the command was not allowed; failure is the output of
// a failed run.
func (t *modelTurn) runTests() (ran bool, failure string, err error) {
	cmd, err := t.testCommand()
	if err != nil {
		return false, "", err
	}
	return t.run(cmd)
}

// run runs a check command ("" runs nothing).
func (t *modelTurn) run(cmd string) (ran bool, failure string, err error) {
	if cmd == "" || t.planMode {
		return false, "", nil
	}
	out, isErr, err := t.call("Bash", map[string]any{"command": cmd, "description": "Run the project's tests", "timeout": 300000})
	if err != nil {
		return false, "", err
	}
	if isErr && denied(out) {
		t.say("I could not run `" + cmd + "`: " + firstLine(out, 200))
		return false, "", nil
	}
	if isErr {
		return true, tail(out, 12), nil
	}
	return true, "", nil
}

// denied reports whether a tool result is a refused permission rather than
// the tool's own failure.
func denied(out string) bool {
	l := strings.ToLower(out)
	return strings.Contains(l, "requires approval") ||
		strings.Contains(l, "permission") && (strings.Contains(l, "haven't granted") || strings.Contains(l, "denied") || strings.Contains(l, "not allowed"))
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// Worker reads what its task needs, writes its work with the CLI's Write
// and Edit tools (a file that was there and only gains a part at its end
// is edited), runs the check of what it wrote (the tests of the packages
// it wrote tests for, else the project's tests), and reports as the
// scenario calls for. A change the file already holds (a turn played again
// after a resume) is not written again.
func (t *modelTurn) Worker() (Report, error) {
	reads := t.WorkerReads()
	for i, f := range reads {
		t.say(t.Progress(f, i, len(reads)))
		if _, err := t.read(f); err != nil {
			return Report{}, err
		}
	}
	if rep, ok := t.Interrupts(reads, t.attempt == 1); ok {
		return rep, nil
	}
	w := t.Work(reads)
	var o Outcome
	if w.Write {
		for _, c := range w.Changes {
			if err := t.apply(c, &o); err != nil {
				return Report{}, err
			}
		}
	}
	switch {
	case t.scenario == "worker-fails":
		out, _, err := t.call("Bash", map[string]any{"command": "exit 1", "description": "Build the project"})
		if err != nil {
			return Report{}, err
		}
		o.Failure = "simulated build failure (exit status 1) " + firstLine(out, 100)
	case w.Write && len(o.Refused) == 0 && !t.lies("verification-lies"):
		cmd := w.Check
		if cmd == "" {
			var err error
			if cmd, err = t.testCommand(); err != nil {
				return Report{}, err
			}
		}
		ran, failure, err := t.run(cmd)
		if err != nil {
			return Report{}, err
		}
		o.Failure = failure
		if ran && failure == "" {
			o.Checked = cmd
		}
	}
	return t.Report(w, o), nil
}

// apply writes one change: an Edit for a part added at the end of a file,
// else a Write of the whole file (not of one the Read tool showed only in
// part); nothing when the file holds it already or an earlier turn of the
// conversation wrote it.
func (t *modelTurn) apply(c Change, o *Outcome) error {
	if c.Done() || t.done[t.abs(c.Path)] {
		o.Written = append(o.Written, c.Path)
		return nil
	}
	tool, input := "Write", map[string]any{"file_path": t.abs(c.Path), "content": c.Content}
	if old, repl, ok := c.Appended(); ok {
		tool, input = "Edit", map[string]any{"file_path": t.abs(c.Path), "old_string": old, "new_string": repl}
	} else if c.Existed && !t.ReadWhole(c.Path) {
		o.Refused = append(o.Refused, c.Path+": too long to rewrite from what the Read tool showed")
		return nil
	}
	out, isErr, err := t.call(tool, input)
	if err != nil {
		return err
	}
	if isErr {
		o.Refused = append(o.Refused, c.Path+": "+firstLine(out, 160))
	} else {
		o.Written = append(o.Written, c.Path)
	}
	return nil
}

// Verify runs the tests before the verification answer: a failing run
// fails the verification.
func (t *modelTurn) Verify(int) (map[string]any, string, error) {
	ran, failure, err := t.runTests()
	if err != nil {
		return nil, "", err
	}
	data, before := t.Verification(t.attempt)
	if failure != "" && data["status"] == "pass" && !t.lies("verification-lies") {
		data = map[string]any{"status": "fail", "summary": "The project's tests fail.",
			"issues": []any{map[string]any{"description": "the tests fail: " + firstLine(failure, 300), "severity": "high", "suggested_fix": "fix the failing tests"}}}
		before = "Verification found problems."
	} else if ran && data["status"] == "pass" && !t.lies("verification-lies") {
		data["summary"] = fmt.Sprint(data["summary"], " The tests pass.")
	}
	return data, before, nil
}
