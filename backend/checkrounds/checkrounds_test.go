package checkrounds

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/checks"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/store"
)

// A baseline, then a round after the workers in which a check that passed
// fails: the round's row says broken, a verification that says "pass" is
// turned into a failure naming the check, and a round of an earlier state
// is stale.
func TestRoundsJudgeAgainstTheBaseline(t *testing.T) {
	dir := t.TempDir()
	// The check passes while ok exists.
	if err := os.WriteFile(filepath.Join(dir, "ok"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	st := New([]string{"test -e ok", "true"})
	if !st.HoldsWorkers() || st.IsRunning() {
		t.Fatalf("a new run's workers wait for the baseline: %+v", st)
	}
	now := time.Unix(100, 0)

	rn, msg := st.Start(0, time.Minute)
	if !strings.Contains(msg, "baseline") || !st.IsRunning() {
		t.Fatalf("baseline start: %q %+v", msg, st)
	}
	base, msg, stale := st.Ended(rn.Run(context.Background(), nil, dir, ""), nil, "r1", now)
	if stale || len(base) != 2 || base[0].Verdict != string(checks.Baseline) || base[0].Status != "passed" {
		t.Fatalf("baseline rows %+v %v", base, stale)
	}
	if !strings.Contains(msg, "template's checks") || st.HoldsWorkers() || !st.AfterDue(0) {
		t.Fatalf("after the baseline: %q %+v", msg, st)
	}

	// The workers remove ok.
	if err := os.Remove(filepath.Join(dir, "ok")); err != nil {
		t.Fatal(err)
	}
	rn, _ = st.Start(1, time.Minute)
	after, msg, stale := st.Ended(rn.Run(context.Background(), nil, dir, ""), base, "r1", now)
	if stale || len(after) != 2 || after[0].Verdict != string(checks.Broken) || after[1].Verdict != string(checks.Passes) {
		t.Fatalf("round rows %+v", after)
	}
	if !strings.HasPrefix(msg, "After the workers: ") || st.AfterDue(0) {
		t.Fatalf("after the workers: %q %+v", msg, st)
	}
	stored := append(append([]store.CheckResult{}, base...), after...)
	v := Verified(&protocol.Verification{Status: "pass"}, stored)
	if v.Status != "fail" || len(v.Issues) != 1 || !strings.Contains(v.Issues[0].Description, "test -e ok") {
		t.Fatalf("a pass while a check the run broke fails: %+v", v)
	}
	if p := st.Prompt(stored); !strings.Contains(p, "test -e ok") {
		t.Fatalf("the verification prompt does not name the broken check: %q", p)
	}

	// A round that ends after the state moved on is stale and changes nothing.
	if rows, _, stale := st.Ended(Round{Round: 1}, base, "r1", now); !stale || rows != nil {
		t.Fatalf("a stale round was taken: %+v", rows)
	}
	if r := Restored(&State{On: true, Running: 2}); r.IsRunning() {
		t.Fatal("a round that ran in a stopped process still runs after a restart")
	}
}
