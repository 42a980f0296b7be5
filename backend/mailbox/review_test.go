package mailbox

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

var allStates = []State{Pending, InProgress, AwaitingReview, Completed, Rejected}

func TestStateNames(t *testing.T) {
	t.Parallel()
	want := []string{"pending", "in_progress", "awaiting_review", "completed", "rejected"}
	for i, s := range allStates {
		if s.String() != want[i] {
			t.Errorf("%d.String() = %q, want %q", int(s), s, want[i])
		}
		p, err := ParseState(want[i])
		if err != nil || p != s {
			t.Errorf("ParseState(%q) = %v, %v", want[i], p, err)
		}
		b, err := json.Marshal(s)
		var back State
		if err != nil || string(b) != `"`+want[i]+`"` || json.Unmarshal(b, &back) != nil || back != s {
			t.Errorf("JSON round trip of %s: %s %v %v", s, b, err, back)
		}
	}
	if _, err := ParseState("done"); !errors.Is(err, ErrUnknownState) {
		t.Errorf("ParseState(done) error %v, want ErrUnknownState", err)
	}
	if got := State(9).String(); got != "State(9)" {
		t.Errorf("State(9).String() = %q", got)
	}
	if _, err := json.Marshal(State(-1)); err == nil {
		t.Error("marshalling State(-1) worked")
	}
}

// TestCanTransition covers every pair of states: exactly the arrows of
// seed 001's diagram are allowed.
func TestCanTransition(t *testing.T) {
	t.Parallel()
	allowed := map[[2]State]bool{
		{Pending, InProgress}:        true,
		{InProgress, AwaitingReview}: true,
		{InProgress, Rejected}:       true,
		{AwaitingReview, Completed}:  true,
		{AwaitingReview, Rejected}:   true,
		{Rejected, Pending}:          true,
	}
	for _, from := range allStates {
		for _, to := range allStates {
			t.Run(from.String()+"->"+to.String(), func(t *testing.T) {
				t.Parallel()
				if got := CanTransition(from, to); got != allowed[[2]State{from, to}] {
					t.Fatalf("CanTransition(%s, %s) = %v", from, to, got)
				}
			})
		}
	}
}

func TestReviewMethods(t *testing.T) {
	t.Parallel()
	type op struct {
		name string
		do   func(*Review) error
	}
	start := op{"start", (*Review).Start}
	submit := op{"submit", (*Review).Submit}
	approve := op{"approve", (*Review).Approve}
	reject := op{"reject", func(r *Review) error { return r.Reject("the build fails", []string{"main.go: fix the import"}) }}
	retry := op{"retry", (*Review).Retry}
	tests := []struct {
		from    State
		op      op
		want    State // the state after; equals from when wantErr
		wantErr error
	}{
		{Pending, start, InProgress, nil},
		{Pending, submit, Pending, ErrIllegalTransition},
		{Pending, approve, Pending, ErrIllegalTransition},
		{Pending, reject, Pending, ErrIllegalTransition},
		{Pending, retry, Pending, ErrIllegalTransition},
		{InProgress, start, InProgress, ErrIllegalTransition},
		{InProgress, submit, AwaitingReview, nil},
		{InProgress, approve, InProgress, ErrIllegalTransition},
		{InProgress, reject, Rejected, nil},
		{InProgress, retry, InProgress, ErrIllegalTransition},
		{AwaitingReview, start, AwaitingReview, ErrIllegalTransition},
		{AwaitingReview, submit, AwaitingReview, ErrIllegalTransition},
		{AwaitingReview, approve, Completed, nil},
		{AwaitingReview, reject, Rejected, nil},
		{AwaitingReview, retry, AwaitingReview, ErrIllegalTransition},
		{Completed, start, Completed, ErrIllegalTransition},
		{Completed, submit, Completed, ErrIllegalTransition},
		{Completed, approve, Completed, ErrIllegalTransition},
		{Completed, reject, Completed, ErrIllegalTransition},
		{Completed, retry, Completed, ErrIllegalTransition},
		{Rejected, start, Rejected, ErrIllegalTransition},
		{Rejected, submit, Rejected, ErrIllegalTransition},
		{Rejected, approve, Rejected, ErrIllegalTransition},
		{Rejected, reject, Rejected, ErrIllegalTransition},
		{Rejected, retry, Pending, nil},
	}
	for _, tt := range tests {
		t.Run(tt.from.String()+"/"+tt.op.name, func(t *testing.T) {
			t.Parallel()
			r := &Review{State: tt.from, MaxRetries: 2}
			err := tt.op.do(r)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), "the task is "+tt.from.String()) && !strings.Contains(err.Error(), "the task is "+tt.from.String()+",") {
				t.Fatalf("error %q does not name the current state %s", err, tt.from)
			}
			if r.State != tt.want {
				t.Fatalf("state %s, want %s", r.State, tt.want)
			}
		})
	}
}

func TestReviewRetryCapAndReason(t *testing.T) {
	t.Parallel()
	r := &Review{MaxRetries: 2}
	cycle := func() error {
		if err := r.Start(); err != nil {
			return err
		}
		if err := r.Submit(); err != nil {
			return err
		}
		return r.Reject("tests fail", []string{"a_test.go: fix TestA"})
	}
	for i := 1; i <= 2; i++ {
		if err := cycle(); err != nil {
			t.Fatal(err)
		}
		if err := r.Retry(); err != nil {
			t.Fatalf("retry %d: %v", i, err)
		}
		if r.State != Pending || r.Retries != i || r.Reason != "tests fail" || len(r.RequiredChanges) != 1 {
			t.Fatalf("after retry %d: %+v", i, r)
		}
	}
	if err := cycle(); err != nil {
		t.Fatal(err)
	}
	if !r.Final() {
		t.Fatal("a rejected task with no retries left is not final")
	}
	err := r.Retry()
	if !errors.Is(err, ErrRetriesExhausted) || r.State != Rejected || r.Retries != 2 {
		t.Fatalf("third retry: %v, %+v", err, r)
	}
	if err := (&Review{State: AwaitingReview}).Reject("", nil); !errors.Is(err, ErrIllegalTransition) {
		t.Fatalf("a rejection without a reason: %v", err)
	}
	if (&Review{State: Rejected, MaxRetries: 1}).Final() || !(&Review{State: Completed}).Final() || (&Review{State: InProgress}).Final() {
		t.Fatal("Final is wrong")
	}
}

func TestCheckReportTimestampAndBuild(t *testing.T) {
	t.Parallel()
	ok := CompletionReport{TaskID: "task_001", Platform: "web", Status: "awaiting_review", Summary: "Done",
		FilesCreated: []string{}, FilesModified: []string{}, BuildResult: BuildResult{Status: "success", Command: "make"}}
	for _, ts := range []string{"2024-01-01T00:00:00.000Z", "2024-01-01T00:00:00Z", "2024-01-01T02:00:00+02:00", "2024-01-01T00:00:00"} {
		r := ok
		r.Timestamp = ts
		if err := CheckReport(r); err != nil {
			t.Errorf("timestamp %q: %v", ts, err)
		}
	}
	for _, ts := range []string{"", "yesterday", "2024-01-01"} {
		r := ok
		r.Timestamp = ts
		if err := CheckReport(r); err == nil || !strings.Contains(err.Error(), "timestamp") {
			t.Errorf("timestamp %q: %v, want it refused", ts, err)
		}
	}
	r := ok
	r.Timestamp, r.BuildResult = "2024-01-01T00:00:00Z", BuildResult{}
	if err := CheckReport(r); err == nil || !strings.Contains(err.Error(), "buildResult: required field is missing") {
		t.Errorf("no build result: %v", err)
	}
}
