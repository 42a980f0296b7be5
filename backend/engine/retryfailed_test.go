package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/template"
)

// A worker that reports status failed is retried in a new session while
// maxRetries allows, unless the template says retryFailedReports: false.
func TestFailedReportIsRetried(t *testing.T) {
	for _, retry := range []bool{true, false} {
		t.Run(map[bool]string{true: "default", false: "retryFailedReports false"}[retry], func(t *testing.T) {
			tasks := plan(planned{"a", 5, nil})
			tmpl := testTemplate(func(tp *template.Template) {
				tp.Config.MaxRetries = 2
				if !retry {
					off := false
					tp.Config.RetryFailed = &off
				}
			})
			h := newHarness(t, tmpl, scripted(tasks, func(h *fakeHost, s *fakeSession, task string, _ bool) bool {
				if strings.HasSuffix(string(s.id), "_worker_a") {
					s.say(block("completion", map[string]any{"task_id": "a", "status": "failed", "error": "the build broke", "summary": "x"}))
					s.endTurn(h)
					return true
				}
				return false
			}), true)
			id := h.create()
			if err := h.eng.Start(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			run := h.wait(id)
			w := h.workers(id)["a"]
			if retry {
				if w.Status != "completed" || w.RetryCount != 1 || run.TasksCompleted != 1 {
					t.Fatalf("worker a = %s after %d retries (%s); run %s with %d completed", w.Status, w.RetryCount, w.Error, run.Status, run.TasksCompleted)
				}
				return
			}
			if w.Status != "failed" || w.RetryCount != 0 || !strings.Contains(w.Error, "the build broke") {
				t.Fatalf("worker a = %s after %d retries: %s", w.Status, w.RetryCount, w.Error)
			}
		})
	}
}

// noFailedReportRetries sets retryFailedReports: false, for tests about a
// reported failure that stays.
func noFailedReportRetries(tp *template.Template) {
	off := false
	tp.Config.RetryFailed = &off
}
