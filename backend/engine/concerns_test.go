package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/hostguard"
	"github.com/baton-app/baton/backend/mainsession"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/workflows"
)

// Unit tests of the concerns the runner applies: each says what changes,
// and nothing is stored until the runner applies it.

// recordedFlows records what the runner and the concerns tell the
// workflows.
type recordedFlows struct{ calls []string }

func (f *recordedFlows) Planned([]store.Task) string                    { return "" }
func (f *recordedFlows) Confirmed([]store.Task)                         {}
func (f *recordedFlows) Assign(context.Context, *store.Task) error      { return nil }
func (f *recordedFlows) Sections(*store.Task) []string                  { return nil }
func (f *recordedFlows) CheckReport(string, *protocol.Completion) error { return nil }
func (f *recordedFlows) Reprompt(string, string) string                 { return "" }
func (f *recordedFlows) Completed() string                              { return "" }
func (f *recordedFlows) Restored()                                      {}
func (f *recordedFlows) Reports() <-chan workflows.Report               { return nil }
func (f *recordedFlows) Flush()                                         {}
func (f *recordedFlows) Close()                                         {}
func (f *recordedFlows) Finished(id string, ok bool, _ workflows.Done)  { f.add("finished", id, ok) }
func (f *recordedFlows) Skipped(ids []string)                           { f.add("skipped", strings.Join(ids, ","), true) }
func (f *recordedFlows) AwaitingReview(id string, _ *protocol.Completion) {
	f.add("awaiting", id, true)
}
func (f *recordedFlows) Decided(id string, d *protocol.Review) { f.add("decided", id, d.Approved()) }
func (f *recordedFlows) add(what, id string, ok bool) {
	s := what + " " + id
	if !ok {
		s += " (no)"
	}
	f.calls = append(f.calls, s)
}

// running is a plan of the tasks ids, each worker running.
func running(t *testing.T, ids ...string) *taskPlan {
	t.Helper()
	var tasks []store.Task
	for _, id := range ids {
		tasks = append(tasks, store.Task{ID: id})
	}
	p := newTestPlan(t, tasks...)
	for _, id := range ids {
		for _, s := range []WorkerStatus{WorkerSpawning, WorkerRunning} {
			if err := p.workers[id].move(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	return p
}

func eventNames(c change) string {
	var names []string
	for _, e := range c.events {
		names = append(names, e.Name)
	}
	return strings.Join(names, ",")
}

// The review gate: a rejection is stored as rejected before the task is
// requeued (its next step decided once the rejection is stored), and the
// rejection past maxRetries fails the task; the build check rejects at
// once; the user's review needs a reason to reject.
func TestReviewerDecides(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC)
	flows := &recordedFlows{}
	tmpl := testTemplate(func(tp *template.Template) {
		tp.Config.MaxRetries = 1
		tp.Phases.Review = template.ReviewGate{Enabled: true, Reviewer: "orchestrator", RequireBuildSuccess: true}
	})
	rv := &reviewer{tmpl: tmpl, flows: flows}
	p := running(t, "a", "b")
	a := p.workers["a"]

	c, err := rv.await(a, &protocol.Completion{TaskID: "a", Status: "success", Build: &protocol.BuildResult{Status: "failed", Command: "make"}}, "", p, now)
	if err != nil || a.status != WorkerAwaitingReview || eventNames(c) != EventWorkerAwaitingReview || c.then == nil {
		t.Fatalf("await = %+v, %v; status %s", c, err, a.status)
	}
	if rv.next(p) != a {
		t.Error("the main session is not asked to review a")
	}
	rejected, err := c.then()
	if err != nil || a.status != WorkerRejected || eventNames(rejected) != EventWorkerRejected || !strings.Contains(a.w.Error, "rejected by the build check: the build failed (make)") {
		t.Fatalf("build check = %+v, %v; %s %q", rejected, err, a.status, a.w.Error)
	}
	requeued, err := rejected.then()
	if err != nil || a.status != WorkerPending || eventNames(requeued) != EventWorkerRetrying || a.book.Rejections != 1 {
		t.Fatalf("after the first rejection: %+v, %v; %s", requeued, err, a.status)
	}

	for _, s := range []WorkerStatus{WorkerSpawning, WorkerRunning, WorkerAwaitingReview} {
		if err := a.move(s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := rv.user(a, false, "  ", p, now); !errors.Is(err, ErrBadRequest) {
		t.Errorf("a rejection without reason = %v", err)
	}
	c, err = rv.user(a, false, "still wrong", p, now)
	if err != nil {
		t.Fatal(err)
	}
	failed, err := c.then()
	if err != nil || a.status != WorkerFailed || eventNames(failed) != EventWorkerFailed || len(failed.done) != 1 || failed.done[0].id != "a" || failed.done[0].ok {
		t.Fatalf("the second rejection = %+v, %v; %s", failed, err, a.status)
	}

	b := p.workers["b"]
	if err := b.move(WorkerAwaitingReview); err != nil {
		t.Fatal(err)
	}
	rv.Reviewing = "b"
	if ws := rv.answered(&protocol.Review{TaskID: "zz"}, p); ws != b || rv.Reviewing != "" {
		t.Fatalf("answered = %v", ws)
	}
	c, err = rv.decide(b, &protocol.Review{TaskID: "b", Decision: protocol.ReviewApproved, Reason: "good"}, "the reviewer", p, now)
	if err != nil || b.status != WorkerCompleted || c.then != nil || c.events[0].P.Message != "approved by the reviewer: good" || c.done[0].id != "b" || !c.done[0].ok {
		t.Fatalf("approval = %+v, %v", c, err)
	}
	if _, err := rv.user(b, true, "", p, now); !errors.Is(err, ErrIllegalTransition) {
		t.Errorf("a review of a completed task = %v", err)
	}
	want := "awaiting a,decided a (no),decided a (no),decided b"
	if got := strings.Join(flows.calls, ","); got != want {
		t.Errorf("the workflows were told %q, want %q", got, want)
	}
}

// The QA loop: a failed verification with issues becomes a round of tasks
// until the rounds allowed are used; a partial report runs the task again
// until its third iteration.
func TestReviewerQAAndPartial(t *testing.T) {
	t.Parallel()
	rv := &reviewer{tmpl: testTemplate(func(tp *template.Template) { tp.Phases.Verification.MaxRemediationRounds = 1 }), flows: &recordedFlows{}}
	p := running(t, "a")
	fail := &protocol.Verification{Status: "fail", Summary: "broken", Issues: []protocol.VerificationIssue{{Description: "no tests", TaskID: "a"}}}
	tasks, summary, round := rv.verified(fail, "r", p)
	if len(tasks) != 1 || tasks[0].ID != "qa1-fix-01" || tasks[0].Position != 1 || summary != "" || round != "Verification failed; remediation round 1 of 1: 1 task." {
		t.Fatalf("first round = %+v %q %q", tasks, summary, round)
	}
	tasks, summary, _ = rv.verified(fail, "r", p)
	if tasks != nil || summary != "Verification still fails after 1 remediation round: no tests. broken" {
		t.Fatalf("past the rounds = %+v %q", tasks, summary)
	}
	if tasks, summary, _ := rv.verified(&protocol.Verification{Status: "pass", Summary: "fine"}, "r", p); tasks != nil || summary != "fine" {
		t.Errorf("a pass = %+v %q", tasks, summary)
	}

	a := p.workers["a"]
	c := &protocol.Completion{Status: "partial", Summary: "half", Error: "the tests"}
	for i := 1; i <= 2; i++ {
		if why := rv.partial(a, c); why != "partly done (iteration "+string(rune('0'+i))+" of 3): the tests" {
			t.Fatalf("partial %d = %q", i, why)
		}
	}
	if !strings.Contains(a.book.Feedback, "iteration 2 of at most 3") || !strings.Contains(a.book.Feedback, "What was left: the tests") {
		t.Errorf("feedback = %q", a.book.Feedback)
	}
	if why := rv.partial(a, c); why != "" {
		t.Errorf("the third iteration's report did not stand: %q", why)
	}
	cc, err := rv.conflicted(a, &protocol.Completion{Status: "conflict", Issues: []protocol.TaskIssue{{Type: "overlap", Description: "x.go", SuggestedResolution: "merge"}}}, p, time.Now())
	if err != nil || a.status != WorkerFailed || a.w.Error != "conflict: overlap: x.go (suggested: merge)" || eventNames(cc) != EventWorkerFailed {
		t.Errorf("conflict = %+v, %v; %q", cc, err, a.w.Error)
	}
}

// A plan's failure skips the dependants and tells the workflows; a
// requeue starts the task anew; changes merge in order.
func TestPlanChanges(t *testing.T) {
	t.Parallel()
	p := newTestPlan(t, store.Task{ID: "a"}, store.Task{ID: "b", Dependencies: []string{"a"}}, store.Task{ID: "c", Dependencies: []string{"b"}})
	a := p.workers["a"]
	for _, s := range []WorkerStatus{WorkerSpawning, WorkerRunning} {
		if err := a.move(s); err != nil {
			t.Fatal(err)
		}
	}
	a.w.SessionID = "s1"
	c, err := p.requeue(a, "try again", true, true)
	if err != nil || a.status != WorkerPending || a.w.SessionID != "" || a.book.Attempt != 1 || a.book.AutoRetries != 1 || a.w.RetryCount != 1 {
		t.Fatalf("requeue = %+v, %v; %+v", c, err, a)
	}
	c, err = p.fail(a, "broke", time.Now())
	if err != nil || eventNames(c) != EventWorkerFailed+","+EventWorkerSkipped+","+EventWorkerSkipped || c.skipped[0] != "b" || c.skipped[1] != "c" ||
		len(c.workers) != 3 || strings.Join(c.events[0].P.Skipped, ",") != "b,c" {
		t.Fatalf("fail = %+v, %v", c, err)
	}
	all := change{}.say("one").and(c).and(change{Change: store.Change{Answers: []store.PhaseAnswer{{Phase: "analysis"}}}})
	if *all.note != "one" || len(all.events) != 3 || len(all.Answers) != 1 || len(all.done) != 1 || len(all.skipped) != 2 {
		t.Errorf("merged change = %+v", all)
	}
	again, err := p.retry(a)
	if err != nil || again.then == nil || p.workers["b"].status != WorkerPending || p.workers["c"].status != WorkerPending {
		t.Fatalf("retry = %+v, %v", again, err)
	}
}

// A restored worker: followed again when its session exists (or cannot be
// checked), started again under its id when it never started, stopped when
// it timed out before its stop, and lost when the host has no session.
func TestWorkerRestored(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC)
	worker := func(path ...WorkerStatus) *workerState {
		ws := newWorker("r", "a")
		ws.w.SessionID = "s"
		for _, s := range path {
			if err := ws.move(s); err != nil {
				t.Fatal(err)
			}
		}
		return ws
	}
	missing := session.ErrNoSession
	for _, tc := range []struct {
		name   string
		ws     *workerState
		err    error
		step   restoreStep
		status WorkerStatus
	}{
		{"spawning, exists", worker(WorkerSpawning), nil, restoreFollow, WorkerRunning},
		{"running, not checked", worker(WorkerSpawning, WorkerRunning), errors.New("page busy"), restoreFollow, WorkerRunning},
		{"spawning, missing", worker(WorkerSpawning), missing, restoreFollow, WorkerPending},
		{"timed out, exists", worker(WorkerSpawning, WorkerRunning, WorkerTimeout), nil, restoreStop, WorkerTimeout},
		{"timed out, not checked", worker(WorkerSpawning, WorkerRunning, WorkerTimeout), errors.New("page busy"), restoreLost, WorkerTimeout},
		{"paused, missing", worker(WorkerSpawning, WorkerRunning, WorkerPaused), missing, restoreLost, WorkerRunning},
	} {
		if !tc.ws.mayHaveSession() {
			t.Fatalf("%s: no session to follow", tc.name)
		}
		step, err := tc.ws.restored(tc.err, now)
		if err != nil || step != tc.step || tc.ws.status != tc.status {
			t.Errorf("%s: step %d (%v), status %s; want %d, %s", tc.name, step, err, tc.ws.status, tc.step, tc.status)
		}
	}
	if newWorker("r", "a").mayHaveSession() {
		t.Error("a pending worker has a session to follow")
	}
}

// The main session: the answer's clock per phase, a re-prompt keeps what
// was asked, a hold keeps it for the continue message, and a session the
// host no longer has is gone until the next start.
func TestMainSession(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC)
	h := newFakeHost(func(*fakeHost, *fakeSession, string) {}, false)
	m := &mainsession.Session{}
	m.Attach(hostguard.New(h, time.Second, time.Second), quiet)
	phases := testTemplate(nil).Phases
	m.Sent(session.Cursor{Index: 3}, protocol.PhaseAnalysis, now)
	if secs, late := m.Overdue(phases, now.Add(10*time.Minute)); secs != 600 || late {
		t.Errorf("10 min into a 600 s analysis: %d %v", secs, late)
	}
	if _, late := m.Overdue(phases, now.Add(11*time.Minute)); !late {
		t.Error("not late after 11 min")
	}
	m.Again(session.Cursor{Index: 5})
	m.Hold()
	if m.Asked != protocol.PhaseAnalysis || m.Reprompts != 1 || m.Prompt.Index != 5 {
		t.Errorf("after a re-prompt and a hold: %+v", m)
	}
	m.Refresh(now.Add(time.Hour))
	if !m.AskedAt.Equal(now.Add(time.Hour)) {
		t.Error("the answer's clock did not start again")
	}
	if !m.NeedsStart(context.Background(), "") {
		t.Error("no session yet, and no start")
	}
	if !m.Lost(context.Background(), "local_gone") || !m.Gone() || m.Asked != "" || !m.NeedsStart(context.Background(), "local_gone") {
		t.Errorf("a session the host lacks is not gone: %+v", m)
	}
	if m.Lost(context.Background(), "local_gone") {
		t.Error("lost twice")
	}
}
