package agent

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/agent/agenttest"
	"github.com/baton-app/baton/backend/protocol"
)

// fakeCLI plays the Claude Code CLI's side of the model face in Go: it
// sends the conversation as the CLI does (the prompt beside a
// <system-reminder>, the environment text in a system message), runs the
// agent's tool calls on the real folder, and sends the results back. Every
// request carries only the conversation, so the face's statelessness is
// tested by construction.
type fakeCLI struct {
	t        *testing.T
	dir      string
	tools    []string
	scenario string
	msgs     []ModelMessage
	// test is the result of the project's test command: its output and
	// whether it failed.
	testOut  string
	testFail bool
	// refuse lists the tools (or "Bash:" + command prefix) whose calls the
	// "user" refuses, as the CLI does in its default permission mode.
	refuse []string
	calls  []ModelBlock // every tool call, in order
	// real runs every Bash command in the folder (the test command too)
	// instead of answering the test command with testOut.
	real bool
	// planMode adds the CLI's plan-mode reminder to every prompt.
	planMode bool
	params   map[string]string
	session  string // the CLI's session id ("s1" when empty)
}

func newFakeCLI(t *testing.T, dir string) *fakeCLI {
	return &fakeCLI{t: t, dir: dir, tools: []string{"Bash", "Edit", "Read", "Write"}, testOut: "ok  \tdemo/api\t0.01s"}
}

func textMsg(role string, texts ...string) ModelMessage {
	var bs []map[string]any
	for _, s := range texts {
		bs = append(bs, map[string]any{"type": "text", "text": s})
	}
	b, _ := json.Marshal(bs)
	return ModelMessage{Role: role, Content: b}
}

// send adds a user prompt and plays the turn to its end; it returns the
// final text.
func (c *fakeCLI) send(prompt string) string {
	c.t.Helper()
	reminder := "<system-reminder>\nAttribution for commits.\n</system-reminder>\n"
	if c.planMode {
		reminder = "<system-reminder>\nPlan mode is active. The user indicated that they do not want you to execute yet.\n</system-reminder>\n"
	}
	c.msgs = append(c.msgs, textMsg("user", reminder, prompt))
	if len(c.msgs) == 1 {
		c.msgs = append(c.msgs, textMsg("system", "# Environment\n - Primary working directory: "+c.dir+"\n - Platform: linux\n"))
	}
	for range 60 {
		r := Answer(ModelRequest{System: json.RawMessage(`[{"type":"text","text":"You are a Claude agent."}]`),
			Messages: c.msgs, Tools: c.tools, SessionID: cmp.Or(c.session, "s1"), Scenario: c.scenario, Params: c.params})
		if r.Hang {
			return ""
		}
		var blocks []map[string]any
		var results []map[string]any
		var text []string
		for _, b := range r.Content {
			switch b.Type {
			case "text":
				blocks = append(blocks, map[string]any{"type": "text", "text": b.Text})
				text = append(text, b.Text)
			case "tool_use":
				c.calls = append(c.calls, b)
				blocks = append(blocks, map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": b.Input})
				out, isErr := c.run(b)
				results = append(results, map[string]any{"type": "tool_result", "tool_use_id": b.ID, "content": out, "is_error": isErr})
			}
		}
		ab, _ := json.Marshal(blocks)
		c.msgs = append(c.msgs, ModelMessage{Role: "assistant", Content: ab})
		if r.StopReason == "end_turn" {
			if len(results) > 0 {
				c.t.Fatalf("a reply that ends the turn asks for tools: %+v", r)
			}
			return strings.Join(text, "\n")
		}
		if r.StopReason != "tool_use" || len(results) == 0 {
			c.t.Fatalf("reply = %+v, want tool calls", r)
		}
		rb, _ := json.Marshal(results)
		c.msgs = append(c.msgs, ModelMessage{Role: "user", Content: rb})
	}
	c.t.Fatal("the turn did not end in 60 requests")
	return ""
}

func (c *fakeCLI) refused(b ModelBlock) bool {
	for _, r := range c.refuse {
		if r == b.Name {
			return true
		}
		if cmd, ok := strings.CutPrefix(r, "Bash:"); ok && b.Name == "Bash" && strings.HasPrefix(fmt.Sprint(b.Input["command"]), cmd) {
			return true
		}
	}
	return false
}

// run runs one tool call as the CLI's tool would.
func (c *fakeCLI) run(b ModelBlock) (string, bool) {
	if c.refused(b) {
		return "This command requires approval", true
	}
	str := func(k string) string { s, _ := b.Input[k].(string); return s }
	inside := func(p string) string {
		if !strings.HasPrefix(p, c.dir+"/") {
			c.t.Errorf("%s of %q, outside the project %s", b.Name, p, c.dir)
		}
		return p
	}
	switch b.Name {
	case "Bash":
		cmd := str("command")
		if c.real {
			sh := exec.Command("sh", "-c", cmd)
			sh.Dir = c.dir
			sh.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local")
			out, err := sh.CombinedOutput()
			if err != nil {
				return string(out) + "\nError: " + err.Error(), true
			}
			return string(out), false
		}
		switch {
		case strings.HasPrefix(cmd, "find "):
			sh := exec.Command("sh", "-c", cmd)
			sh.Dir = c.dir // the CLI runs commands in the working directory
			out, err := sh.Output()
			if err != nil {
				c.t.Fatalf("%s: %v", cmd, err)
			}
			return string(out), false
		case cmd == "go test ./..." || cmd == "npm test" || cmd == "cargo test":
			return c.testOut, c.testFail
		case cmd == "exit 1":
			return "Error: Exit code 1", true
		}
		return "", false
	case "Read":
		data, err := os.ReadFile(inside(str("file_path")))
		if err != nil {
			return "File does not exist.", true
		}
		var sb strings.Builder
		for i, l := range strings.Split(string(data), "\n") {
			fmt.Fprintf(&sb, "%d\t%s\n", i+1, l)
		}
		return sb.String(), false
	case "Write":
		p := inside(str("file_path"))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			c.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(str("content")), 0o644); err != nil {
			c.t.Fatal(err)
		}
		return "File created successfully at: " + p, false
	case "Edit":
		p := inside(str("file_path"))
		data, err := os.ReadFile(p)
		if err != nil || strings.Count(string(data), str("old_string")) != 1 {
			return "<tool_use_error>String to replace not found in file.</tool_use_error>", true
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(data), str("old_string"), str("new_string"), 1)), 0o644); err != nil {
			c.t.Fatal(err)
		}
		return "The file " + p + " has been updated successfully.", false
	}
	return "<tool_use_error>Error: No such tool available: " + b.Name + "</tool_use_error>", true
}

func (c *fakeCLI) toolNames() []string {
	var out []string
	for _, b := range c.calls {
		out = append(out, b.Name)
	}
	return out
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestModelFaceFindsTheFolderAndPhase: the environment text names the
// folder, the prompt beside the reminder names the phase; the agent
// explores the folder with the CLI's tools before answering.
func TestModelFaceFindsTheFolderAndPhase(t *testing.T) {
	t.Parallel()
	dir := agenttest.Project(t)
	c := newFakeCLI(t, dir)
	text := c.send(`Analyse the project. Answer with {"phase": "analysis", "data": {...}}`)
	res := agenttest.Parse(t, text, protocol.PhaseAnalysis)
	resp, ok := res.Last(protocol.PhaseAnalysis)
	if !ok {
		t.Fatalf("no valid analysis (failure %+v) in:\n%s", res.Failure, text)
	}
	a := resp.Data.(*protocol.Analysis)
	if !strings.Contains(a.Summary, "5 files") || len(a.Components) != 3 {
		t.Errorf("analysis = %+v, want the 5 files of the folder in 3 parts", a)
	}
	if got := strings.Join(c.toolNames(), ","); got != "Bash,Bash,Read" {
		t.Errorf("tools = %s, want the listing, the files git does not track, then a read", got)
	}
	if cmd := c.calls[1].Input["command"]; cmd != UntrackedCommand {
		t.Errorf("second call %v, want the files git does not track", cmd)
	}
	if p := c.calls[2].Input["file_path"]; p != filepath.Join(dir, "README.md") {
		t.Errorf("read %v, want the README", p)
	}
}

// TestModelFaceUsesGlobWhenOffered: a CLI that offers Glob gets a Glob.
func TestModelFaceUsesGlobWhenOffered(t *testing.T) {
	t.Parallel()
	dir := agenttest.Project(t)
	r := Answer(ModelRequest{Messages: []ModelMessage{
		textMsg("user", "Analyse. "+`{"phase": "analysis"}`+"\n - Primary working directory: "+dir+"\n"),
	}, Tools: []string{"Glob", "Read"}})
	if r.StopReason != "tool_use" || len(r.Content) != 1 || r.Content[0].Name != "Glob" || r.Content[0].Input["path"] != dir {
		t.Fatalf("reply = %+v, want a Glob of %s", r, dir)
	}
	files := parseListing(dir+"/README.md\n"+dir+"/api/server.go\n"+dir+"/node_modules/x/y.js\n/elsewhere/z.go\n", dir)
	if len(files) != 2 || files[0].Path != "README.md" || files[1].Path != "api/server.go" {
		t.Errorf("Glob listing read as %+v", files)
	}
}

// TestModelFaceWithoutTools: a request that offers no tools gets a text.
func TestModelFaceWithoutTools(t *testing.T) {
	t.Parallel()
	r := Answer(ModelRequest{Messages: []ModelMessage{textMsg("user", `Analyse. {"phase": "analysis"}`)}})
	if r.StopReason != "end_turn" || len(r.Content) != 1 || r.Content[0].Type != "text" || !strings.Contains(r.Content[0].Text, startDelim) {
		t.Errorf("reply = %+v", r)
	}
}

// TestModelFaceWorker: a worker of no particular kind reads its scope,
// writes its notes into it (and changes no file of the project), runs the
// project's tests, and reports the files.
func TestModelFaceWorker(t *testing.T) {
	t.Parallel()
	dir := agenttest.Project(t)
	c := newFakeCLI(t, dir)
	text := c.send(`Your task: task_002 - Work on api. Scope: api/. Answer with {"phase": "completion", "data": {"task_id": "task_002"}}`)
	comp := agenttest.ValidCompletion(t, text, protocol.DialectOrchestrator)
	if comp.TaskID != "task_002" || comp.Status != "success" {
		t.Fatalf("completion = %+v", comp)
	}
	if got := strings.Join(c.toolNames(), ","); got != "Bash,Read,Read,Read,Write,Bash" {
		t.Errorf("tools = %s", got)
	}
	if last := c.calls[len(c.calls)-1]; last.Input["command"] != "go test ./..." {
		t.Errorf("last call = %+v, want go test (the project has a go.mod)", last)
	}
	notes := readFile(t, filepath.Join(dir, "api", "task_002-notes.md"))
	if !strings.Contains(notes, "api/server.go") {
		t.Errorf("notes = %q", notes)
	}
	for _, f := range []string{"api/handlers.go", "api/server.go"} {
		if got := readFile(t, filepath.Join(dir, f)); got != "package api\n" {
			t.Errorf("%s changed: %q", f, got)
		}
	}
	if strings.Join(comp.OutputFiles, ",") != "api/task_002-notes.md" || !strings.Contains(comp.Summary, "`go test ./...` passes") {
		t.Errorf("output files = %v, summary %q", comp.OutputFiles, comp.Summary)
	}
	if readFile(t, filepath.Join(dir, "store", "db.go")) != "package store\n" {
		t.Error("a file outside the scope changed")
	}
}

// TestModelFaceWorkerFailingTests: failing tests fail the report, with
// their output; refused writes too.
func TestModelFaceWorkerFailingTests(t *testing.T) {
	t.Parallel()
	c := newFakeCLI(t, agenttest.Project(t))
	c.testOut, c.testFail = "--- FAIL: TestServer (0.00s)\nFAIL\tdemo/api", true
	comp := agenttest.ValidCompletion(t, c.send(`Do task_002 on api/. Answer {"phase": "completion"}`), protocol.DialectOrchestrator)
	if comp.Status != "failed" || !strings.Contains(comp.Error, "FAIL") {
		t.Errorf("completion = %+v, want failed with the test output", comp)
	}

	c = newFakeCLI(t, agenttest.Project(t))
	c.refuse = []string{"Write", "Edit", "Bash:go test"}
	comp = agenttest.ValidCompletion(t, c.send(`Do task_002 on api/. Answer {"phase": "completion"}`), protocol.DialectOrchestrator)
	if comp.Status != "failed" || !strings.Contains(comp.Error, "refused") {
		t.Errorf("completion = %+v, want failed: its changes were refused", comp)
	}
}

// TestModelFaceDelegationDialect: the sparc template's prompts get
// new_task objects and an attempt_completion, through the CLI.
func TestModelFaceDelegationDialect(t *testing.T) {
	t.Parallel()
	dir := agenttest.Project(t)
	planning, worker := agenttest.SparcPrompts(t, dir)
	text := newFakeCLI(t, dir).send(planning)
	res := agenttest.Parse(t, text, protocol.PhaseTaskList)
	resp, ok := res.Last(protocol.PhaseTaskList)
	if !ok || resp.Dialect != protocol.DialectNewTask {
		t.Fatalf("no delegation plan (failure %+v) in:\n%s", res.Failure, text)
	}
	c := newFakeCLI(t, dir)
	comp := agenttest.ValidCompletion(t, c.send(worker), protocol.DialectAttemptCompletion)
	if comp.TaskID != "CODE-002" || comp.Status != "success" {
		t.Errorf("completion = %+v", comp)
	}
	// The request asks for documentation: the page of the task's scope.
	if page := readFile(t, filepath.Join(dir, "docs", "api.md")); !strings.Contains(page, "## api (Go)") {
		t.Errorf("the worker's page:\n%s", page)
	}
	if strings.Join(comp.OutputFiles, ",") != "docs/api.md" {
		t.Errorf("artifacts = %v", comp.OutputFiles)
	}
}

// TestModelFaceFollowUps: later prompts of the same conversation (a
// resumed session) count as further attempts: a broken first answer, a
// valid one after the re-prompt; clarification asks first and answers
// after.
func TestModelFaceFollowUps(t *testing.T) {
	t.Parallel()
	c := newFakeCLI(t, agenttest.Project(t))
	c.scenario = "malformed-json"
	prompt := `Analyse the project. Answer with {"phase": "analysis"}`
	first := c.send(prompt)
	if !strings.Contains(first, "phase: ") || !strings.Contains(first, "  ,\n}") {
		t.Errorf("first answer is not broken:\n%s", first)
	}
	second := c.send(prompt)
	if _, ok := agenttest.Parse(t, second, protocol.PhaseAnalysis).Last(protocol.PhaseAnalysis); !ok || strings.Contains(second, "  ,\n}") {
		t.Errorf("second answer is broken:\n%s", second)
	}

	c = newFakeCLI(t, agenttest.Project(t))
	c.scenario = "clarification"
	comp := agenttest.ValidCompletion(t, c.send(`Do task_003 on store/. Answer {"phase": "completion"}`), protocol.DialectOrchestrator)
	if comp.Status != "needs_input" || len(comp.Questions) != 1 {
		t.Fatalf("first completion = %+v", comp)
	}
	comp = agenttest.ValidCompletion(t, c.send(`Markdown. Now answer {"phase": "completion", "data": {"task_id": "task_003"}}`), protocol.DialectOrchestrator)
	if comp.Status != "success" || comp.TaskID != "task_003" {
		t.Errorf("completion after the answer = %+v", comp)
	}
}

// TestModelFaceScenarios: the agent-level scenarios of the model face.
func TestModelFaceScenarios(t *testing.T) {
	t.Parallel()
	worker := `Your task: task_002. Scope: api/. Answer {"phase": "completion"}`
	t.Run("needs-permission", func(t *testing.T) {
		t.Parallel()
		c := newFakeCLI(t, agenttest.Project(t))
		c.scenario, c.refuse = "needs-permission", []string{"Bash:touch"}
		text := c.send(`Analyse. {"phase": "analysis"}`)
		if c.calls[3].Name != "Bash" || c.calls[3].Input["command"] != "touch .baton-model-sim" {
			t.Errorf("calls = %+v, want the command that needs permission", c.calls)
		}
		if !strings.Contains(text, "not allowed") || !strings.Contains(text, startDelim) {
			t.Errorf("text = %s", text)
		}
	})
	t.Run("asks-question", func(t *testing.T) {
		t.Parallel()
		c := newFakeCLI(t, agenttest.Project(t))
		c.scenario = "asks-question"
		c.send(`Analyse. {"phase": "analysis"}`)
		q := c.calls[3]
		qs, _ := q.Input["questions"].([]any)
		if q.Name != "AskUserQuestion" || len(qs) != 1 {
			t.Errorf("call = %+v, want an AskUserQuestion", q)
		}
	})
	t.Run("out-of-scope", func(t *testing.T) {
		t.Parallel()
		dir := agenttest.Project(t)
		c := newFakeCLI(t, dir)
		c.scenario = "out-of-scope"
		comp := agenttest.ValidCompletion(t, c.send(worker), protocol.DialectOrchestrator)
		var outside []string
		for _, f := range comp.OutputFiles {
			if !strings.HasPrefix(f, "api/") {
				outside = append(outside, f)
			}
		}
		if len(outside) != 1 {
			t.Fatalf("output files = %v, want one outside api/", comp.OutputFiles)
		}
		if _, err := os.Stat(filepath.Join(dir, outside[0])); err != nil {
			t.Errorf("the file outside the scope was not written: %v", err)
		}
	})
	t.Run("worker-hangs", func(t *testing.T) {
		t.Parallel()
		c := newFakeCLI(t, agenttest.Project(t))
		c.scenario = "worker-hangs"
		if text := c.send(worker); text != "" || len(c.calls) != 2 {
			t.Errorf("a hanging worker answered %q after %d calls", text, len(c.calls))
		}
	})
	t.Run("worker-fails", func(t *testing.T) {
		t.Parallel()
		c := newFakeCLI(t, agenttest.Project(t))
		c.scenario = "worker-fails"
		comp := agenttest.ValidCompletion(t, c.send(worker), protocol.DialectOrchestrator)
		if comp.Status != "failed" {
			t.Errorf("completion = %+v", comp)
		}
	})
	t.Run("qa-fails", func(t *testing.T) {
		t.Parallel()
		c := newFakeCLI(t, agenttest.Project(t))
		c.scenario = "qa-fails"
		prompt := `Verify task_001. Answer {"phase": "verification"}`
		res := agenttest.Parse(t, c.send(prompt), protocol.PhaseVerification)
		v, ok := res.Last(protocol.PhaseVerification)
		if !ok || v.Data.(*protocol.Verification).Status != "fail" {
			t.Errorf("first verification = %+v", v)
		}
		res = agenttest.Parse(t, c.send(prompt), protocol.PhaseVerification)
		if v, ok := res.Last(protocol.PhaseVerification); !ok || v.Data.(*protocol.Verification).Status != "pass" {
			t.Errorf("second verification = %+v", v)
		}
	})
}

// TestModelFaceVerificationRunsTests: a failing test run fails the
// verification.
func TestModelFaceVerificationRunsTests(t *testing.T) {
	t.Parallel()
	c := newFakeCLI(t, agenttest.Project(t))
	c.testOut, c.testFail = "FAIL\tdemo/store", true
	res := agenttest.Parse(t, c.send(`Verify. Answer {"phase": "verification"}`), protocol.PhaseVerification)
	v, ok := res.Last(protocol.PhaseVerification)
	if !ok {
		t.Fatalf("no verification: %+v", res.Failure)
	}
	if vd := v.Data.(*protocol.Verification); vd.Status != "fail" || len(vd.Issues) != 1 || !strings.Contains(vd.Issues[0].Description, "FAIL") {
		t.Errorf("verification = %+v", vd)
	}
}

func TestModelRequestReading(t *testing.T) {
	t.Parallel()
	req := ModelRequest{
		System: json.RawMessage(`"plain system"`),
		Messages: []ModelMessage{
			{Role: "user", Content: json.RawMessage(`"first [[sim:scenario=slow delay=5]]"`)},
			{Role: "system", Content: json.RawMessage(`[{"type":"text","text":"# Environment\n - Primary working directory: /tmp/a b\n"}]`)},
			{Role: "assistant", Content: json.RawMessage(`[{"type":"tool_use","id":"t1","name":"Read","input":{}}]`)},
			{Role: "user", Content: json.RawMessage(`[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"1\tx"}]},{"type":"text","text":"<system-reminder>r</system-reminder>"}]`)},
			{Role: "user", Content: json.RawMessage(`[{"type":"text","text":"<system-reminder>only a reminder</system-reminder>"}]`)},
			{Role: "user", Content: json.RawMessage(`[{"type":"text","text":"<system-reminder>r</system-reminder>"},{"type":"text","text":"second [[sim:scenario=nope]]"}]`)},
		},
	}
	if got := req.WorkingDirectory(); got != "/tmp/a b" {
		t.Errorf("working directory = %q, want the whole line", got)
	}
	if got := req.Prompts(); len(got) != 2 || got[1] != "second [[sim:scenario=nope]]" {
		t.Errorf("prompts = %q", got)
	}
	name, params, ok := Marker(strings.Join(req.Prompts(), "\n"), func(n string) bool { return n == "slow" })
	if !ok || name != "slow" || params["delay"] != "5" {
		t.Errorf("marker = %q %v %v, want slow (nope is not a scenario)", name, params, ok)
	}
	if h := turnHistory(req.Messages); len(h) != 0 {
		t.Errorf("history after the last prompt = %+v, want none", h)
	}
	if h := turnHistory(req.Messages[:4]); len(h) != 1 || !h[0].done || h[0].result != "1\tx" {
		t.Errorf("history = %+v", h)
	}
	if got := plainRead("1\tpackage a\n2\t\n3\tfunc A() {}\n<system-reminder>x</system-reminder>"); got != "package a\n\nfunc A() {}\n" {
		t.Errorf("plainRead = %q", got)
	}
}

// TestModelFaceTestCommand: the tests the agent runs follow the project.
func TestModelFaceTestCommand(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		files map[string]string
		want  string
	}{
		{map[string]string{"go.mod": "module x\n", "a.go": "package x\n"}, "go test ./..."},
		{map[string]string{"package.json": `{"scripts": {"test": "vitest run"}}`}, "npm test"},
		{map[string]string{"package.json": `{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}`}, ""},
		{map[string]string{"Cargo.toml": "[package]\n"}, "cargo test"},
		{map[string]string{"notes.txt": "hi\n"}, ""},
	} {
		dir := t.TempDir()
		for name, text := range tt.files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		c := newFakeCLI(t, dir)
		c.send(`Verify. Answer {"phase": "verification"}`)
		got := ""
		for _, b := range c.calls[1:] {
			if b.Name == "Bash" {
				got, _ = b.Input["command"].(string)
			}
		}
		if got != tt.want {
			t.Errorf("%v: ran %q, want %q", tt.files, got, tt.want)
		}
	}
}

// TestModelFaceReviews: rejected-once rejects each task's first review,
// counted per task over the conversation.
func TestModelFaceReviews(t *testing.T) {
	t.Parallel()
	c := newFakeCLI(t, agenttest.Project(t))
	c.scenario = "rejected-once"
	review := func(id string) string {
		res := agenttest.Parse(t, c.send(`Review the completion report of `+id+`. Answer {"phase": "review", "data": {"task_id": "`+id+`"}}`), protocol.PhaseReview)
		r, ok := res.Last(protocol.PhaseReview)
		if !ok {
			t.Fatalf("no review: %+v", res.Failure)
		}
		return r.Data.(*protocol.Review).Decision
	}
	for i, tt := range []struct{ id, want string }{
		{"task_001", "rejected"}, {"task_001", "approved"}, {"task_002", "rejected"}, {"task_002", "approved"},
	} {
		if got := review(tt.id); got != tt.want {
			t.Errorf("review %d of %s = %s, want %s", i, tt.id, got, tt.want)
		}
	}
}
