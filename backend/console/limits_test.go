package console

import (
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/testsupport"
)

// A run on the simulator with a tiny budget pauses at once and ends "baton
// run" with ExitBudget; --resume takes only a budget above what it used.
func TestRunBudgetPausesAndResumes(t *testing.T) {
	testsupport.NeedChromium(t)
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	code, stdout, stderr := run(t, "", "--template", "documentation", "--cwd", sample(t),
		"--message", "Document the api package", "--yes", "--host", "sim", "--sim-speed", "50", "--budget", "0.0001")
	if code != ExitBudget {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitBudget, stdout, stderr)
	}
	m := runIDPattern.FindStringSubmatch(stdout)
	if m == nil || !strings.Contains(stdout, "budget: the budget is used up") || !strings.Contains(stdout, "baton run --resume "+m[1]+" --budget") {
		t.Fatalf("output:\n%s", stdout)
	}
	code, stdout, stderr = run(t, "", "--resume", m[1], "--budget", "0.00001", "--host", "sim", "--sim-speed", "50")
	if code != ExitError || !strings.Contains(stderr, "not above what the run used") {
		t.Fatalf("a lower budget: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// The simulator keeps its sessions in Baton's data folder, so another
	// "baton run" goes on with a raised budget and finishes the run: the
	// api page and the index, as the request names the api package.
	code, stdout, stderr = run(t, "", "--resume", m[1], "--budget", "5", "--yes", "--host", "sim", "--sim-speed", "50")
	if code != ExitOK || !strings.Contains(stdout, "budget raised") || !strings.Contains(stdout, "completed: 2 of 2 tasks") {
		t.Fatalf("a raised budget: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// A budget used up while the task list waits for its confirmation: --yes
// does not fail on the paused run; the command says the budget is used up.
func TestRunBudgetUsedUpBeforeConfirmation(t *testing.T) {
	testsupport.NeedChromium(t)
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	code, stdout, stderr := run(t, "", "--template", "documentation", "--cwd", sample(t),
		"--message", "Document the api package", "--yes", "--host", "sim", "--sim-speed", "50", "--budget", "0.02")
	// The command notices the pause either before or after it printed the
	// task list; either way it says the budget is used up.
	if code != ExitBudget || !strings.Contains(stdout, "is used up") || strings.Contains(stderr, "illegal transition") {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitBudget, stdout, stderr)
	}
}
