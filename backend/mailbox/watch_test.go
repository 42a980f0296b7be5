package mailbox

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// noPoll turns polling off, so only fsnotify can wake the watcher.
var noPoll = Options{PollInterval: -1, MaxRetries: 1}

func assignAll(t *testing.T, m *Mailbox, as ...TaskAssignment) {
	t.Helper()
	for _, a := range as {
		if err := m.Assign(context.Background(), a); err != nil {
			t.Fatal(err)
		}
	}
}

// writeAsAgent writes the file the way an agent's tool does: in place, not
// atomically.
func writeAsAgent(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWatchPicksUpReportFromAnotherProcess(t *testing.T) {
	t.Parallel()
	m := openWatched(t, t.TempDir(), noPoll)
	assignAll(t, m, assignment("task-001", "web"))
	writeAsAgent(t, m.path(ToTeamLead), messagesFile(report("task-001", "web", "success")))
	r := next(t, m)
	if r.Err != nil || r.TaskID != "task-001" || r.Report.BuildResult.Status != "success" || r.Report.BuildResult.Command != "npm run build" {
		t.Fatalf("report %+v (err %v)", r, r.Err)
	}
	task, _ := m.Task("task-001")
	if task.State != AwaitingReview {
		t.Fatalf("task is %s, want awaiting_review", task.State)
	}
	var st Status
	readJSON(t, m.path(StatusFile), &st)
	if st.TeamLead.State != "reviewing" || !reflect.DeepEqual(st.TeamLead.Tasks, []string{"task-001"}) {
		t.Fatalf("status.json: %+v", st)
	}
}

// TestWatchHalfWrittenThenComplete: a file caught half-written is retried,
// gives no error, and its report arrives once complete. The second task's
// report is the barrier: it is appended after, so anything the half file
// caused would have arrived before it.
func TestWatchHalfWrittenThenComplete(t *testing.T) {
	t.Parallel()
	m := openWatched(t, t.TempDir(), noPoll)
	assignAll(t, m, assignment("task-001", "web"), assignment("task-002", "web"))
	full := messagesFile(report("task-001", "web", "success"))
	writeAsAgent(t, m.path(ToTeamLead), full[:len(full)/2])
	writeAsAgent(t, m.path(ToTeamLead), []byte{})
	writeAsAgent(t, m.path(ToTeamLead), full[:len(full)-3])
	writeAsAgent(t, m.path(ToTeamLead), full)
	if r := next(t, m); r.Err != nil || r.TaskID != "task-001" {
		t.Fatalf("first report %+v (err %v)", r, r.Err)
	}
	writeAsAgent(t, m.path(ToTeamLead), messagesFile(report("task-001", "web", "success"), report("task-002", "web", "failed")))
	if r := next(t, m); r.Err != nil || r.TaskID != "task-002" || r.Report.BuildResult.Status != "failed" {
		t.Fatalf("second report %+v (err %v)", r, r.Err)
	}
}

// TestReopenDoesNotRedeliver: a report taken before a restart is not sent
// again; lastRead stays set; Awaiting gives it back for a restarted engine.
func TestReopenDoesNotRedeliver(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	m, err := Open(cwd, noPoll)
	if err != nil {
		t.Fatal(err)
	}
	assignAll(t, m, assignment("task-001", "web"))
	writeAsAgent(t, m.path(ToTeamLead), messagesFile(report("task-001", "web", "success")))
	if r := next(t, m); r.TaskID != "task-001" {
		t.Fatalf("report %+v", r)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	if _, ok := <-m.Reports(); ok {
		t.Fatal("reports still open after Close")
	}
	ids, lastRead := fileMessages(t, filepath.Join(cwd, DirName, ToTeamLead))
	if lastRead == nil || !reflect.DeepEqual(ids, []string{"task-001"}) {
		t.Fatalf("to-team-lead.json holds %v, lastRead %v", ids, lastRead)
	}

	m2 := openWatched(t, cwd, noPoll)
	if aw := m2.Awaiting(); len(aw) != 1 || aw[0].TaskID != "task-001" || aw[0].Report.Summary != "Did task-001." {
		t.Fatalf("Awaiting() = %+v", aw)
	}
	assignAll(t, m2, assignment("task-002", "web"))
	writeAsAgent(t, m2.path(ToTeamLead), messagesFile(report("task-001", "web", "success"), report("task-002", "web", "success")))
	if r := next(t, m2); r.TaskID != "task-002" {
		t.Fatalf("after reopen got %+v, want only task-002", r)
	}
	if err := m2.Assign(context.Background(), assignment("task-001", "web")); !errors.Is(err, ErrIllegalTransition) || !strings.Contains(err.Error(), "awaiting_review") {
		t.Fatalf("assigning a task awaiting review: %v", err)
	}
}

// TestReviewCycle: reject with a reason, retry with the reason in the new
// assignment, approve, clearing; the retry cap.
func TestReviewCycle(t *testing.T) {
	t.Parallel()
	m := openWatched(t, t.TempDir(), noPoll)
	ctx := context.Background()
	assignAll(t, m, assignment("task-001", "web"), assignment("task-002", "ios"))
	writeAsAgent(t, m.path(ToTeamLead), messagesFile(report("task-001", "web", "failed"), report("task-002", "ios", "success")))
	got := map[string]bool{}
	for range 2 {
		got[next(t, m).TaskID] = true
	}
	if !got["task-001"] || !got["task-002"] {
		t.Fatalf("reports %v", got)
	}
	if err := m.Approve("task-001"); err != nil {
		t.Fatal(err)
	}
	if err := m.Reject("task-001", "again", nil); !errors.Is(err, ErrIllegalTransition) || !strings.Contains(err.Error(), "completed") {
		t.Fatalf("rejecting a completed task: %v", err)
	}
	ids, lastRead := fileMessages(t, m.path(ToTeamLead))
	if !reflect.DeepEqual(ids, []string{"task-002"}) || lastRead == nil {
		t.Fatalf("after approving task-001, to-team-lead.json holds %v (lastRead %v)", ids, lastRead)
	}
	// Cleared as seed 001 clears a file: lastRead says when.
	if ids, lastRead := fileMessages(t, m.path(ToDeveloper)); !reflect.DeepEqual(ids, []string{"task-002"}) || lastRead == nil || !isoTime(*lastRead) {
		t.Fatalf("after approving task-001, to-developer.json holds %v (lastRead %v)", ids, lastRead)
	}

	// Reject task-002: back to pending, its report leaves the file.
	changes := []string{"src/task-002.ts: handle the empty list"}
	if err := m.Reject("task-002", "The empty list crashes.", changes); err != nil {
		t.Fatal(err)
	}
	task, _ := m.Task("task-002")
	if task.State != Pending || task.Retries != 1 || task.Reason != "The empty list crashes." || !reflect.DeepEqual(task.RequiredChanges, changes) {
		t.Fatalf("task after rejection: %+v", task)
	}
	if ids, _ := fileMessages(t, m.path(ToTeamLead)); len(ids) != 0 {
		t.Fatalf("rejected report still in to-team-lead.json: %v", ids)
	}
	if err := m.Approve("task-002"); !errors.Is(err, ErrIllegalTransition) || !strings.Contains(err.Error(), "pending") {
		t.Fatalf("approving a pending task: %v", err)
	}
	// Retry: the new assignment carries the rejection.
	if err := m.Assign(ctx, assignment("task-002", "ios")); err != nil {
		t.Fatal(err)
	}
	var dev struct {
		Messages []TaskAssignment `json:"messages"`
	}
	readJSON(t, m.path(ToDeveloper), &dev)
	if len(dev.Messages) != 1 || dev.Messages[0].PreviousRejection == nil || dev.Messages[0].PreviousRejection.Reason != "The empty list crashes." {
		t.Fatalf("retry assignment: %+v", dev.Messages)
	}
	writeAsAgent(t, m.path(ToTeamLead), messagesFile(report("task-002", "ios", "success")))
	if r := next(t, m); r.TaskID != "task-002" || r.Err != nil {
		t.Fatalf("retry report %+v", r)
	}
	// MaxRetries is 1: the second rejection is final.
	if err := m.Reject("task-002", "Still crashes.", changes); !errors.Is(err, ErrRetriesExhausted) {
		t.Fatalf("second rejection: %v", err)
	}
	if task, _ := m.Task("task-002"); task.State != Rejected {
		t.Fatalf("task-002 is %s, want rejected", task.State)
	}
	if err := m.Approve("task-404"); !errors.Is(err, ErrUnknownTask) {
		t.Fatalf("approving an unknown task: %v", err)
	}
	log, err := os.ReadFile(m.path(LogFile))
	if err != nil {
		t.Fatal(err)
	}
	tmp, _ := filepath.Glob(filepath.Join(m.Dir(), "tasks", "*", ".*.tmp"))
	tmp2, _ := filepath.Glob(filepath.Join(m.Dir(), "tasks", ".*.tmp"))
	if len(tmp)+len(tmp2) > 0 {
		t.Errorf("temporary files left behind: %v %v", tmp, tmp2)
	}
	for _, s := range []string{"task-001: approved", "task-002: rejected: The empty list crashes.\n  - src/task-002.ts: handle the empty list", "assigned again (retry 1 of 1)", "no retries left"} {
		if !strings.Contains(string(log), s) {
			t.Errorf("log.md lacks %q:\n%s", s, log)
		}
	}
}

// TestMalformedThenCorrected: a malformed report gives one error for its
// task, stays in the file, and the corrected report appended later counts.
func TestMalformedThenCorrected(t *testing.T) {
	t.Parallel()
	m := openWatched(t, t.TempDir(), noPoll)
	assignAll(t, m, assignment("task-001", "web"))
	bad := `{"type":"completion_report","taskId":"task-001","platform":"web","status":"awaiting_review","summary":"Done.","filesCreated":[],"filesModified":[],"timestamp":"2025-01-31T14:05:00Z"}`
	writeAsAgent(t, m.path(ToTeamLead), messagesFile(bad))
	r := next(t, m)
	if !errors.Is(r.Err, ErrMalformed) || r.TaskID != "task-001" || !strings.Contains(r.Err.Error(), "buildResult: required field is missing") {
		t.Fatalf("report %+v (err %v)", r, r.Err)
	}
	if task, _ := m.Task("task-001"); task.State != InProgress {
		t.Fatalf("task is %s after a malformed report, want in_progress", task.State)
	}
	writeAsAgent(t, m.path(ToTeamLead), messagesFile(bad, report("task-001", "web", "not_verified")))
	r = next(t, m)
	if r.Err != nil || r.Index != 1 || r.Report.BuildResult.Status != "not_verified" {
		t.Fatalf("corrected report %+v (err %v)", r, r.Err)
	}
	var f struct {
		Messages []json.RawMessage `json:"messages"`
	}
	readJSON(t, m.path(ToTeamLead), &f)
	if len(f.Messages) != 2 {
		t.Fatalf("the file holds %d messages, want both kept", len(f.Messages))
	}
}

func TestBrokenFilesAreKept(t *testing.T) {
	t.Parallel()
	t.Run("queue.json", func(t *testing.T) {
		t.Parallel()
		cwd := t.TempDir()
		path := filepath.Join(cwd, DirName, QueueFile)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		writeAsAgent(t, path, []byte(`{"tasks": [`))
		if _, err := Open(cwd, noPoll); !errors.Is(err, ErrUnreadable) {
			t.Fatalf("Open with a broken queue.json: %v", err)
		}
	})
	t.Run("to-developer.json", func(t *testing.T) {
		t.Parallel()
		m, _ := openStatic(t, Options{})
		writeAsAgent(t, m.path(ToDeveloper), []byte(`{"messages": [{"type": "task_assign`))
		if err := m.Assign(context.Background(), assignment("task-001", "web")); !errors.Is(err, ErrUnreadable) {
			t.Fatalf("Assign with a broken to-developer.json: %v", err)
		}
		data, _ := os.ReadFile(m.path(ToDeveloper))
		if string(data) != `{"messages": [{"type": "task_assign` {
			t.Fatalf("the broken file was changed: %q", data)
		}
		if _, ok := m.Task("task-001"); ok {
			t.Fatal("the task entered the queue although its assignment was not written")
		}
	})
}
