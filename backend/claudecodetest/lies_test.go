package claudecodetest_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/testsupport"
)

// The stand-in's lying scenarios (issue 24) through the real CLI: the
// _default worker prompt of task_001 in a copy of the fixture project,
// answered by model-sim playing the scenario; what the report says is
// checked against the folder, the transcript and the project's build.
func TestLyingWorkersThroughTheCLI(t *testing.T) {
	srv := startModelSim(t)
	parser, err := protocol.NewParser(protocol.DefaultDelimiters(), quiet)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := systemTemplate(t, "_default")
	t.Cleanup(func() {
		if _, err := os.Stat(filepath.Join("testdata", "project", "store", "baton_broken.go")); err == nil {
			t.Error("the fixture itself was changed")
		}
	})
	run := func(t *testing.T, scenario string, messages ...string) (dir string, before map[string]string, res *claudecodetest.Result) {
		t.Helper()
		dir = fixture(t)
		before = testsupport.ReadTree(t, dir)
		session := sessionUUID("lies-" + scenario)
		if err := srv.SetScenario(session, scenario); err != nil {
			t.Fatal(err)
		}
		system, user := prompt(t, tmpl, template.PhaseWorkerExecution, dir)
		cli := claudecodetest.New(t, srv.URL())
		args := []string{"--session-id", session, "--permission-mode", tmpl.Config.PermissionMode, "--model", tmpl.Config.Models.Normal,
			"--append-system-prompt", system}
		res, _ = converse(t, cli, dir, args, append([]string{user}, messages...), nil)
		if res.ExitCode != 0 {
			t.Fatalf("exit code %d; stderr: %s", res.ExitCode, res.Stderr)
		}
		return dir, before, res
	}
	completion := func(t *testing.T, res *claudecodetest.Result) *protocol.Completion {
		t.Helper()
		r := parser.ParseEntries(entries(t, res.Transcript), protocol.Options{Phase: protocol.PhaseCompletion})
		resp, ok := r.Last(protocol.PhaseCompletion)
		if !ok {
			t.Fatalf("no valid completion: %+v", r.Failure)
		}
		return resp.Data.(*protocol.Completion)
	}

	t.Run("wrong-task-id", func(t *testing.T) {
		t.Parallel()
		dir, before, res := run(t, "wrong-task-id")
		c := completion(t, res)
		if c.TaskID != "task_002" || c.Status != "success" {
			t.Errorf("report of %q (%s), want task_001's work reported as task_002's", c.TaskID, c.Status)
		}
		if after := testsupport.ReadTree(t, dir); after["docs/usage.md"] == before["docs/usage.md"] {
			t.Error("the work itself was not done: docs/usage.md is as it was")
		}
	})
	t.Run("claims-without-writing", func(t *testing.T) {
		t.Parallel()
		dir, before, res := run(t, "claims-without-writing")
		c := completion(t, res)
		if c.Status != "success" || strings.Join(c.OutputFiles, ",") != "docs/usage.md" {
			t.Errorf("report %s naming %v, want success naming docs/usage.md", c.Status, c.OutputFiles)
		}
		after := testsupport.ReadTree(t, dir)
		for f, text := range after {
			if before[f] != text {
				t.Errorf("%s changed, and the worker was to write nothing", f)
			}
		}
		if tools := toolUses(t, res.Transcript); strings.Contains(tools, "Write") || strings.Contains(tools, "Edit") {
			t.Errorf("tool calls %s", tools)
		}
	})
	t.Run("verification-lies", func(t *testing.T) {
		t.Parallel()
		_, verify := prompt(t, tmpl, template.PhaseVerification, "")
		dir, _, res := run(t, "verification-lies", verify)
		if c := completion(t, res); c.Status != "success" || !strings.Contains(strings.Join(c.OutputFiles, ","), "store/baton_broken.go") {
			t.Errorf("worker's report %+v", c)
		}
		cmd := exec.Command("go", "build", "./...")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Fatalf("go build passes after the worker:\n%s", out)
		}
		r := parser.ParseEntries(entries(t, res.Transcript), protocol.Options{Phase: protocol.PhaseVerification})
		v, ok := r.Last(protocol.PhaseVerification)
		if !ok || v.Data.(*protocol.Verification).Status != "pass" {
			t.Fatalf("verification = %+v (%+v)", v, r.Failure)
		}
		if tools := toolUses(t, res.Transcript); !strings.HasSuffix(tools, "Bash:error") {
			t.Errorf("the verifier's last tool call did not fail: %s", tools)
		}
	})
}

// toolUses lists a transcript's tool calls as Name or Name:error, in order.
func toolUses(t *testing.T, transcript []byte) string {
	t.Helper()
	names := map[string]string{}
	var order []string
	for _, l := range claudecodetest.Lines(transcript) {
		var e struct {
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		var blocks []struct {
			Type      string `json:"type"`
			ID        string `json:"id"`
			Name      string `json:"name"`
			ToolUseID string `json:"tool_use_id"`
			IsError   bool   `json:"is_error"`
		}
		if json.Unmarshal(l, &e) != nil || json.Unmarshal(e.Message.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			switch {
			case b.Type == "tool_use":
				names[b.ID] = b.Name
				order = append(order, b.ID)
			case b.Type == "tool_result" && b.IsError:
				names[b.ToolUseID] += ":error"
			}
		}
	}
	var out []string
	for _, id := range order {
		out = append(out, names[id])
	}
	return strings.Join(out, ",")
}
