package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// realAgent answers the prompts of the system templates (backend/template's
// embedded _default text) by the headings they use.
func realAgent(tasks []map[string]any) agentFunc {
	return func(h *fakeHost, s *fakeSession, text string) {
		phase := s.asked
		switch {
		case strings.Contains(text, "## Step 1: analysis"):
			phase = "analysis"
		case strings.Contains(text, "## Step 2: task planning"):
			phase = "task_list"
		case strings.Contains(text, "## Your task: "):
			phase = "completion"
			rest := text[strings.Index(text, "## Your task: ")+len("## Your task: "):]
			s.asked = "completion " + strings.Fields(rest)[0]
		case strings.Contains(text, "## Step 3: aggregation"):
			phase = "aggregation"
		case strings.Contains(text, "## Verification"):
			phase = "verification"
		}
		if !strings.HasPrefix(s.asked, "completion") {
			s.asked = phase
		}
		scripted(tasks, nil)(h, s, "ASK "+s.asked)
	}
}

func TestSystemTemplateRun(t *testing.T) {
	t.Parallel()
	mgr, err := template.New(t.TempDir(), template.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"documentation", "_default"} {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			tmpl, err := mgr.Get(id)
			if err != nil {
				t.Fatal(err)
			}
			tmpl.Config.AutoConfirm = true
			tmpl.Config.PollInterval = 0.01
			tasks := plan(planned{"task_001", 5, nil}, planned{"task_002", 8, nil}, planned{"task_003", 5, []string{"task_001"}})
			dir := t.TempDir()
			st, err := store.Open(dir+"/baton.db", store.WithLogger(quiet))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			host := newFakeHost(realAgent(tasks), true)
			rec := newRecorder(t, st)
			eng, err := New(Options{Store: st, Host: host, Templates: templateMap{id: tmpl}, Emitter: rec, Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if err := eng.Shutdown(ctx); err != nil {
					t.Error(err)
				}
				rec.check()
			}()
			ctx := context.Background()
			run, err := eng.Create(ctx, CreateRequest{TemplateID: id, Cwd: dir, Request: "Document the project"})
			if err != nil {
				t.Fatal(err)
			}
			if err := eng.Start(ctx, run.ID); err != nil {
				t.Fatal(err)
			}
			wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			run, err = eng.Wait(wctx, run.ID)
			if err != nil || run.Status != "completed" || run.TasksCompleted != 3 {
				t.Fatalf("run = %s %d: %v %s", run.Status, run.TasksCompleted, err, run.Error)
			}
			host.mu.Lock()
			defer host.mu.Unlock()
			for _, s := range host.starts {
				for _, v := range []string{"{USER_REQUEST}", "{CWD}", "{TASK_ID}", "{TASK_DESCRIPTION}", "{START_DELIMITER}", "{OUTPUT_DIR}"} {
					if strings.Contains(s.Message, v) {
						t.Errorf("start message holds %s", v)
					}
				}
				if isWorkerSession(s.ID) && (s.Model == "" || s.PermissionMode != tmpl.Config.PermissionMode) {
					t.Errorf("worker started with model %q, mode %q", s.Model, s.PermissionMode)
				}
			}
			if !strings.Contains(host.starts[0].Message, "Document the project") || !strings.Contains(host.starts[0].Message, dir) {
				t.Errorf("analysis prompt lacks the request or folder")
			}
			if id == "documentation" && !strings.Contains(host.starts[0].Message, "docs") {
				t.Errorf("the template variable OUTPUT_DIR default was not substituted")
			}
			agg := ""
			for _, s := range host.sends {
				if strings.Contains(s, "## Step 3: aggregation") {
					agg = s
				}
			}
			for _, task := range []string{"task_001", "task_002", "task_003"} {
				if !strings.Contains(agg, fmt.Sprintf("Did %s", task)) {
					t.Errorf("aggregation prompt lacks the report of %s", task)
				}
			}
		})
	}
}
