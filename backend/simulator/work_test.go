package simulator

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/agent/agenttest"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/testsupport"
)

// workerMessage is a system template's worker prompt for task id.
func workerMessage(t *testing.T, tmplID, dir, id, title, description, scope string) string {
	t.Helper()
	mgr, err := template.New(t.TempDir(), template.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := mgr.Get(tmplID)
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]any{template.VarCWD: dir, template.VarUserRequest: "Help with the demo", template.VarTaskID: id,
		template.VarTaskTitle: title, template.VarTaskDescription: description, template.VarTaskScope: scope}
	for name, v := range tmpl.Variables {
		if v.Default != nil {
			values[name] = v.Default
		}
	}
	p, err := tmpl.Render(template.PhaseWorkerExecution, values)
	if err != nil {
		t.Fatal(err)
	}
	return p.System + "\n\n" + p.User
}

// toolCalls are the tool_use blocks of a transcript, as "Name path" (or
// the command).
func toolCalls(entries []map[string]any) []string {
	var out []string
	for _, e := range entries {
		msg, _ := e["message"].(map[string]any)
		blocks, _ := msg["content"].([]any)
		for _, b := range blocks {
			blk, _ := b.(map[string]any)
			if blk["type"] != "tool_use" {
				continue
			}
			in, _ := blk["input"].(map[string]any)
			arg, _ := in["file_path"].(string)
			if arg == "" {
				arg, _ = in["command"].(string)
			}
			out = append(out, blk["name"].(string)+" "+arg)
		}
	}
	return out
}

// The page's workers write their work into the session's folder, as Write
// calls in the transcript: a documentation page from the code, tests that
// build and pass; in plan mode they write nothing and propose.
func TestPageWorkersWriteTheirWork(t *testing.T) {
	t.Parallel()
	_, base := newSim(t, Options{})
	dir := agenttest.Project(t)
	if err := os.WriteFile(filepath.Join(dir, "api", "handlers.go"), []byte("package api\n\n// Health says ok.\nfunc Health() string { return \"ok\" }\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	id := start(t, base, map[string]any{"cwd": dir, "sessionId": "local___orch_r1_worker_task_001",
		"message": workerMessage(t, "documentation", dir, "task_001", "Write the api page", "Write docs/api.md: what api is for.", "api/")})
	entries := waitResult(t, base, id, 1)
	c := agenttest.ValidCompletion(t, finalText(entries), protocol.DialectOrchestrator)
	page, err := os.ReadFile(filepath.Join(dir, "docs", "api.md"))
	if err != nil || c.Status != "success" || strings.Join(c.OutputFiles, ",") != "docs/api.md" ||
		!strings.Contains(string(page), "func Health() string\n```\n\nHealth says ok.") {
		t.Fatalf("completion %+v; page (%v):\n%s", c, err, page)
	}
	if calls := strings.Join(toolCalls(entries), "\n"); !strings.Contains(calls, "Write "+filepath.Join(dir, "docs", "api.md")) {
		t.Errorf("the transcript shows no Write of the page:\n%s", calls)
	}

	id = start(t, base, map[string]any{"cwd": dir, "sessionId": "local___orch_r1_worker_task_002",
		"message": workerMessage(t, "test-coverage", dir, "task_002", "Add tests for api", "api holds 2 source files and has no tests.", "api/")})
	c = agenttest.ValidCompletion(t, finalText(waitResult(t, base, id, 1)), protocol.DialectOrchestrator)
	if c.Status != "success" || strings.Join(c.OutputFiles, ",") != "api/api_test.go" {
		t.Fatalf("completion = %+v", c)
	}
	if out, err := agenttest.Go(dir, "vet", "./..."); err != nil {
		t.Errorf("go vet: %v\n%s", err, out)
	}
	if out, err := agenttest.Go(dir, "test", "-count=1", "-v", "./api/"); err != nil || !strings.Contains(out, `--- PASS: TestBatonApiCalls/Health()`) {
		t.Errorf("go test: %v\n%s", err, out)
	}

	// Plan mode: nothing written, the change proposed.
	plan := agenttest.Project(t)
	id = start(t, base, map[string]any{"cwd": plan, "sessionId": "local___orch_r1_worker_task_003", "permissionMode": "plan",
		"message": workerMessage(t, "documentation", plan, "task_003", "Write the api page", "Write docs/api.md: what api is for.", "api/")})
	entries = waitResult(t, base, id, 1)
	c = agenttest.ValidCompletion(t, finalText(entries), protocol.DialectOrchestrator)
	if _, err := os.Stat(filepath.Join(plan, "docs")); !os.IsNotExist(err) || len(c.OutputFiles) != 0 || !strings.Contains(c.Output, "Plan mode: I changed nothing.") {
		t.Errorf("plan mode: docs/ %v, completion %+v", err, c)
	}
	for _, call := range toolCalls(entries) {
		if strings.HasPrefix(call, "Write") || strings.HasPrefix(call, "Edit") {
			t.Errorf("plan mode: %s", call)
		}
	}
}

// The lying scenarios on the page: another task's id, files claimed and
// never written, a verification that passes a build the workers broke.
func TestPageLies(t *testing.T) {
	t.Parallel()
	_, base := newSim(t, Options{})
	worker := func(dir, scenario string) (*protocol.Completion, string) {
		id := start(t, base, map[string]any{"cwd": dir, "sessionId": "local___orch_" + strings.ReplaceAll(scenario, "-", "") + "_worker_task_002",
			"message": "[[sim:scenario=" + scenario + "]] " + workerMessage(t, "documentation", dir, "task_002", "Write the api page", "Write docs/api.md: what api is for.", "api/")})
		return agenttest.ValidCompletion(t, finalText(waitResult(t, base, id, 1)), protocol.DialectOrchestrator), id
	}
	t.Run("wrong-task-id", func(t *testing.T) {
		t.Parallel()
		dir := agenttest.Project(t)
		c, _ := worker(dir, "wrong-task-id")
		if c.TaskID != "task_001" || c.Status != "success" {
			t.Errorf("report = %+v, want task_002's work reported as task_001's", c)
		}
		if _, err := os.Stat(filepath.Join(dir, "docs", "api.md")); err != nil {
			t.Errorf("the work itself was not done: %v", err)
		}
	})
	t.Run("claims-without-writing", func(t *testing.T) {
		t.Parallel()
		dir := agenttest.Project(t)
		c, _ := worker(dir, "claims-without-writing")
		if c.Status != "success" || strings.Join(c.OutputFiles, ",") != "docs/api.md" {
			t.Errorf("report = %+v", c)
		}
		if _, err := os.Stat(filepath.Join(dir, "docs", "api.md")); !os.IsNotExist(err) {
			t.Errorf("the file it claims: %v", err)
		}
	})
	t.Run("verification-lies", func(t *testing.T) {
		t.Parallel()
		dir := agenttest.Project(t)
		c, id := worker(dir, "verification-lies")
		if c.Status != "success" || !strings.Contains(strings.Join(c.OutputFiles, ","), "api/baton_broken.go") {
			t.Errorf("report = %+v", c)
		}
		if out, err := agenttest.Go(dir, "build", "./..."); err == nil {
			t.Fatalf("go build passes after the worker:\n%s", out)
		}
		call(t, "POST", base+"/api/send", map[string]string{"sessionId": id, "message": `Verify the work: {"phase": "verification"}`})
		res := agenttest.Parse(t, finalText(waitResult(t, base, id, 2)), protocol.PhaseVerification)
		v, ok := res.Last(protocol.PhaseVerification)
		if !ok || v.Data.(*protocol.Verification).Status != "pass" || !strings.Contains(v.Data.(*protocol.Verification).Summary, "The build and the tests pass.") {
			t.Errorf("verification = %+v", v)
		}
	})
}

// In a git repository the page's planning asks git which files it does not
// track, leaves them out and says so.
func TestPageLeavesUntrackedFilesOut(t *testing.T) {
	t.Parallel()
	_, base := newSim(t, Options{})
	dir := agenttest.Project(t)
	git := func(args ...string) { testsupport.Git(t, dir, args...) }
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "first")
	if err := os.MkdirAll(filepath.Join(dir, "extra"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "extra", "new.go"), []byte("package extra\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id := start(t, base, map[string]any{"cwd": dir, "message": `## The request\nDocument it\n\nAnalyze. Answer {"phase": "analysis"}`})
	entries := waitResult(t, base, id, 1)
	body, _ := parseBlock(finalText(entries))
	var v struct {
		Data struct {
			Warnings   []string         `json:"warnings"`
			Components []map[string]any `json:"components"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Data.Warnings) != 1 || !strings.Contains(v.Data.Warnings[0], "1 file not tracked by git (extra/new.go) is left out of the plan") {
		t.Errorf("warnings = %q", v.Data.Warnings)
	}
	for _, c := range v.Data.Components {
		if c["name"] == "extra" {
			t.Errorf("untracked extra/ planned: %v", v.Data.Components)
		}
	}
	if calls := strings.Join(toolCalls(entries), "\n"); !strings.Contains(calls, "Bash git ls-files --others --exclude-standard") {
		t.Errorf("the transcript does not show the git command:\n%s", calls)
	}
}

// The folder endpoint's writes stay inside the session's folder.
func TestFolderWritesStayInside(t *testing.T) {
	t.Parallel()
	_, base := newSim(t, Options{Scenario: "worker-hangs"})
	dir := agenttest.Project(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	id := start(t, base, map[string]any{"cwd": dir, "message": "hello"})
	for _, tt := range []struct {
		path string
		ok   bool
	}{
		{"docs/new.md", true},
		{"../escape.md", false},
		{"docs/../../escape.md", false},
		{filepath.Join(outside, "abs.md"), false},
		{"out/through-link.md", false},
		{"", false},
	} {
		code, b := call(t, "POST", base+"/fs/"+url.PathEscape(id)+"/write", map[string]string{"path": tt.path, "content": "x\n"})
		if (code == http.StatusOK) != tt.ok {
			t.Errorf("write %q = %d %s, want ok=%v", tt.path, code, b, tt.ok)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "docs", "new.md")); err != nil || string(b) != "x\n" {
		t.Errorf("docs/new.md = %q, %v", b, err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("written outside: %v", ents)
	}
}
