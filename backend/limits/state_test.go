package limits

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/template"
)

// A run's waits: the latest reset counts, the worker count halves at each
// worker's limit and grows back by one per success, and the wait ends
// itself only when the automatic resume is on.
func TestStateWaitsAndWorkerCount(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC)
	var s State
	if s.Waiting() || s.MaxWorkers(4) != 4 || s.MaxWorkers(0) != 1 {
		t.Fatalf("a new state: waiting %v, max %d/%d", s.Waiting(), s.MaxWorkers(4), s.MaxWorkers(0))
	}
	if got := s.Next(now, func() bool { t.Fatal("auto asked while not waiting"); return true }); got != Free {
		t.Fatalf("Next without a wait = %v, want Free", got)
	}

	later := Limit{Kind: Usage, ResetAt: now.Add(2 * time.Hour), Message: "resets 8am"}
	w := s.Hit(later, now, 1)
	if w.Kind != Usage || !w.Until.Equal(later.ResetAt) || !w.Since.Equal(now) || w.Message != "resets 8am" {
		t.Fatalf("wait = %+v", w)
	}
	s.Lower(4)
	// A sooner limit does not shorten the run's wait.
	s.Hit(Limit{Kind: Rate, RetryAfter: time.Minute}, now, 1)
	s.Lower(4)
	if !s.Waiting() || !s.WaitUntil.Equal(later.ResetAt) || s.WaitKind != Usage || s.Streak != 2 {
		t.Fatalf("after two limits: %+v", s)
	}
	if s.Cap != 1 || s.MaxWorkers(4) != 1 {
		t.Fatalf("cap %d after two limits of 4 workers, want 1", s.Cap)
	}

	if got := s.Next(now.Add(time.Hour), func() bool { return true }); got != Hold {
		t.Fatalf("Next before the reset = %v, want Hold", got)
	}
	// Over, with the automatic resume off: said once, then held.
	off := func() bool { return false }
	if got := s.Next(later.ResetAt, off); got != Due || !s.Due {
		t.Fatalf("Next at the reset, resume off = %v (due %v), want Due", got, s.Due)
	}
	if got := s.Next(later.ResetAt, off); got != Hold {
		t.Fatalf("Next once due = %v, want Hold", got)
	}
	if got := s.Next(later.ResetAt, func() bool { return true }); got != Over {
		t.Fatalf("Next at the reset, resume on = %v, want Over", got)
	}
	if kind := s.End(); kind != Usage || s.Waiting() || s.Due || s.WaitKind != "" {
		t.Fatalf("End = %s, state %+v", kind, s)
	}

	s.Success(4)
	s.Success(4)
	if s.Streak != 0 || s.Cap != 3 {
		t.Fatalf("after two successes: streak %d, cap %d", s.Streak, s.Cap)
	}
	s.Success(4)
	if s.Cap != 0 || s.MaxWorkers(4) != 4 {
		t.Fatalf("back at maxWorkers: cap %d", s.Cap)
	}
}

// A worker's book: a limit counts, the budget does not, and the time
// waited is kept apart from the worker timeout.
func TestBookHoldAndRelease(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC)
	var b Book
	b.Hold(Wait{Kind: Overload, Since: now})
	if b.Limits != 1 || b.Wait == nil {
		t.Fatalf("after a limit: %+v", b)
	}
	if kind := b.Release(now.Add(90 * time.Second)); kind != Overload || b.Wait != nil || b.Waited != 90*time.Second {
		t.Fatalf("Release = %s, book %+v", kind, b)
	}
	b.Hold(Wait{Kind: Budget, Since: now})
	if b.Limits != 1 {
		t.Errorf("a budget wait counted as a limit: %d", b.Limits)
	}
	if kind := b.Release(now.Add(-time.Second)); kind != Budget || b.Waited != 90*time.Second {
		t.Errorf("a clock that went back added %s", b.Waited-90*time.Second)
	}
}

// The stored shapes stay the ones runs were stored with.
func TestStateJSON(t *testing.T) {
	t.Parallel()
	until := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	s := State{WaitUntil: &until, WaitKind: Rate, Due: true, Streak: 2, Cap: 1,
		MainWait: &Wait{Kind: Rate, Since: until}, Budget: BudgetState{MaxCostUSD: 2, Raised: true}, Simulated: true}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"waitUntil"`, `"waitKind":"rate_limit"`, `"limitDue":true`, `"limitStreak":2`, `"workerCap":1`,
		`"mainWait"`, `"budget":{"maxCostUsd":2,"raised":true}`, `"simulated":true`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("%s lacks %s", b, key)
		}
	}
	book, err := json.Marshal(Book{Wait: &Wait{Kind: Usage, Since: until}, Limits: 1, Waited: time.Second})
	if err != nil || !strings.Contains(string(book), `"wait":{"kind":"usage_limit"`) || !strings.Contains(string(book), `"waited":1000000000`) {
		t.Errorf("book = %s, %v", book, err)
	}
}

func TestWaitText(t *testing.T) {
	t.Parallel()
	now := time.Now()
	if got := WaitText(now.Add(time.Minute), now); !strings.HasPrefix(got, "waiting for the limit, resumes at ") || len(got) != len("waiting for the limit, resumes at 15:04") {
		t.Errorf("today: %q", got)
	}
	if got := WaitText(now.Add(72*time.Hour), now); !strings.Contains(got, now.Add(72*time.Hour).Local().Format("Mon 2 Jan")) {
		t.Errorf("another day: %q", got)
	}
}

// The budget warns once at 80 %, pauses at the cap when the run can pause,
// and a raise must be above what was used.
func TestBudget(t *testing.T) {
	t.Parallel()
	configured := &template.Budget{MaxCostUSD: 1}
	var s State
	b := s.BudgetNow(configured)
	if b.MaxCostUSD != 1 || s.BudgetNow(nil) != (template.Budget{}) {
		t.Fatalf("budget now = %+v", b)
	}
	if step, _ := s.CheckBudget(template.Budget{}, 100, 1e9, true); step != BudgetOK {
		t.Errorf("no cap: %v", step)
	}
	if step, _ := s.CheckBudget(b, 0.5, 0, true); step != BudgetOK {
		t.Errorf("half used: %v", step)
	}
	step, used := s.CheckBudget(b, 0.8, 0, true)
	if step != BudgetWarn || used < 0.8 || !s.Budget.Warned {
		t.Fatalf("80 %%: %v %v %+v", step, used, s.Budget)
	}
	if step, _ := s.CheckBudget(b, 0.9, 0, true); step != BudgetOK {
		t.Errorf("warned twice: %v", step)
	}
	if step, _ := s.CheckBudget(b, 1, 0, false); step != BudgetOK || s.Budget.Paused {
		t.Errorf("used up while the run cannot pause: %v %+v", step, s.Budget)
	}
	if step, _ := s.CheckBudget(b, 1, 0, true); step != BudgetPause || !s.Budget.Paused {
		t.Errorf("used up: %v %+v", step, s.Budget)
	}
	// Tokens count as much as the cost.
	if got := Used(template.Budget{MaxCostUSD: 10, MaxTokens: 100}, 1, 90); got < 0.9 || got > 0.91 {
		t.Errorf("used of cost and tokens = %v", got)
	}
	if got := Describe(template.Budget{MaxCostUSD: 2, MaxTokens: 100}, 0.5, 30); got != "$0.50 of $2.00, 30 of 100 tokens" {
		t.Errorf("describe = %q", got)
	}

	if _, _, err := s.Raise(configured, template.Budget{MaxCostUSD: -1}, 1, 0); err == nil {
		t.Error("a negative budget was taken")
	}
	if _, _, err := s.Raise(configured, template.Budget{MaxCostUSD: 1}, 1, 0); err == nil || !strings.Contains(err.Error(), "not above what the run used ($1.00 of $1.00)") {
		t.Errorf("a budget not above the use: %v", err)
	}
	nb, wasPaused, err := s.Raise(configured, template.Budget{MaxTokens: 1000}, 0.85, 10)
	if err != nil || !wasPaused || nb != (template.Budget{MaxCostUSD: 1, MaxTokens: 1000}) {
		t.Fatalf("raise = %+v %v %v", nb, wasPaused, err)
	}
	if s.Budget.Paused || !s.Budget.Warned || !s.Budget.Raised || s.BudgetNow(configured) != nb {
		t.Errorf("after the raise: %+v", s.Budget)
	}
}
