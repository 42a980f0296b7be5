package mailbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// waitLimit bounds every wait for the watcher; generous for a loaded
// machine.
const waitLimit = 20 * time.Second

func assignment(id, platform string) TaskAssignment {
	return TaskAssignment{TaskID: id, Platform: platform, Title: "Task " + id, Instructions: "Implement " + id + " completely.",
		FilesToCreate: []string{"src/" + id + ".ts"}, Architecture: "MVC", APIEndpoints: []string{"GET /api/" + id}}
}

func report(id, platform, build string) string {
	return fmt.Sprintf(`{"type":"completion_report","taskId":%q,"platform":%q,"status":"awaiting_review","summary":"Did %s.","filesCreated":["src/%s.ts"],"filesModified":[],"buildResult":{"status":%q,"command":"npm run build","errors":0},"timestamp":"2025-01-31T14:05:00Z"}`,
		id, platform, id, id, build)
}

func messagesFile(msgs ...string) []byte {
	return []byte(`{"messages": [` + strings.Join(msgs, ",\n") + `], "lastRead": null}`)
}

// openStatic opens a mailbox without the watcher, so a test drives scan
// itself.
func openStatic(t *testing.T, opts Options) (*Mailbox, string) {
	t.Helper()
	cwd := t.TempDir()
	m, err := openFiles(cwd, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m, cwd
}

func openWatched(t *testing.T, cwd string, opts Options) *Mailbox {
	t.Helper()
	m, err := Open(cwd, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m
}

func next(t *testing.T, m *Mailbox) Report {
	t.Helper()
	select {
	case r, ok := <-m.Reports():
		if !ok {
			t.Fatal("the reports channel closed")
		}
		return r
	case <-time.After(waitLimit):
		t.Fatalf("no report within %s", waitLimit)
	}
	return Report{}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
}

func fileMessages(t *testing.T, path string) (ids []string, lastRead *string) {
	t.Helper()
	var f struct {
		Messages []map[string]any `json:"messages"`
		LastRead *string          `json:"lastRead"`
	}
	readJSON(t, path, &f)
	ids = []string{}
	for _, m := range f.Messages {
		id, _ := m["taskId"].(string)
		ids = append(ids, id)
	}
	return ids, f.LastRead
}

func TestOpenLayout(t *testing.T) {
	t.Parallel()
	m, _ := openStatic(t, Options{})
	for _, rel := range []string{ToDeveloper, ToTeamLead} {
		data, err := os.ReadFile(m.path(rel))
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != "{\n  \"messages\": [],\n  \"lastRead\": null\n}\n" {
			t.Errorf("%s = %q", rel, data)
		}
	}
	if _, err := os.Stat(filepath.Join(m.Dir(), "logs")); err != nil {
		t.Error(err)
	}
}

func TestAssign(t *testing.T) {
	t.Parallel()
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 600e6, time.UTC)
	m, _ := openStatic(t, Options{MaxRetries: 2, Now: func() time.Time { return fixed }})
	ctx := context.Background()
	if err := m.Assign(ctx, assignment("task-001", "web")); err != nil {
		t.Fatal(err)
	}
	a2 := assignment("task-002", "ios")
	a2.FilesToCreate = nil
	if err := m.Assign(ctx, a2); err != nil {
		t.Fatal(err)
	}
	var dev struct {
		Messages []map[string]any `json:"messages"`
		LastRead any              `json:"lastRead"`
	}
	readJSON(t, m.path(ToDeveloper), &dev)
	if len(dev.Messages) != 2 || dev.LastRead != nil {
		t.Fatalf("to-developer.json: %+v", dev)
	}
	for _, k := range []string{"type", "taskId", "platform", "title", "instructions", "filesToCreate", "architecture", "timestamp"} {
		if _, ok := dev.Messages[1][k]; !ok {
			t.Errorf("assignment lacks required field %s: %v", k, dev.Messages[1])
		}
	}
	if dev.Messages[0]["type"] != "task_assignment" || dev.Messages[0]["timestamp"] != "2026-01-02T03:04:05.600Z" {
		t.Errorf("assignment %v", dev.Messages[0])
	}
	var q Queue
	readJSON(t, m.path(QueueFile), &q)
	if len(q.Tasks) != 2 || q.Tasks[0].State != InProgress || q.Tasks[0].MaxRetries != 2 {
		t.Fatalf("queue.json: %+v", q)
	}
	var st Status
	readJSON(t, m.path(StatusFile), &st)
	if st.Developer.State != "working" || !reflect.DeepEqual(st.Developer.Tasks, []string{"task-001", "task-002"}) || st.TeamLead.State != "waiting" || st.Counts["in_progress"] != 2 {
		t.Fatalf("status.json: %+v", st)
	}
	log, err := os.ReadFile(m.path(LogFile))
	if err != nil || !strings.HasPrefix(string(log), "# Development log\n\n") || !strings.Contains(string(log), `task-002: assigned "Task task-002" (ios)`) {
		t.Fatalf("log.md: %q %v", log, err)
	}

	errTests := []struct {
		name string
		a    TaskAssignment
		want error
		text string
	}{
		{"again while in progress", assignment("task-001", "web"), ErrIllegalTransition, "the task is in_progress"},
		{"missing fields", TaskAssignment{TaskID: "task-003", Platform: "web"}, ErrInvalid, "missing title, instructions"},
		{"bad platform", assignment("task-004", "windows"), ErrInvalid, `platform "windows"`},
	}
	for _, tt := range errTests {
		err := m.Assign(ctx, tt.a)
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) {
			t.Errorf("%s: error %v, want %v containing %q", tt.name, err, tt.want, tt.text)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := m.Assign(cctx, assignment("task-005", "web")); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

// TestScanFiles reads good, mixed, empty and broken to-team-lead.json files.
func TestScanFiles(t *testing.T) {
	t.Parallel()
	type want struct {
		task string
		ok   bool
		err  error
		text string
	}
	tests := []struct {
		file   string
		broken bool
		want   []want
	}{
		{"good.json", false, []want{{"task-001", true, nil, ""}}},
		{"mixed.json", false, []want{
			{"task-001", false, ErrMalformed, `status: "done" is not one of awaiting_review; filesModified: must be a list of strings, not a string; buildResult.status: "ok" is not one of success, failed, not_applicable, not_verified; buildResult.errors: must be a whole number of at least 0, not -1`},
			{"task-002", true, nil, ""},
			{"task-999", false, ErrUnknownTask, "task \"task-999\", which was never assigned"},
			{"", false, ErrMalformed, "must be an object, not a string"},
			{"task-001", false, ErrMalformed, `type: "question" is not one of completion_report`},
		}},
		{"empty.json", false, nil},
		{"whitespace.json", false, nil},
		{"null-messages.json", false, nil},
		{"half.json", true, nil},
		{"broken.json", true, nil},
		{"not-object.json", true, nil},
		{"messages-not-list.json", true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			m, _ := openStatic(t, Options{})
			for _, a := range []TaskAssignment{assignment("task-001", "web"), assignment("task-002", "android")} {
				if err := m.Assign(context.Background(), a); err != nil {
					t.Fatal(err)
				}
			}
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(m.path(ToTeamLead), data, 0o644); err != nil {
				t.Fatal(err)
			}
			got, broken := m.scan()
			if broken != tt.broken || len(got) != len(tt.want) {
				t.Fatalf("broken %v and %d reports %+v; want broken %v and %d", broken, len(got), got, tt.broken, len(tt.want))
			}
			for i, w := range tt.want {
				g := got[i]
				if g.TaskID != w.task || (g.Report != nil) != w.ok || !errors.Is(g.Err, w.err) || (w.err == nil) != (g.Err == nil) {
					t.Errorf("report %d = %+v (err %v), want %+v", i, g, g.Err, w)
				}
				if w.text != "" && (g.Err == nil || !strings.Contains(g.Err.Error(), w.text)) {
					t.Errorf("report %d error %v, want it to contain %q", i, g.Err, w.text)
				}
			}
			// Nothing is re-delivered by another scan, and nothing was removed.
			again, _ := m.scan()
			if len(again) != 0 {
				t.Errorf("second scan delivered %+v", again)
			}
			after, err := os.ReadFile(m.path(ToTeamLead))
			if err != nil {
				t.Fatal(err)
			}
			if tt.broken || len(tt.want) == 0 {
				if string(after) != string(data) {
					t.Errorf("the file was changed:\n%s", after)
				}
				return
			}
			var f struct {
				Messages []json.RawMessage `json:"messages"`
				LastRead *string           `json:"lastRead"`
			}
			readJSON(t, m.path(ToTeamLead), &f)
			var orig struct {
				Messages []json.RawMessage `json:"messages"`
			}
			readJSON(t, filepath.Join("testdata", tt.file), &orig)
			if len(f.Messages) != len(orig.Messages) || f.LastRead == nil {
				t.Errorf("after the scan the file holds %d messages with lastRead %v; want all %d kept and lastRead set", len(f.Messages), f.LastRead, len(orig.Messages))
			}
			if tt.file == "mixed.json" && !strings.Contains(string(after), `"writtenBy": "developer"`) {
				t.Errorf("an agent's top-level field was dropped:\n%s", after)
			}
			for _, r := range got {
				if r.Report == nil {
					continue
				}
				task, _ := m.Task(r.TaskID)
				if task.State != AwaitingReview || task.LastReport == nil || task.LastReport.Summary != r.Report.Summary {
					t.Errorf("task after its report: %+v", task)
				}
			}
		})
	}
}

// A new run finds the mailbox of an earlier run in the folder (its tasks
// have the same ids): the earlier files are archived and the new run starts
// with an empty queue; the same run opened again keeps its own.
func TestANewRunArchivesTheEarlierMailbox(t *testing.T) {
	t.Parallel()
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	opts := Options{Run: "orch_a", Now: func() time.Time { return fixed }}
	ctx := context.Background()
	first, cwd := openStatic(t, opts)
	if err := first.Assign(ctx, assignment("task-001", "web")); err != nil {
		t.Fatal(err)
	}
	_ = first.Close()

	// The same run again (a restart): its task is still in progress.
	again, err := openFiles(cwd, opts)
	if err != nil {
		t.Fatal(err)
	}
	if tk := again.task("task-001"); tk == nil || tk.State != InProgress {
		t.Fatalf("reopened by its run, the queue lost task-001: %+v", again.queue)
	}
	_ = again.Close()

	opts.Run = "orch_b"
	second, err := openFiles(cwd, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if len(second.queue.Tasks) != 0 || second.queue.Run != "orch_b" {
		t.Fatalf("a new run inherited the queue: %+v", second.queue)
	}
	if err := second.Assign(ctx, assignment("task-001", "web")); err != nil {
		t.Fatalf("the new run cannot assign task-001: %v", err)
	}
	archived := filepath.Join(cwd, DirName, ArchiveDir, "orch_a-20260102-030405")
	var q Queue
	readJSON(t, filepath.Join(archived, filepath.FromSlash(QueueFile)), &q)
	if q.Run != "orch_a" || len(q.Tasks) != 1 || q.Tasks[0].TaskID != "task-001" {
		t.Fatalf("archived queue = %+v", q)
	}
	if _, err := os.Stat(filepath.Join(archived, filepath.FromSlash(ToDeveloper))); err != nil {
		t.Fatalf("the earlier assignments were not archived: %v", err)
	}
	log, err := os.ReadFile(second.path(LogFile))
	if err != nil || !strings.Contains(string(log), "Run orch_b starts; the mailbox of orch_a is in .claude-orchestrator/archive/orch_a-20260102-030405.") {
		t.Fatalf("log.md = %s (%v)", log, err)
	}
}

func TestReported(t *testing.T) {
	t.Parallel()
	m, _ := openStatic(t, Options{MaxRetries: 1})
	ctx := context.Background()
	rep := CompletionReport{TaskID: "task-001", Platform: "web", Status: "awaiting_review", Summary: "Built it",
		FilesCreated: []string{}, FilesModified: []string{}, BuildResult: BuildResult{Status: "success"}}
	if err := m.Reported(rep); !errors.Is(err, ErrUnknownTask) {
		t.Fatalf("a report on a task never assigned: %v", err)
	}
	if err := m.Assign(ctx, assignment("task-001", "web")); err != nil {
		t.Fatal(err)
	}
	if err := m.Reported(rep); err != nil {
		t.Fatal(err)
	}
	tk, _ := m.Task("task-001")
	if tk.State != AwaitingReview || tk.LastReport == nil || tk.LastReport.Type != TypeCompletionReport {
		t.Fatalf("task after the report = %+v", tk)
	}
	// A second report changes nothing; the approval goes through.
	if err := m.Reported(rep); err != nil {
		t.Fatal(err)
	}
	if err := m.Approve("task-001"); err != nil {
		t.Fatal(err)
	}
	if tk, _ := m.Task("task-001"); tk.State != Completed {
		t.Fatalf("task after approval = %+v", tk)
	}
}
