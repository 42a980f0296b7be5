package console

import (
	"strings"
	"testing"
)

// A run on the simulator with a tiny budget pauses at once and ends "baton
// run" with ExitBudget; --resume takes only a budget above what it used.
func TestRunBudgetPausesAndResumes(t *testing.T) {
	needChromium(t)
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
	// The simulator's sessions live in its process, so the run cannot go on
	// in another "baton run"; the engine's tests resume a budget-paused run
	// (TestBudgetPausesAndResumes).
}
