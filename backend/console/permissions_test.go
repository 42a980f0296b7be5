package console

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/testsupport"
)

// fiveParts is a project the documentation template plans at least five
// worker tasks for (one a component, and the index).
func fiveParts(t *testing.T) string {
	t.Helper()
	files := map[string]string{"README.md": "# shop\n\nA tiny shop in five parts.\n"}
	for _, p := range []string{"cart", "stock", "users", "billing", "tools"} {
		files[p+"/"+p+".py"] = "def " + p + "(x):\n    return x\n"
	}
	return testsupport.Project(t, files)
}

// permissionRun runs "baton run" on the real CLI with every worker in
// model-sim's needs-permission scenario (each runs "touch
// .baton-model-sim", which the default mode asks about) and returns its
// output and the run's id. The workers' pages are allowed by a run rule
// (Edit covers Write), so the Bash prompt is the one left to answer.
func permissionRun(t *testing.T, dir, stdin string, args ...string) (stdout, runID string) {
	t.Helper()
	return permissionRunFor(t, "task_0", dir, stdin, args...)
}

// permissionRunFor is permissionRun with the sessions that match (model-sim's
// rule: "" for all, the main session too) in the needs-permission scenario.
func permissionRunFor(t *testing.T, match, dir, stdin string, args ...string) (stdout, runID string) {
	t.Helper()
	bin := claudecodetest.Binary(t)
	url := modelSim(t, match, "needs-permission")
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("ANTHROPIC_BASE_URL", url)
	t.Setenv("ANTHROPIC_API_KEY", claudecodetest.APIKey)
	t.Setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
	all := append([]string{"--host", "claude-code", "--claude", bin, "--template", "documentation", "--permission-mode", "default",
		"--allow", "Edit(/docs/**)", "--message", "Document this project", "--cwd", dir, "--yes"}, args...)
	code, stdout, stderr := run(t, stdin, all...)
	if code != ExitOK && code != ExitIssues {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	m := runIDPattern.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no run id in:\n%s", stdout)
	}
	return stdout, m[1]
}

// showBashRow is a Bash row of baton show's permission log.
var showBashRow = regexp.MustCompile(`(?m)^  \d\d:\d\d:\d\d +task_\d+ +Bash +touch \.baton-model-sim +(allow|deny) +rule `)

type logRow struct {
	TaskID, Tool, Summary, Decision, DecidedBy, Rule, Source string
}

// permissionLog is the run's permission log of the Bash prompts as the JSON
// export has it, after checking that baton show and the Markdown export
// list them too; every Write was allowed by the docs rule.
func permissionLog(t *testing.T, runID string) []logRow {
	t.Helper()
	var bash []logRow
	for _, d := range exportedLog(t, runID) {
		switch {
		case d.DecidedBy == "mode":
			// What the default mode lets run without a prompt: reading,
			// listing; never a write or the touch it asks about.
			if d.Source != "default" || d.Decision != "allow" || d.Tool == "Write" || d.Summary == "touch .baton-model-sim" {
				t.Errorf("log row %+v", d)
			}
		case d.Tool == "Bash":
			bash = append(bash, d)
		case d.Tool != "Write" || d.Decision != "allow" || d.Rule != "Edit(/docs/**)" || d.Source != "run" || d.DecidedBy != "rule":
			t.Errorf("log row %+v", d)
		}
	}
	var out, errOut bytes.Buffer
	if code := ExportCLI([]string{"--format", "md", runID}, &out, &errOut); code != ExitOK ||
		!strings.Contains(out.String(), "## Permissions") || strings.Count(out.String(), "| Bash | `touch .baton-model-sim` |") != len(bash) {
		t.Errorf("the Markdown export does not list the %d answers:\n%s", len(bash), out.String())
	}
	out.Reset()
	if code := ShowCLI([]string{runID}, &out, &errOut); code != ExitOK ||
		!strings.Contains(out.String(), "\nPermissions:\n") || len(showBashRow.FindAllString(out.String(), -1)) != len(bash) {
		t.Errorf("baton show does not list the %d answers:\n%s", len(bash), out.String())
	}
	return bash
}

// exportedLog is the run's permission log as baton export's JSON has it.
func exportedLog(t *testing.T, runID string) []logRow {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := ExportCLI([]string{"--format", "json", runID}, &out, &errOut); code != ExitOK {
		t.Fatalf("baton export: %d %s", code, errOut.String())
	}
	var snap struct {
		Permissions []logRow `json:"permissions"`
	}
	if err := json.Unmarshal(out.Bytes(), &snap); err != nil {
		t.Fatalf("export: %v\n%s", err, out.String())
	}
	return snap.Permissions
}

// TestOneAnswerAllowsEveryWorkerOnClaudeCode: five workers ask the same
// Bash prompt; "r" on the first allows it for the run by the rule picked,
// which answers the others at once and those that come later: the
// terminal asks once. Every answer is in the permission log.
func TestOneAnswerAllowsEveryWorkerOnClaudeCode(t *testing.T) {
	dir := fiveParts(t)
	// The first prompt: r, then the first suggestion (the exact command).
	// A second prompt would be denied and counted.
	stdout, runID := permissionRun(t, dir, "r\n1\n"+strings.Repeat("d\n", 10))
	if n := strings.Count(stdout, "asks permission: "); n != 1 {
		t.Errorf("the terminal asked %d times, want once:\n%s", n, stdout)
	}
	if !strings.Contains(stdout, "1. Bash(touch .baton-model-sim) — this exact command") ||
		!strings.Contains(stdout, "Allowed for this run: Bash(touch .baton-model-sim)") {
		t.Errorf("the rules were not offered or the pick not confirmed:\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, ".baton-model-sim")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
	log := permissionLog(t, runID)
	workers := map[string]bool{}
	for _, d := range log {
		if d.Tool != "Bash" || d.Summary != "touch .baton-model-sim" || d.Decision != "allow" || d.DecidedBy != "rule" ||
			d.Rule != "Bash(touch .baton-model-sim)" || d.Source != "run" {
			t.Errorf("log row %+v", d)
		}
		workers[d.TaskID] = true
	}
	if len(workers) < 5 || len(log) != len(workers) {
		t.Errorf("%d answers for %d workers, want one for each of at least five: %+v", len(log), len(workers), log)
	}
}

// TestRunRulesAnswerWithoutAPromptOnClaudeCode: --allow answers every
// worker's prompt without asking, --deny refuses it (and wins over an
// allow rule of the same run).
func TestRunRulesAnswerWithoutAPromptOnClaudeCode(t *testing.T) {
	for _, tt := range []struct {
		name     string
		args     []string
		decision string
		rule     string
	}{
		{"allow", []string{"--allow", "Bash(touch:*)"}, "allow", "Bash(touch:*)"},
		{"deny", []string{"--allow", "Bash", "--deny", "Bash(touch .baton-model-sim)"}, "deny", "Bash(touch .baton-model-sim)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := fiveParts(t)
			stdout, runID := permissionRun(t, dir, "", tt.args...)
			if strings.Contains(stdout, "asks permission") || strings.Contains(stdout, "No input to read") {
				t.Errorf("a prompt reached the terminal:\n%s", stdout)
			}
			_, err := os.Stat(filepath.Join(dir, ".baton-model-sim"))
			if ran := err == nil; ran != (tt.decision == "allow") {
				t.Errorf("the command ran: %v, want %v", ran, tt.decision == "allow")
			}
			log := permissionLog(t, runID)
			if len(log) < 5 {
				t.Errorf("%d answers logged, want one for each of at least five workers: %+v", len(log), log)
			}
			for _, d := range log {
				if d.Decision != tt.decision || d.DecidedBy != "rule" || d.Rule != tt.rule || d.Source != "run" || d.TaskID == "" {
					t.Errorf("log row %+v", d)
				}
			}
		})
	}
}

// TestModeDecidesWithoutAPromptOnClaudeCode: under acceptEdits the CLI
// writes the workers' pages without a prompt; every Write is in the
// permission log once, decided by the permission mode acceptEdits, and so
// are the reads the CLI never asks about; each worker's touch is logged
// once, by whoever decided it (the run's rule when the CLI asked, the
// mode when it did not), never twice.
func TestModeDecidesWithoutAPromptOnClaudeCode(t *testing.T) {
	dir := fiveParts(t)
	stdout, runID := permissionRun(t, dir, "", "--permission-mode", "acceptEdits", "--allow", "Bash(touch:*)")
	if strings.Contains(stdout, "asks permission") {
		t.Errorf("a prompt reached the terminal:\n%s", stdout)
	}
	log := exportedLog(t, runID)
	writes, touches, reads := map[string]int{}, map[string]int{}, 0
	for _, d := range log {
		byMode := d.DecidedBy == "mode" && d.Source == "acceptEdits" && d.Rule == "" && d.Decision == "allow"
		switch {
		case d.Tool == "Write" && byMode && d.TaskID != "":
			writes[d.TaskID]++
		case d.Summary == "touch .baton-model-sim" && d.TaskID != "" && (byMode || d.DecidedBy == "rule" && d.Rule == "Bash(touch:*)"):
			touches[d.TaskID]++
		case (d.Tool == "Glob" || d.Tool == "Read") && byMode:
			reads++
		case d.Tool == "Bash" && byMode:
		default:
			t.Errorf("log row %+v", d)
		}
	}
	if len(writes) < 5 || reads == 0 {
		t.Errorf("writes by the mode %v and %d reads, want every one of at least five workers' and some:\n%+v", writes, reads, log)
	}
	for w, n := range touches {
		if n != 1 {
			t.Errorf("%s's touch is logged %d times, want once: %+v", w, n, log)
		}
	}
	if len(touches) < 5 {
		t.Errorf("touches logged for %d workers, want at least five: %+v", len(touches), log)
	}
	var out, errOut bytes.Buffer
	if code := ShowCLI([]string{runID}, &out, &errOut); code != ExitOK || !strings.Contains(out.String(), "the permission mode acceptEdits (no prompt)") {
		t.Errorf("baton show does not say the mode decided:\n%s", out.String())
	}
}

// TestHostDenialsAreLoggedOnClaudeCode: a call the CLI denies by itself
// (here the project's own deny rule; plan mode's denials come the same way,
// in the turn's permission_denials) asks nothing and is logged as denied
// without a prompt.
func TestHostDenialsAreLoggedOnClaudeCode(t *testing.T) {
	dir := fiveParts(t)
	settings := filepath.Join(dir, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(`{"permissions":{"deny":["Bash(touch:*)"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, runID := permissionRun(t, dir, "", "--permission-mode", "acceptEdits")
	if strings.Contains(stdout, "asks permission") {
		t.Errorf("a prompt reached the terminal:\n%s", stdout)
	}
	denied := map[string]int{}
	for _, d := range exportedLog(t, runID) {
		if d.Summary == "touch .baton-model-sim" {
			if d.Decision != "deny" || d.DecidedBy != "mode" || d.Rule != "" || d.Source != "acceptEdits" {
				t.Errorf("log row %+v", d)
			}
			denied[d.TaskID]++
		}
	}
	if len(denied) < 5 {
		t.Errorf("denials logged for %d workers, want at least five: %v", len(denied), denied)
	}
	for w, n := range denied {
		if n != 1 {
			t.Errorf("%s's denial is logged %d times, want once", w, n)
		}
	}
}

// TestRunRuleAnswersTheMainSessionOnClaudeCode: the main session's prompts
// are answered by the run's rule as the workers' are, without a prompt,
// and logged as the main session's.
func TestRunRuleAnswersTheMainSessionOnClaudeCode(t *testing.T) {
	dir := fiveParts(t)
	stdout, runID := permissionRunFor(t, "", dir, "", "--allow", "Bash(touch:*)")
	if strings.Contains(stdout, "asks permission") || strings.Contains(stdout, "No input to read") {
		t.Errorf("a prompt reached the terminal:\n%s", stdout)
	}
	main, workers := 0, map[string]bool{}
	for _, d := range exportedLog(t, runID) {
		if d.Summary != "touch .baton-model-sim" {
			continue
		}
		if d.Decision != "allow" || d.DecidedBy != "rule" || d.Rule != "Bash(touch:*)" || d.Source != "run" {
			t.Errorf("log row %+v", d)
		}
		if d.TaskID == "" {
			main++
		} else {
			workers[d.TaskID] = true
		}
	}
	if main == 0 || len(workers) < 5 {
		t.Errorf("the rule answered %d prompts of the main session and the prompts of %d workers, want some and at least five", main, len(workers))
	}
}
