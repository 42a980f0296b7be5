//go:build unix

package claudecode

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/mailbox"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/testsupport"
	"github.com/baton-app/baton/templates"
)

// allowAll answers every permission prompt (questions aside) with Allow
// once: a worker's through the engine's answer path (the Inbox's
// AnswerWorker binding calls the same Engine.RespondPermission), the main
// session's through the host (as the Sessions view's RespondPermission
// binding does).
func allowAll(t *testing.T, h *Host) func(*engine.Engine, engine.Snapshot) {
	asked := map[string]bool{}
	return func(eng *engine.Engine, s engine.Snapshot) {
		for _, w := range s.Workers {
			if w.Waiting != nil && w.Waiting.ToolName != "AskUserQuestion" && !asked[w.Waiting.RequestID] {
				asked[w.Waiting.RequestID] = true
				if err := eng.RespondPermission(context.Background(), s.Run.ID, w.TaskID, session.AllowOnce, nil); err != nil {
					t.Errorf("answer %s's prompt: %v", w.TaskID, err)
				}
			}
		}
		pending, _ := h.Pending(context.Background())
		for _, p := range pending {
			if p.SessionID == session.ID(s.Run.MainSessionID) && p.ToolName != "AskUserQuestion" && !asked[p.RequestID] {
				asked[p.RequestID] = true
				if err := h.RespondPermission(context.Background(), p.RequestID, session.AllowOnce, nil); err != nil {
					t.Errorf("answer the main session's prompt: %v", err)
				}
			}
		}
	}
}

// docsProject is a small project of two components in two languages,
// without tests to run.
func docsProject(t *testing.T) string {
	t.Helper()
	return testsupport.Project(t, map[string]string{
		"README.md":       "# shop\n\nA tiny shop: a cart and a stock.\n",
		"cart/cart.py":    "def total(prices):\n    return sum(prices)\n",
		"stock/stock.js":  "export function count(items) {\n  return items.length;\n}\n",
		"stock/README.md": "# stock\n\nCounts what is in stock.\n",
	})
}

// requiredValues gives each required template variable without a default
// a value.
func requiredValues(tmpl template.Template) map[string]any {
	vars := map[string]any{}
	for name, v := range tmpl.Variables {
		if !v.Required || v.Default != nil && v.Default != "" {
			continue
		}
		switch {
		case v.Type == "select" && len(v.Options) > 0:
			vars[name] = v.Options[0]
		case v.Type == "number":
			vars[name] = 1
		case v.Type == "boolean":
			vars[name] = true
		case v.Type == "list":
			vars[name] = []string{"cart"}
		default:
			vars[name] = "Make the code easier to read"
		}
	}
	return vars
}

// TestEverySystemTemplateOnTheCLI runs each system template end to end
// through the engine, this host, the real pinned CLI and model-sim on the
// fixture project: every task completes; the templates that write (the
// request asks for documentation) leave each worker's files in the folder,
// written by the agent (pages, or test-coverage's tests), while the
// read-only ones (code-review and exploration in plan mode, bug-hunt's
// findings) change no file and report in their output; the files the
// workers name exist; and team-review's mailbox holds an assignment for
// each task and each task's approval. Templates run side by side, three at
// a time.
func TestEverySystemTemplateOnTheCLI(t *testing.T) {
	ids := templates.SystemIDs()
	if len(ids) < 9 {
		t.Fatalf("system templates %v", ids)
	}
	slots := make(chan struct{}, 3)
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			slots <- struct{}{}
			defer func() { <-slots }()
			r := newRig(t, "happy", func(o *Options) { o.IdleStop = 500 * time.Millisecond })
			tmpl := systemTemplate(t, id)
			tmpl.Config.MaxWorkers = 3
			dir := docsProject(t)
			before := testsupport.ReadTree(t, dir, mailbox.DirName)
			mail := tmpl.Config.Transport == engine.TransportMailbox
			assigned := map[string]bool{}
			allow := allowAll(t, r.host)
			start := time.Now()
			snap, ev := runEngineWith(t, r.host, tmpl, dir, "Document this project", requiredValues(tmpl), func(eng *engine.Engine, s engine.Snapshot) {
				allow(eng, s)
				if mail {
					for _, a := range assignments(dir) {
						assigned[a.TaskID] = assigned[a.TaskID] || a.Type == "task_assignment" && a.Instructions != ""
					}
				}
			})
			t.Logf("%s: %d tasks in %s", id, snap.Run.TasksTotal, time.Since(start).Round(100*time.Millisecond))
			if snap.Run.Status != "completed" || snap.Run.TasksTotal == 0 || snap.Run.TasksCompleted != snap.Run.TasksTotal {
				t.Fatalf("run %s: %d of %d completed: %s", snap.Run.Status, snap.Run.TasksCompleted, snap.Run.TasksTotal, snap.Run.Error)
			}
			if ev.count(engine.EventWorkerCompleted) != snap.Run.TasksTotal {
				t.Errorf("%d worker:completed events for %d tasks", ev.count(engine.EventWorkerCompleted), snap.Run.TasksTotal)
			}
			files := testsupport.ReadTree(t, dir, mailbox.DirName)
			var changed []string
			for name, text := range files {
				if before[name] != text {
					changed = append(changed, name)
				}
			}
			readOnly := id == "code-review" || id == "exploration" || id == "bug-hunt"
			switch {
			case readOnly && len(changed) > 0:
				t.Errorf("a read-only template changed %v", changed)
			case !readOnly && len(changed) == 0:
				t.Error("no worker wrote a file")
			}
			for _, w := range snap.Workers {
				if w.Summary == "" || w.Unstructured || w.CostUSD <= 0 || w.Tools.Total == 0 {
					t.Errorf("worker %s: summary %q, unstructured %v, cost %v, tools %+v", w.TaskID, w.Summary, w.Unstructured, w.CostUSD, w.Tools)
				}
				for _, f := range w.OutputFiles {
					if _, ok := files[filepath.ToSlash(f)]; !ok {
						t.Errorf("worker %s names %s, which is not in the folder", w.TaskID, f)
					}
				}
				// Its work: files the agent wrote, or (read-only) its report.
				if readOnly && w.Output == "" {
					t.Errorf("worker %s of a read-only template reports no output", w.TaskID)
				}
				if !readOnly && len(w.OutputFiles) == 0 {
					t.Errorf("worker %s names no file it wrote", w.TaskID)
				}
				for _, f := range w.OutputFiles {
					if text := files[filepath.ToSlash(f)]; !strings.Contains(text, "Baton's scripted agent (no AI)") {
						t.Errorf("worker %s's %s is not the agent's work: %q", w.TaskID, f, text)
					}
				}
				if mail && !assigned[w.TaskID] {
					t.Errorf("no task_assignment of %s was seen in to-developer.json while it ran", w.TaskID)
				}
			}
			if mail {
				checkMailbox(t, dir, snap)
			}
			if tmpl.Phases.Review.Enabled && ev.count(engine.EventWorkerAwaitingReview) < snap.Run.TasksTotal {
				t.Errorf("%d tasks reviewed of %d", ev.count(engine.EventWorkerAwaitingReview), snap.Run.TasksTotal)
			}
		})
	}
}

// assignments are the messages of the mailbox's to-developer.json now.
func assignments(dir string) []mailbox.TaskAssignment {
	var mf struct {
		Messages []mailbox.TaskAssignment `json:"messages"`
	}
	b, err := os.ReadFile(filepath.Join(dir, mailbox.DirName, filepath.FromSlash(mailbox.ToDeveloper)))
	if err != nil || json.Unmarshal(b, &mf) != nil {
		return nil
	}
	return mf.Messages
}

// checkMailbox checks the files of the team-review mailbox after a run:
// each task completed in queue.json, assigned and approved in log.md, and
// its messages cleared from to-developer.json once approved.
func checkMailbox(t *testing.T, dir string, snap engine.Snapshot) {
	t.Helper()
	root := filepath.Join(dir, mailbox.DirName)
	var q mailbox.Queue
	qb, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(mailbox.QueueFile)))
	if err != nil || json.Unmarshal(qb, &q) != nil {
		t.Fatalf("queue.json: %v\n%s", err, qb)
	}
	log, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(mailbox.LogFile)))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range snap.Workers {
		done := false
		for _, qt := range q.Tasks {
			done = done || qt.TaskID == w.TaskID && qt.State == mailbox.Completed
		}
		if !done {
			t.Errorf("%s is not completed in queue.json:\n%s", w.TaskID, qb)
		}
		if !strings.Contains(string(log), w.TaskID+": assigned \"") || !strings.Contains(string(log), w.TaskID+": approved") {
			t.Errorf("log.md does not say %s was assigned and approved:\n%s", w.TaskID, log)
		}
	}
	if q.Run != snap.Run.ID || len(q.Tasks) != snap.Run.TasksTotal {
		t.Errorf("queue.json of run %q with %d tasks, want %s with %d", q.Run, len(q.Tasks), snap.Run.ID, snap.Run.TasksTotal)
	}
	if left := assignments(dir); len(left) != 0 {
		t.Errorf("to-developer.json keeps %d messages after every task was approved", len(left))
	}
}

// TestQuestionAnsweredThroughTheEngine: a worker's AskUserQuestion call
// through the real CLI waits on its worker card as a question, and the
// answer given through the engine (the window's AnswerWorkerQuestion
// binding calls the same Engine.AnswerQuestion) reaches the CLI's tool
// call; the run completes.
func TestQuestionAnsweredThroughTheEngine(t *testing.T) {
	r := newRig(t, "happy")
	if err := r.sim.SetScenario("task_001", "asks-question"); err != nil {
		t.Fatal(err)
	}
	tmpl := systemTemplate(t, "documentation")
	tmpl.Config.MaxWorkers = 2
	allow := allowAll(t, r.host)
	answered := map[string]string{}
	snap, ev := runEngine(t, r.host, tmpl, project(t), "Document this project", func(eng *engine.Engine, s engine.Snapshot) {
		for _, w := range s.Workers {
			if w.Waiting == nil || w.Waiting.ToolName != "AskUserQuestion" {
				continue
			}
			if _, ok := answered[w.Waiting.RequestID]; ok {
				continue
			}
			var in struct {
				Questions []struct {
					Question string `json:"question"`
				} `json:"questions"`
			}
			if err := json.Unmarshal(w.Waiting.Input, &in); err != nil || len(in.Questions) == 0 {
				t.Fatalf("the question's input: %s (%v)", w.Waiting.Input, err)
			}
			answers := map[string]string{in.Questions[0].Question: "The store first"}
			answered[w.Waiting.RequestID] = w.TaskID
			if err := eng.AnswerQuestion(context.Background(), s.Run.ID, w.TaskID, answers); err != nil {
				t.Errorf("AnswerQuestion %s: %v", w.TaskID, err)
			}
		}
		allow(eng, s)
	})
	if len(answered) == 0 {
		t.Fatal("no worker asked a question")
	}
	if snap.Run.Status != "completed" || snap.Run.TasksCompleted != snap.Run.TasksTotal {
		t.Fatalf("run %s: %d of %d completed: %s", snap.Run.Status, snap.Run.TasksCompleted, snap.Run.TasksTotal, snap.Run.Error)
	}
	if ev.count(engine.EventWorkerWaiting) == 0 {
		t.Error("no worker:permission event for the question")
	}
	for _, w := range snap.Workers {
		if w.TaskID != "task_001" {
			continue
		}
		// The CLI's tool result for AskUserQuestion carries the answer.
		found := false
		for _, e := range entries(t, r.host, session.ID(w.SessionID)) {
			if e.Type == "user" && strings.Contains(string(e.raw), "tool_result") && strings.Contains(string(e.raw), "The store first") {
				found = true
			}
		}
		if !found {
			t.Errorf("the answer is not in task_001's transcript as the question's tool result")
		}
	}
}
