package console

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/testsupport"
)

// The stand-ins' lying scenarios, end to end: "baton run" through the real
// pinned Claude Code CLI with model-sim as its model, and through the
// simulator page in real Chromium. Each lie is caught by what Baton checks
// itself: a report is taken only for its own task, declared outputs must
// be written, and the project's checks decide over the verification's word.

// lieHost runs "baton run" on one host: the CLI with model-sim, or the
// simulator in Chromium.
type lieHost struct {
	name  string
	setup func(t *testing.T) []string // the run's host flags
}

var lieHosts = []lieHost{
	{"claude-code", func(t *testing.T) []string {
		bin := claudecodetest.Binary(t)
		url := modelSim(t)
		for _, kv := range claudecodetest.Env(t.TempDir(), url) {
			k, v, _ := strings.Cut(kv, "=")
			t.Setenv(k, v)
		}
		return []string{"--host", "claude-code", "--claude", bin}
	}},
	{"simulator", func(t *testing.T) []string {
		testsupport.NeedChromium(t)
		return []string{"--host", "sim", "--sim-speed", "50"}
	}},
}

// lyingRun runs the template on project with the scenario's marker in the
// request, on each host, answering the terminal's questions with stdin,
// and hands the stored run to check.
func lyingRun(t *testing.T, template, marker, stdin string, project func(*testing.T) string,
	check func(t *testing.T, st *store.Store, run store.Run, code int, stdout string)) {
	for _, h := range lieHosts {
		t.Run(h.name, func(t *testing.T) {
			t.Setenv("BATON_CONFIG_DIR", t.TempDir())
			flags := h.setup(t)
			dir := project(t)
			args := append(flags, "--template", template, "--cwd", dir, "--yes", "--message", "Do the work "+marker)
			code, stdout, stderr := run(t, stdin, args...)
			m := runIDPattern.FindStringSubmatch(stdout)
			if m == nil {
				t.Fatalf("no run: exit %d\n%s\n%s", code, stdout, stderr)
			}
			st, err := store.Open(filepath.Join(os.Getenv("BATON_CONFIG_DIR"), "baton.db"), store.WithLogger(quietLogger(&strings.Builder{})))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			r, err := st.Run(context.Background(), m[1])
			if err != nil {
				t.Fatal(err)
			}
			check(t, st, r, code, stdout+stderr)
		})
	}
}

// eventsNamed are the messages of the run's events called name.
func eventsNamed(t *testing.T, st *store.Store, runID, name string) []string {
	t.Helper()
	evs, err := st.Events(context.Background(), runID, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		if e.Name == name {
			out = append(out, string(e.Payload))
		}
	}
	return out
}

func countContaining(list []string, s string) int {
	n := 0
	for _, x := range list {
		if strings.Contains(x, s) {
			n++
		}
	}
	return n
}

// TestWrongTaskIDIsRefused: each worker first reports its work under
// another task's id; Baton refuses it, asks again with the task's own id,
// and every task completes under its own.
func TestWrongTaskIDIsRefused(t *testing.T) {
	lyingRun(t, "documentation", "[[sim:scenario=wrong-task-id times=1]]", "", func(t *testing.T) string { return pyProject(t) },
		func(t *testing.T, st *store.Store, r store.Run, code int, out string) {
			if code != ExitOK || r.Status != "completed" {
				t.Fatalf("exit %d, run %s %v:\n%s", code, r.Status, r.Issues, out)
			}
			refused := countContaining(eventsNamed(t, st, r.ID, "worker:reprompted"), "but your task is")
			if refused < r.TasksTotal {
				t.Errorf("%d reports refused for another task's id, want one per task (%d)", refused, r.TasksTotal)
			}
			ws, _ := st.Workers(context.Background(), r.ID)
			for _, w := range ws {
				if w.Status != "completed" || w.Error != "" {
					t.Errorf("%s = %s: %s", w.TaskID, w.Status, w.Error)
				}
			}
		})
}

// TestClaimsWithoutWritingAreCaught: workers report files they never
// wrote; Baton asks each again once, naming the files, and the run ends
// completed with issues, listing what was not written and no file as the
// run's.
func TestClaimsWithoutWritingAreCaught(t *testing.T) {
	lyingRun(t, "documentation", "[[sim:scenario=claims-without-writing]]", "", func(t *testing.T) string { return pyProject(t) },
		func(t *testing.T, st *store.Store, r store.Run, code int, out string) {
			if code != ExitIssues || r.Status != "completed_with_issues" {
				t.Fatalf("exit %d, run %s %v:\n%s", code, r.Status, r.Issues, out)
			}
			if !strings.Contains(strings.Join(r.Issues, " "), "did not write what") {
				t.Errorf("issues %v", r.Issues)
			}
			asked := countContaining(eventsNamed(t, st, r.ID, "worker:reprompted"), "its declared outputs are not written")
			if asked < r.TasksTotal {
				t.Errorf("%d workers asked again for their outputs, want every one (%d)", asked, r.TasksTotal)
			}
			ws, _ := st.Workers(context.Background(), r.ID)
			for _, w := range ws {
				if len(w.MissingOutputs) == 0 {
					t.Errorf("%s: no missing outputs recorded (files %v)", w.TaskID, w.OutputFiles)
				}
				for _, f := range w.MissingOutputs {
					if _, err := os.Stat(filepath.Join(r.Cwd, f)); err == nil {
						t.Errorf("%s: %s is listed as not written, yet it is there", w.TaskID, f)
					}
				}
			}
			if strings.Contains(out, "\nFiles: ") {
				t.Errorf("the summary lists files nobody wrote:\n%s", out)
			}
		})
}

// TestVerificationLiesAreContradicted: workers break the build and the
// verification says "pass"; Baton's own checks (go build, go test of the
// Go module) fail where they passed before, a QA round is asked for, and
// the run ends completed with issues that name the check and the
// contradiction.
func TestVerificationLiesAreContradicted(t *testing.T) {
	// The main session asks to run the tests in the verification: allowed
	// for the session.
	lyingRun(t, "test-coverage", "[[sim:scenario=verification-lies]]", "a\na\na\na\n", sample,
		func(t *testing.T, st *store.Store, r store.Run, code int, out string) {
			if code != ExitIssues || r.Status != "completed_with_issues" {
				t.Fatalf("exit %d, run %s %v:\n%s", code, r.Status, r.Issues, out)
			}
			issues := strings.Join(r.Issues, "\n")
			if !strings.Contains(issues, "The verification says pass, but `go ") || !strings.Contains(issues, "did not fail before the run") {
				t.Errorf("issues:\n%s", issues)
			}
			checks, _ := st.Checks(context.Background(), r.ID)
			baseline, broken := 0, 0
			for _, c := range checks {
				switch {
				case c.Round == 0 && c.Status == "passed":
					baseline++
				case c.Round > 0 && (c.Verdict == "broken" || c.Verdict == "new-failure"):
					broken++
				}
			}
			if baseline != 2 || broken == 0 {
				t.Errorf("checks: %d passed at baseline (want 2), %d broken after", baseline, broken)
			}
			answers, _ := st.Answers(context.Background(), r.ID)
			said := false
			for _, a := range answers {
				said = said || (a.Phase == "verification" && strings.Contains(string(a.Data), `"status":"pass"`))
			}
			if !said {
				t.Error("the verification never said pass: the scenario did not lie")
			}
			if len(eventsNamed(t, st, r.ID, "orchestrator:remediation")) == 0 {
				t.Error("the failing check started no QA round")
			}
			if !strings.Contains(out, "Checks after the workers: go build ./... failed (broken)") {
				t.Errorf("the summary does not say what the checks found:\n%s", out)
			}
		})
}
