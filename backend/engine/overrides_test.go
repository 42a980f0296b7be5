package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/templates"
)

func ptr[T any](v T) *T { return &v }

func (h *harness) createWith(o *Overrides) (store.Run, error) {
	return h.eng.Create(context.Background(), CreateRequest{TemplateID: "test", Cwd: h.dir, Request: "Document everything", Overrides: o})
}

// The limits Create checks are the ones the template schema sets.
func TestOverrideLimitsMatchTheSchema(t *testing.T) {
	t.Parallel()
	var schema struct {
		Defs struct {
			Config struct {
				Properties struct {
					MaxWorkers     struct{ Minimum, Maximum int }
					MaxRetries     struct{ Minimum, Maximum int }
					PermissionMode struct{ Enum []string }
				}
			}
			Seconds struct{ Minimum, Maximum int }
		} `json:"$defs"`
	}
	if err := json.Unmarshal(templates.Schema(), &schema); err != nil {
		t.Fatal(err)
	}
	p := schema.Defs.Config.Properties
	if p.MaxWorkers.Minimum != template.OverrideMinWorkers || p.MaxWorkers.Maximum != template.OverrideMaxWorkers {
		t.Errorf("schema maxWorkers %d–%d, engine %d–%d", p.MaxWorkers.Minimum, p.MaxWorkers.Maximum, template.OverrideMinWorkers, template.OverrideMaxWorkers)
	}
	if p.MaxRetries.Minimum != 0 || p.MaxRetries.Maximum != template.OverrideMaxRetries {
		t.Errorf("schema maxRetries %d–%d, engine 0–%d", p.MaxRetries.Minimum, p.MaxRetries.Maximum, template.OverrideMaxRetries)
	}
	if s := schema.Defs.Seconds; s.Minimum != 0 || s.Maximum != template.OverrideMaxTimeout {
		t.Errorf("schema seconds %d–%d, engine 0–%d", s.Minimum, s.Maximum, template.OverrideMaxTimeout)
	}
	if !slices.Equal(p.PermissionMode.Enum, session.PermissionModes) {
		t.Errorf("schema permission modes %v, engine %v", p.PermissionMode.Enum, session.PermissionModes)
	}
}

func TestOverridesLimitWorkersAndAreStoredWithTheRun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		overrides *Overrides
		workers   int
		mode      string
	}{
		{"template settings", nil, 3, "acceptEdits"},
		{"one worker in plan mode", &Overrides{MaxWorkers: ptr(1), PermissionMode: ptr("plan")}, 1, "plan"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tasks := plan(planned{"a", 5, nil}, planned{"b", 5, nil}, planned{"c", 5, nil}, planned{"d", 5, nil})
			tmpl := testTemplate(func(tp *template.Template) { tp.Config.MaxWorkers = 3; tp.Phases.Verification.Enabled = false })
			// Workers hang until the test finishes them.
			h := newHarness(t, tmpl, scripted(tasks, func(*fakeHost, *fakeSession, string, bool) bool { return true }), true)
			run, err := h.createWith(tc.overrides)
			if err != nil {
				t.Fatal(err)
			}
			stored, err := h.st.Run(context.Background(), run.ID)
			if err != nil {
				t.Fatal(err)
			}
			var kept template.Template
			if err := json.Unmarshal(stored.Template, &kept); err != nil {
				t.Fatal(err)
			}
			if kept.Config.MaxWorkers != tc.workers || kept.Config.PermissionMode != tc.mode {
				t.Errorf("stored template: maxWorkers %d, permission mode %s; want %d, %s",
					kept.Config.MaxWorkers, kept.Config.PermissionMode, tc.workers, tc.mode)
			}
			if kept.Config.WorkerTimeout != tmpl.Config.WorkerTimeout || kept.Config.MaxRetries != tmpl.Config.MaxRetries {
				t.Errorf("settings that were not overridden changed: %+v", kept.Config)
			}
			if err := h.eng.Start(context.Background(), run.ID); err != nil {
				t.Fatal(err)
			}
			if tc.overrides == nil {
				// Without overrides the template's three workers run at once.
				h.until("three workers running", func() bool {
					h.host.mu.Lock()
					defer h.host.mu.Unlock()
					return h.host.live == 3
				})
			}
			finished := map[string]bool{}
			for len(finished) < len(tasks) {
				h.until("a worker to be running", func() bool {
					for _, w := range h.workers(run.ID) {
						if w.Status == "running" && !finished[w.TaskID] {
							return true
						}
					}
					return false
				})
				active := 0
				for _, w := range h.workers(run.ID) {
					if w.Status == "running" || w.Status == "spawning" {
						active++
					}
				}
				if active > tc.workers {
					t.Fatalf("%d workers active, maxWorkers is %d", active, tc.workers)
				}
				h.host.mu.Lock()
				var next session.ID
				var task string
				for _, sid := range h.host.order {
					if m := workerRe.FindStringSubmatch(string(sid)); m != nil && !finished[m[1]] && h.host.sessions[sid].turnRunning {
						next, task = sid, m[1]
						break
					}
				}
				h.host.mu.Unlock()
				if next == "" {
					continue
				}
				finished[task] = true
				h.host.finishTurn(next, block("completion", map[string]any{"task_id": task, "status": "success"}))
			}
			if done := h.wait(run.ID); done.Status != "completed" || done.TasksCompleted != 4 {
				t.Fatalf("run = %s, %d completed", done.Status, done.TasksCompleted)
			}
			h.host.mu.Lock()
			defer h.host.mu.Unlock()
			if h.host.maxLive != tc.workers {
				t.Errorf("%d workers ran at once, want %d", h.host.maxLive, tc.workers)
			}
			for _, s := range h.host.starts {
				if s.PermissionMode != tc.mode {
					t.Errorf("session %s started in permission mode %q, want %q", s.ID, s.PermissionMode, tc.mode)
				}
			}
		})
	}
}

func TestOverriddenTimeoutAndRetries(t *testing.T) {
	t.Parallel()
	tasks := plan(planned{"a", 5, nil})
	// The template sets no timeout at all; the run asks for 60 s and no retry.
	tmpl := testTemplate(func(tp *template.Template) {
		tp.Config.WorkerTimeout, tp.Config.InactivityTimeout, tp.Config.MaxRetries = 0, 0, 2
	})
	h := newHarness(t, tmpl, scripted(tasks, func(*fakeHost, *fakeSession, string, bool) bool { return true }), true)
	run, err := h.createWith(&Overrides{WorkerTimeout: ptr(60), MaxRetries: ptr(0)})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.eng.Start(context.Background(), run.ID); err != nil {
		t.Fatal(err)
	}
	h.until("worker a running", func() bool { return h.workers(run.ID)["a"].Status == "running" })
	h.untilf(func() string {
		w := h.workers(run.ID)["a"]
		return fmt.Sprintf("worker a to fail: %s, %s", w.Status, w.Error)
	}, func() bool {
		h.clock.Add(20 * time.Second)
		return h.workers(run.ID)["a"].Status == "failed"
	})
	h.wait(run.ID)
	w := h.workers(run.ID)["a"]
	if !strings.Contains(w.Error, "worker timeout of 60 s") || w.RetryCount != 0 {
		t.Errorf("worker a: %q after %d retries", w.Error, w.RetryCount)
	}
	if n := h.host.workerStarts()["a"]; n != 1 {
		t.Errorf("worker a started %d times with maxRetries 0", n)
	}
}

func TestBadOverridesAreRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testTemplate(nil), scripted(nil, nil), true)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		o    Overrides
		want []string
	}{
		{"no workers", Overrides{MaxWorkers: ptr(0)}, []string{"maxWorkers", "from 1 to 20, not 0"}},
		{"too many workers", Overrides{MaxWorkers: ptr(21)}, []string{"maxWorkers", "not 21"}},
		{"negative worker timeout", Overrides{WorkerTimeout: ptr(-1)}, []string{"workerTimeout", "from 0 to 86400 seconds"}},
		{"worker timeout over a day", Overrides{WorkerTimeout: ptr(86401)}, []string{"workerTimeout", "not 86401"}},
		{"negative inactivity timeout", Overrides{InactivityTimeout: ptr(-30)}, []string{"inactivityTimeout", "not -30"}},
		{"too many retries", Overrides{MaxRetries: ptr(11)}, []string{"maxRetries", "from 0 to 10"}},
		{"unknown permission mode", Overrides{PermissionMode: ptr("yolo")}, []string{"permissionMode", `not "yolo"`, "bypassPermissions"}},
		{"two at once", Overrides{MaxWorkers: ptr(99), PermissionMode: ptr("")}, []string{"maxWorkers", "permissionMode"}},
		{"a rule that does not parse", Overrides{Allow: []string{"Bash(go test:*)", "bash(ls)"}, Deny: []string{"Edit("}},
			[]string{"permission rules", `"bash(ls)"`, `"Edit("`}},
	} {
		_, err := h.createWith(&tc.o)
		if !errors.Is(err, ErrBadRequest) {
			t.Errorf("%s: Create = %v, want a bad request", tc.name, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not mention %q", tc.name, err, w)
			}
		}
	}
	if p, _ := h.st.Runs(ctx, store.HistoryQuery{}); p.Total != 0 {
		t.Errorf("refused creates stored %d runs", p.Total)
	}
	h.host.mu.Lock()
	starts := len(h.host.starts)
	h.host.mu.Unlock()
	if starts != 0 {
		t.Errorf("refused creates started %d sessions", starts)
	}
	// The edges of each range are accepted.
	run, err := h.createWith(&Overrides{MaxWorkers: ptr(20), WorkerTimeout: ptr(0), InactivityTimeout: ptr(86400),
		MaxRetries: ptr(0), PermissionMode: ptr("bypassPermissions")})
	if err != nil {
		t.Fatalf("Create at the limits: %v", err)
	}
	if p, _ := h.st.Runs(ctx, store.HistoryQuery{}); p.Total != 1 || p.Runs[0].ID != run.ID {
		t.Errorf("history after one good create = %+v", p)
	}
}
