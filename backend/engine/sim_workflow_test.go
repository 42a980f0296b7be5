package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/claude"
	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/hosts"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/simulator"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// TestSimulatorWorkflows runs the seed workflows (review gate, clarification,
// QA remediation) end to end through real Chromium and the simulator page.
func TestSimulatorWorkflows(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Chromium; skipped with -short")
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("Chromium is needed at %s (install the chromium package): %v", chromiumPath, err)
	}
	mgr, err := template.New(t.TempDir(), template.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		template string // "documentation" when empty
		scenario string
		rules    map[string]string
		tune     func(*template.Template)
		// drive is called while the run is unfinished.
		drive func(ctx context.Context, t *testing.T, eng *engine.Engine, snap engine.Snapshot)
		check func(t *testing.T, s engine.Snapshot, ev *events, tr transcripts)
	}{
		{name: "review rejects once then approves", scenario: "rejected-once",
			tune: func(tp *template.Template) {
				tp.Phases.Review = template.ReviewGate{Enabled: true, Reviewer: "orchestrator"}
			},
			check: func(t *testing.T, s engine.Snapshot, ev *events, _ transcripts) {
				if s.Run.Status != "completed" || s.Run.TasksCompleted != s.Run.TasksTotal || s.Run.TasksTotal == 0 {
					t.Fatalf("run %s: %d of %d: %s %v %s", s.Run.Status, s.Run.TasksCompleted, s.Run.TasksTotal, s.Run.Error, s.Run.Issues, s.Run.Message)
				}
				if got := ev.count(engine.EventWorkerRejected); got != s.Run.TasksTotal {
					t.Errorf("%d rejections for %d tasks", got, s.Run.TasksTotal)
				}
				for _, w := range s.Workers {
					if w.RetryCount != 1 || w.Status != "completed" {
						t.Errorf("worker %s: %s after %d retries", w.TaskID, w.Status, w.RetryCount)
					}
				}
				reviews := 0
				for _, a := range s.Answers {
					if a.Phase == "review" {
						reviews++
					}
				}
				if reviews != 2*s.Run.TasksTotal {
					t.Errorf("%d review answers for %d tasks", reviews, s.Run.TasksTotal)
				}
			}},
		{name: "team-review template with the mailbox", template: "team-review", scenario: "rejected-once",
			check: func(t *testing.T, s engine.Snapshot, ev *events, _ transcripts) {
				if s.Run.Status != "completed" || s.Run.TasksCompleted != s.Run.TasksTotal || s.Run.TasksTotal == 0 {
					t.Fatalf("run %s: %d of %d: %s %v %s", s.Run.Status, s.Run.TasksCompleted, s.Run.TasksTotal, s.Run.Error, s.Run.Issues, s.Run.Message)
				}
				if got := ev.count(engine.EventWorkerRejected); got != s.Run.TasksTotal {
					t.Errorf("%d rejections for %d tasks", got, s.Run.TasksTotal)
				}
				b, err := os.ReadFile(filepath.Join(s.Run.Cwd, ".claude-orchestrator", "logs", "log.md"))
				if err != nil || strings.Count(string(b), ": assigned \"") != s.Run.TasksTotal {
					t.Errorf("log.md = %s, %v", b, err)
				}
				// The team lead's plan names each task's files to create and
				// its architecture, which its assignment carries.
				for _, task := range s.Tasks {
					var def protocol.Task
					_ = json.Unmarshal(task.Definition, &def)
					if len(def.ExpectedOutputs) == 0 || !strings.Contains(def.Architecture, "Keep to the layout of") {
						t.Errorf("task %s: files to create %q, architecture %q", task.ID, def.ExpectedOutputs, def.Architecture)
					}
				}
			}},
		{name: "dependency deadlock", scenario: "deadlock",
			tune: func(tp *template.Template) { tp.Config.MaxRetries = 0 },
			// task_001 fails and task_002 is skipped while task_003 runs;
			// the user retries task_002, which can never start.
			drive: func(ctx context.Context, t *testing.T, eng *engine.Engine, snap engine.Snapshot) {
				byID := map[string]store.Worker{}
				for _, w := range snap.Workers {
					byID[w.TaskID] = w
				}
				if byID["task_002"].Skipped && byID["task_003"].Status == "running" {
					if err := eng.RetryWorker(ctx, snap.Run.ID, "task_002"); err != nil {
						t.Errorf("RetryWorker task_002: %v", err)
					}
				}
			},
			check: func(t *testing.T, s engine.Snapshot, ev *events, _ transcripts) {
				if s.Run.Status != "error" || !strings.Contains(s.Run.Error, "dependency deadlock") ||
					!strings.Contains(s.Run.Error, "task_002 waits for task_001 (failed)") {
					for _, w := range s.Workers {
						t.Logf("%s %s skipped=%v %q", w.TaskID, w.Status, w.Skipped, w.Error)
					}
					t.Fatalf("run %s: %q, want the dependency deadlock of task_002", s.Run.Status, s.Run.Error)
				}
			}},
		{name: "clarification is answered", rules: map[string]string{"_worker_": "clarification"},
			drive: func(ctx context.Context, t *testing.T, eng *engine.Engine, snap engine.Snapshot) {
				for _, w := range snap.Workers {
					if len(w.Questions) > 0 {
						if err := eng.Answer(ctx, snap.Run.ID, w.TaskID, "Markdown, please."); err != nil {
							t.Errorf("Answer %s: %v", w.TaskID, err)
						}
					}
				}
			},
			check: func(t *testing.T, s engine.Snapshot, ev *events, _ transcripts) {
				if s.Run.Status != "completed" || s.Run.TasksCompleted != s.Run.TasksTotal || s.Run.TasksTotal == 0 {
					t.Fatalf("run %s: %d of %d: %s %v %s", s.Run.Status, s.Run.TasksCompleted, s.Run.TasksTotal, s.Run.Error, s.Run.Issues, s.Run.Message)
				}
				if q, a := ev.count(engine.EventWorkerQuestion), ev.count(engine.EventWorkerAnswered); q != s.Run.TasksTotal || a != q {
					t.Errorf("%d questions and %d answers for %d tasks", q, a, s.Run.TasksTotal)
				}
				for _, w := range s.Workers {
					if w.RetryCount != 0 || len(w.Questions) != 0 || w.Summary == "" {
						t.Errorf("worker %s: %d retries, questions %q, summary %q", w.TaskID, w.RetryCount, w.Questions, w.Summary)
					}
				}
			}},
		{name: "sparc template with a clarification", template: "sparc", rules: map[string]string{"_worker_": "clarification"},
			drive: func(ctx context.Context, t *testing.T, eng *engine.Engine, snap engine.Snapshot) {
				for _, w := range snap.Workers {
					if len(w.Questions) > 0 {
						if err := eng.Answer(ctx, snap.Run.ID, w.TaskID, "Plain text."); err != nil {
							t.Errorf("Answer %s: %v", w.TaskID, err)
						}
					}
				}
			},
			check: func(t *testing.T, s engine.Snapshot, ev *events, tr transcripts) {
				if s.Run.Status != "completed" || s.Run.TasksCompleted != s.Run.TasksTotal || s.Run.TasksTotal == 0 {
					t.Fatalf("run %s: %d of %d: %s %v %s", s.Run.Status, s.Run.TasksCompleted, s.Run.TasksTotal, s.Run.Error, s.Run.Issues, s.Run.Message)
				}
				if q := ev.count(engine.EventWorkerQuestion); q != s.Run.TasksTotal {
					t.Errorf("%d questions for %d tasks", q, s.Run.TasksTotal)
				}
				// The question and the report after the answer both came
				// as attempt_completion.
				checkDelegation(t, s, tr, "clarification_needed", "success")
				for _, w := range s.Workers {
					if len(w.Questions) != 0 || w.Summary == "" {
						t.Errorf("worker %s: questions %q, summary %q", w.TaskID, w.Questions, w.Summary)
					}
				}
			}},
		{name: "sparc template with failing workers", template: "sparc", rules: map[string]string{"_worker_": "worker-fails"},
			check: func(t *testing.T, s engine.Snapshot, ev *events, tr transcripts) {
				if s.Run.Status != "failed" || s.Run.TasksCompleted != 0 || s.Run.TasksFailed == 0 ||
					s.Run.TasksFailed+s.Run.TasksSkipped != s.Run.TasksTotal {
					t.Fatalf("run %s: %d completed, %d failed, %d skipped of %d", s.Run.Status, s.Run.TasksCompleted,
						s.Run.TasksFailed, s.Run.TasksSkipped, s.Run.TasksTotal)
				}
				// result failure: the reason is the issue's description.
				for _, w := range s.Workers {
					if !w.Skipped && w.Error != "simulated failure: the build of the project failed" {
						t.Errorf("worker %s: reason %q", w.TaskID, w.Error)
					}
				}
				checkDelegation(t, s, tr, "failure")
			}},
		{name: "sparc template with a conflict", template: "sparc", rules: map[string]string{"_worker_": "conflict"},
			check: func(t *testing.T, s engine.Snapshot, ev *events, tr transcripts) {
				// A conflict_detected report prevents its task's completion
				// (seed 003): the task fails with the conflict recorded, its
				// dependants are skipped, and the conflicts go to aggregation;
				// with no task completed the run is failed.
				if s.Run.Status != "failed" || s.Run.TasksCompleted != 0 || s.Run.TasksFailed == 0 || s.Run.TasksTotal == 0 ||
					s.Run.TasksFailed+s.Run.TasksSkipped != s.Run.TasksTotal {
					t.Fatalf("run %s: %d completed, %d failed, %d skipped of %d: %s", s.Run.Status, s.Run.TasksCompleted,
						s.Run.TasksFailed, s.Run.TasksSkipped, s.Run.TasksTotal, s.Run.Error)
				}
				checkDelegation(t, s, tr, "conflict_detected")
				prompts := tr.text(t, s.Run.MainSessionID, "user")
				want := map[string]string{} // conflict → task
				for _, w := range s.Workers {
					if w.Skipped {
						continue
					}
					if w.Status != "failed" || !strings.HasPrefix(w.Error, "conflict: ") {
						t.Errorf("worker %s = %s %q, want failed by its conflict", w.TaskID, w.Status, w.Error)
					}
					if len(w.Conflicts) != 1 {
						t.Errorf("worker %s: conflicts %q, want one", w.TaskID, w.Conflicts)
						continue
					}
					c := w.Conflicts[0]
					file, _, _ := strings.Cut(c, ": ")
					if _, err := os.Stat(filepath.Join(s.Run.Cwd, file)); err != nil || !strings.Contains(c, " (suggested: ") {
						t.Errorf("worker %s: conflict %q names no project file with a resolution (%v)", w.TaskID, c, err)
					}
					if !strings.Contains(prompts, "Conflict to resolve: "+c+"\n") {
						t.Errorf("the aggregation prompt lacks the conflict of %s: %q", w.TaskID, c)
					}
					want[c] = w.TaskID
				}
				var agg *protocol.Aggregation
				for _, a := range s.Answers {
					if a.Phase == "aggregation" {
						agg = &protocol.Aggregation{}
						if err := json.Unmarshal(a.Data, agg); err != nil {
							t.Fatal(err)
						}
					}
				}
				if agg == nil || agg.Status != "partial" || len(agg.Conflicts) != len(want) {
					t.Fatalf("aggregation answer = %+v, want the %d conflicts", agg, len(want))
				}
				for _, c := range agg.Conflicts {
					if task, ok := want[c.Description]; !ok || strings.Join(c.Tasks, ",") != task {
						t.Errorf("aggregation conflict %+v is not one a worker reported", c)
					}
				}
			}},
		{name: "qa failure is remediated", scenario: "qa-fails",
			tune: func(tp *template.Template) {
				tp.Phases.Verification.Enabled = true
				tp.Phases.Verification.MaxRemediationRounds = 2
			},
			check: func(t *testing.T, s engine.Snapshot, ev *events, _ transcripts) {
				if s.Run.Status != "completed" || s.Run.TasksCompleted != s.Run.TasksTotal {
					t.Fatalf("run %s: %d of %d: %s %v %s", s.Run.Status, s.Run.TasksCompleted, s.Run.TasksTotal, s.Run.Error, s.Run.Issues, s.Run.Message)
				}
				if got := ev.count(engine.EventRemediation); got != 1 {
					t.Errorf("%d remediation rounds, want 1", got)
				}
				fixes := 0
				for _, task := range s.Tasks {
					if strings.HasPrefix(task.ID, "qa1-fix-") {
						fixes++
					}
				}
				if fixes == 0 || fixes > 2 {
					t.Errorf("%d remediation tasks: %+v", fixes, s.Tasks)
				}
				var phases []string
				for _, a := range s.Answers {
					phases = append(phases, a.Phase)
				}
				if got := strings.Join(phases, ","); got != "analysis,task_list,aggregation,verification,aggregation,verification" {
					t.Errorf("answers stored: %s", got)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
			defer cancel()
			host, _, err := hosts.StartSimulator(ctx, simulator.InstanceOptions{ChromePath: chromiumPath, Rules: tc.rules,
				Simulator: simulator.Options{Scenario: tc.scenario, Speed: 50, Logger: quiet}}, claude.Options{Logger: quiet})
			if err != nil {
				t.Fatalf("start the simulator: %v", err)
			}
			defer func() {
				sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer scancel()
				if err := host.Close(sctx); err != nil {
					t.Errorf("close the simulator: %v", err)
				}
			}()
			id := tc.template
			if id == "" {
				id = "documentation"
			}
			tmpl, err := mgr.Get(id)
			if err != nil {
				t.Fatal(err)
			}
			tmpl.Config.AutoConfirm = true
			if tc.tune != nil {
				tc.tune(&tmpl)
			}
			eng, ev, run, stop := startSimRun(ctx, t, host, tmpl)
			defer stop()
			for tc.drive != nil {
				snap, err := eng.Snapshot(ctx, run.ID)
				if err != nil {
					t.Fatal(err)
				}
				if store.Finished(snap.Run.Status) {
					break
				}
				tc.drive(ctx, t, eng, snap)
				select {
				case <-ctx.Done():
					t.Fatalf("the run did not finish: %s", snap.Run.Status)
				case <-time.After(20 * time.Millisecond):
				}
			}
			if _, err := eng.Wait(ctx, run.ID); err != nil {
				snap, _ := eng.Snapshot(context.Background(), run.ID)
				t.Fatalf("Wait: %v (run is %s: %s)", err, snap.Run.Status, snap.Run.Message)
			}
			snap, err := eng.Snapshot(ctx, run.ID)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, snap, ev, transcripts{ctx: ctx, host: host})
		})
	}
}

// transcripts reads sessions through the host: Chromium, the simulator
// page and the Claude Desktop adapter, as the engine reads them.
type transcripts struct {
	ctx  context.Context
	host session.Host
}

// text joins the text blocks of a session's entries of type typ ("user"
// for the prompts, "assistant" for the answers).
func (tr transcripts) text(t *testing.T, id, typ string) string {
	t.Helper()
	var b strings.Builder
	var c session.Cursor
	for {
		batch, err := tr.host.Read(tr.ctx, session.ID(id), c)
		if err != nil {
			t.Fatalf("read the transcript of %s: %v", id, err)
		}
		for _, raw := range batch.Entries {
			var e protocol.Entry
			if json.Unmarshal(raw, &e) != nil || e.Type != typ || e.Message == nil {
				continue
			}
			for _, blk := range e.Message.Content {
				if blk.Type == "text" {
					b.WriteString(blk.Text + "\n")
				}
			}
		}
		if batch.Next.Index >= batch.Total || len(batch.Entries) == 0 {
			return b.String()
		}
		c = batch.Next
	}
}

// checkDelegation checks that a sparc run spoke seed 003's dialect: the
// plan came as new_task objects on the first try (no phase block, no
// re-prompt), every worker that ran was sent its task as a new_task and
// answered with attempt_completion reports of the given results, never
// with a phase block.
func checkDelegation(t *testing.T, s engine.Snapshot, tr transcripts, results ...string) {
	t.Helper()
	var phases []string
	for _, a := range s.Answers {
		phases = append(phases, a.Phase)
		if a.Status != "valid" || a.Attempt != 0 {
			t.Errorf("answer %s: %s at attempt %d: %v", a.Phase, a.Status, a.Attempt, a.Errors)
		}
	}
	if got := strings.Join(phases, ","); got != "analysis,task_list,aggregation,verification" {
		t.Errorf("answers stored: %s", got)
	}
	plan := tr.text(t, s.Run.MainSessionID, "assistant")
	if n := strings.Count(plan, `"delegatedToMode"`); n != len(s.Tasks) || strings.Contains(plan, `"phase": "task_list"`) {
		t.Errorf("the main session wrote %d new_task objects for %d tasks:\n%s", n, len(s.Tasks), plan)
	}
	for _, task := range s.Tasks {
		var def protocol.Task
		if err := json.Unmarshal(task.Definition, &def); err != nil || def.Mode == "" || len(def.AcceptanceCriteria) == 0 {
			t.Errorf("task %s was not planned as a new_task: %s (%v)", task.ID, task.Definition, err)
		}
	}
	parser, err := protocol.NewParser(protocol.Delimiters{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, w := range s.Workers {
		if w.SessionID == "" {
			continue // skipped: it never had a session
		}
		ran++
		// The worker was delegated its task as a new_task object, with
		// what the planner wrote for it.
		prompt := tr.text(t, w.SessionID, "user")
		var sent *protocol.Task
		for _, line := range strings.Split(prompt, "\n") {
			if strings.HasPrefix(line, `{"taskId":"`+w.TaskID+`"`) {
				if resp, ok := parser.ParseText(line, protocol.Options{}).Last(protocol.PhaseTaskList); ok && resp.Dialect == protocol.DialectNewTask {
					sent = &resp.Data.(*protocol.TaskList).Tasks[0]
				}
			}
		}
		if sent == nil || sent.Mode == "" || len(sent.AcceptanceCriteria) == 0 || sent.Context == "" {
			t.Errorf("worker %s was not sent its new_task: %+v\n%s", w.TaskID, sent, prompt)
		}
		said := tr.text(t, w.SessionID, "assistant")
		if strings.Contains(said, `"phase"`) {
			t.Errorf("worker %s wrote a phase block:\n%s", w.TaskID, said)
		}
		for _, r := range results {
			if !strings.Contains(said, `"taskId": "`+w.TaskID+`"`) || !strings.Contains(said, `"result": "`+r+`"`) {
				t.Errorf("worker %s sent no attempt_completion with result %s:\n%s", w.TaskID, r, said)
			}
		}
	}
	if ran == 0 {
		t.Error("no worker ran")
	}
}
