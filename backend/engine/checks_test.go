package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/testsupport"
)

// The project's checks as Baton runs them: real commands through the shell
// in the run's folder, the fake host's workers writing real files.

// checkScript is a project check that fails while a file named broken is
// in the folder.
const checkScript = "sh check.sh"

func writeCheck(t *testing.T, dir string) {
	t.Helper()
	testsupport.WriteFile(t, filepath.Join(dir, "check.sh"), "if [ -f broken ]; then echo 'FAIL: broken is here'; exit 1; fi\necho ok\n")
}

// breaking is a worker that writes the file that breaks the check when its
// task is breaker, and removes it when its task is fixer.
func breaking(breaker, fixer string) func(h *fakeHost, s *fakeSession, task string, reprompt bool) bool {
	return func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
		switch {
		case task == breaker:
			_ = os.WriteFile(filepath.Join(s.opts.Cwd, "broken"), []byte("x"), 0o644)
		case strings.HasPrefix(task, fixer):
			_ = os.Remove(filepath.Join(s.opts.Cwd, "broken"))
		default:
			return false
		}
		reportDone(h, s, task)
		return true
	}
}

// verifyPrompts records the verification prompts the main session got and
// answers each with pass.
type verifyPrompts struct {
	mu    sync.Mutex
	texts []string
}

func (v *verifyPrompts) agent(inner agentFunc) agentFunc {
	return func(h *fakeHost, s *fakeSession, text string) {
		if strings.Contains(text, "ASK verification") {
			v.mu.Lock()
			v.texts = append(v.texts, text)
			v.mu.Unlock()
		}
		inner(h, s, text)
	}
}

func (v *verifyPrompts) all() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Clone(v.texts)
}

func checkResults(t *testing.T, h *harness, id string) []store.CheckResult {
	t.Helper()
	got, err := h.st.Checks(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func verdicts(rs []store.CheckResult) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Status+"/"+r.Verdict)
	}
	return strings.Join(out, " ")
}

// TestCheckTheRunBrokeKeepsItFromCompleted: the baseline passes, a worker
// breaks the check, the verification says "pass" anyway: the prompt
// carried the failure, the run is completed with issues, and the report
// names the broken check and the contradiction.
func TestCheckTheRunBrokeKeepsItFromCompleted(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil}, planned{"task_002", 4, nil})
	var vp verifyPrompts
	h := newHarness(t, testTemplate(func(tp *template.Template) {
		tp.Config.Checks = []string{checkScript}
	}), vp.agent(scripted(tasks, breaking("task_001", "none"))), true)
	writeCheck(t, h.dir)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed_with_issues" {
		t.Fatalf("run = %s: %s %v", run.Status, run.Message, run.Issues)
	}
	issues := strings.Join(run.Issues, "\n")
	if !strings.Contains(issues, "1 check that did not fail before the run fails after it: `sh check.sh` (exit 1).") ||
		!strings.Contains(issues, "The verification says pass, but `sh check.sh` fails after the run.") {
		t.Errorf("issues:\n%s", issues)
	}
	if got := verdicts(checkResults(t, h, id)); got != "passed/baseline failed/broken" {
		t.Errorf("check results = %s", got)
	}
	prompts := vp.all()
	if len(prompts) != 1 || !strings.Contains(prompts[0], "`sh check.sh` failed (exit 1") ||
		!strings.Contains(prompts[0], "the run broke it") || !strings.Contains(prompts[0], "FAIL: broken is here") {
		t.Errorf("the verification prompt does not carry the checks:\n%s", strings.Join(prompts, "\n---\n"))
	}
	snap, err := h.eng.Snapshot(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	rep := snap.FinalReport
	if rep == nil || rep.Checks == nil || !rep.Checks.Ran || len(rep.Checks.After) != 1 || rep.Checks.After[0].Verdict != "broken" ||
		!strings.Contains(rep.Checks.Note, "the template's checks: sh check.sh") {
		t.Fatalf("final report checks = %+v", rep)
	}
	if snap.Checks == nil || len(snap.Checks.Results) != 2 || snap.Checks.Running != nil {
		t.Errorf("snapshot checks = %+v", snap.Checks)
	}
	md := Report(snap)
	for _, want := range []string{"### Checks Baton ran", "| `sh check.sh` | passed, ", "failed (exit 1)", "| broken |", "FAIL: broken is here", "**Contradiction** [high]"} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown report lacks %q:\n%s", want, md)
		}
	}
	// The workers started only once the baseline was taken.
	evs, _ := h.st.Events(context.Background(), id, 0, 0)
	baseline, spawned := -1, -1
	for i, e := range evs {
		if e.Name == EventChecks && strings.Contains(string(e.Payload), "Before the workers") && baseline < 0 {
			baseline = i
		}
		if e.Name == EventWorkerSpawned && spawned < 0 {
			spawned = i
		}
	}
	if baseline < 0 || spawned < baseline {
		t.Errorf("baseline event at %d, first worker spawned at %d", baseline, spawned)
	}
}

// TestFailingCheckStartsARemediationRound: a check the run broke is an
// issue of the verification, so a QA round fixes it; the round's checks
// pass and the run completes.
func TestFailingCheckStartsARemediationRound(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil})
	var vp verifyPrompts
	h := newHarness(t, testTemplate(func(tp *template.Template) {
		tp.Config.Checks = []string{checkScript}
		tp.Phases.Verification.MaxRemediationRounds = 1
	}), vp.agent(scripted(tasks, breaking("task_001", "qa1-"))), true)
	writeCheck(t, h.dir)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed" {
		t.Fatalf("run = %s: %s %v", run.Status, run.Message, run.Issues)
	}
	if got := h.rec.count(EventRemediation); got != 1 {
		t.Errorf("%d remediation rounds, want 1", got)
	}
	p := workerPrompts(h.host, "qa1-fix-01")
	if len(p) != 1 || !strings.Contains(p[0], "`sh check.sh` failed (exit 1") || !strings.Contains(p[0], "Make it pass") {
		t.Errorf("remediation prompt = %q", p)
	}
	if got := verdicts(checkResults(t, h, id)); got != "passed/baseline failed/broken passed/passes" {
		t.Errorf("check results = %s", got)
	}
	if prompts := vp.all(); len(prompts) != 2 || !strings.Contains(prompts[1], "`sh check.sh` passed") {
		t.Errorf("the second verification prompt = %q", prompts)
	}
}

// TestPreExistingFailureIsNotBlamed: a check that failed before the run
// and still fails is reported as pre-existing: the run completes, and the
// report says the verification's pass leaves it failing.
func TestPreExistingFailureIsNotBlamed(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil})
	h := newHarness(t, testTemplate(func(tp *template.Template) {
		tp.Config.Checks = []string{checkScript, "true"}
	}), scripted(tasks, nil), true)
	writeCheck(t, h.dir)
	testsupport.WriteFile(t, filepath.Join(h.dir, "broken"), "from before")
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed" {
		t.Fatalf("run = %s: %v", run.Status, run.Issues)
	}
	if got := verdicts(checkResults(t, h, id)); got != "failed/baseline passed/baseline failed/pre-existing passed/passes" {
		t.Errorf("check results = %s", got)
	}
	rep, err := h.eng.FinalReport(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var lims []string
	for _, l := range rep.Limitations {
		lims = append(lims, l.Kind+": "+l.Text)
	}
	all := strings.Join(lims, "\n")
	if !strings.Contains(all, "checks: `sh check.sh` failed (exit 1") || !strings.Contains(all, "(pre-existing)") ||
		!strings.Contains(all, "contradiction: The verification says pass; `sh check.sh` fails as before the run.") {
		t.Errorf("limitations:\n%s", all)
	}
}

// TestNoChecksFoundSaysSo: a folder without checks: the verification
// prompt and the report say that no checks ran, never that they passed.
func TestNoChecksFoundSaysSo(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil})
	var vp verifyPrompts
	h := newHarness(t, testTemplate(nil), vp.agent(scripted(tasks, nil)), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed" {
		t.Fatalf("run = %s: %v", run.Status, run.Issues)
	}
	if p := vp.all(); len(p) != 1 || !strings.Contains(p[0], "No checks ran") {
		t.Errorf("verification prompt = %q", p)
	}
	snap, _ := h.eng.Snapshot(context.Background(), id)
	if c := snap.FinalReport.Checks; c == nil || c.Ran || !strings.HasPrefix(c.Note, "No checks ran") {
		t.Errorf("report checks = %+v", c)
	}
	md := Report(snap)
	if !strings.Contains(md, "No checks ran") || strings.Contains(md, "| passed") {
		t.Errorf("the Markdown report:\n%s", md)
	}
}

// TestHangingCheckEndsAtItsLimit: a check that never ends is ended at the
// template's checkTimeout with a sentence, and the run goes on.
func TestHangingCheckEndsAtItsLimit(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"task_001", 5, nil})
	h := newHarness(t, testTemplate(func(tp *template.Template) {
		tp.Config.Checks = []string{"sleep 60"}
		tp.Config.CheckTimeout = 1
		tp.Phases.Verification.Enabled = false
	}), scripted(tasks, nil), true)
	id := h.create()
	if err := h.eng.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	run := h.wait(id)
	if run.Status != "completed" {
		t.Fatalf("run = %s: %v", run.Status, run.Issues)
	}
	rs := checkResults(t, h, id)
	if got := verdicts(rs); got != "timeout/baseline timeout/pre-existing" {
		t.Fatalf("check results = %s", got)
	}
	if !strings.Contains(rs[0].Message, "did not finish within 1s; Baton ended it") {
		t.Errorf("message = %q", rs[0].Message)
	}
}

// TestWorktreeRunChecksItsBranch: a worktree run takes its baseline in a
// check-out of its base and checks its run branch after the merges; the
// user's folder is not where the checks run, and no check-out is left.
func TestWorktreeRunChecksItsBranch(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"t1", 5, nil})
	h, repo := newIsoHarness(t, func(tp *template.Template) {
		tp.Config.Checks = []string{checkScript}
	}, scripted(tasks, breaking("t1", "none")))
	writeCheck(t, repo)
	testsupport.Git(t, repo, "add", "check.sh")
	testsupport.Git(t, repo, "commit", "-q", "-m", "check")
	id := h.createIn(repo, nil)
	run := h.wait(id)
	if run.Status != "completed_with_issues" {
		t.Fatalf("run = %s: %v", run.Status, run.Issues)
	}
	rs := checkResults(t, h, id)
	if got := verdicts(rs); got != "passed/baseline failed/broken" {
		t.Fatalf("check results = %s", got)
	}
	for _, r := range rs {
		if r.Dir == repo || !strings.HasPrefix(r.Dir, h.worktreeRoot) {
			t.Errorf("round %d ran in %s, not in a check-out under %s", r.Round, r.Dir, h.worktreeRoot)
		}
	}
	if _, err := os.Stat(filepath.Join(repo, "broken")); err == nil {
		t.Error("the worker's file reached the user's folder")
	}
	if left := batonWorktrees(t, repo); len(left) != 0 {
		t.Errorf("worktrees left: %v", left)
	}
}
