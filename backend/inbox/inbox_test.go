package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
)

type fakeRuns map[string]engine.Snapshot

func (f fakeRuns) Active() []string {
	ids := []string{"gone"}
	for id := range f {
		ids = append(ids, id)
	}
	return ids
}

func (f fakeRuns) Snapshot(ctx context.Context, id string) (engine.Snapshot, error) {
	s, ok := f[id]
	if !ok {
		return engine.Snapshot{}, engine.ErrUnknownRun
	}
	return s, nil
}

func TestCollect(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	runs := fakeRuns{
		"r1": {Run: store.Run{ID: "r1", TemplateName: "Documentation", Request: "Document it", Status: "confirming", UpdatedAt: t0.Add(2 * time.Minute)}},
		"r2": {Run: store.Run{ID: "r2", TemplateName: "Code review", Request: "Review it", Status: "running", Cwd: "/p/shop"},
			Tasks: []store.Task{{ID: "task_004", Title: "Write the notes"}}, Workers: []store.Worker{
				{TaskID: "task_001", Status: "running", UpdatedAt: t0},
				{TaskID: "task_002", Status: "running", UpdatedAt: t0.Add(time.Minute), Waiting: &store.Permission{RequestID: "p1", ToolName: "Bash", Input: json.RawMessage(`{"command":"make test"}`)}},
				{TaskID: "task_004", Status: "running", UpdatedAt: t0.Add(4 * time.Minute), Waiting: &store.Permission{RequestID: "p2", ToolName: "Write", Input: json.RawMessage(`{"file_path":"/p/shop/docs/NOTES.md","content":"x"}`)}},
				{TaskID: "task_003", Status: "running", UpdatedAt: t0.Add(3 * time.Minute), Waiting: &store.Permission{RequestID: "q1", ToolName: "AskUserQuestion", Input: json.RawMessage(`{"question":"Which API version?"}`)}},
			}},
	}
	items, err := Collect(context.Background(), runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind   Kind
		run    string
		title  string
		detail string
	}{
		{KindPermission, "r2", "task_002 wants permission", "Bash make test"},
		{KindReview, "r1", "Tasks to review", "Review the proposed tasks and confirm them to start the workers."},
		{KindQuestion, "r2", "task_003 asks you", "Which API version?"},
		{KindPermission, "r2", "task_004 “Write the notes” wants permission", "Write docs/NOTES.md"},
	}
	if len(items) != len(want) {
		t.Fatalf("got %d items, want %d: %+v", len(items), len(want), items)
	}
	for i, w := range want {
		it := items[i]
		if it.Kind != w.kind || it.RunID != w.run || it.Title != w.title || it.Detail != w.detail {
			t.Errorf("item %d = %+v, want %+v", i, it, w)
		}
	}
	if items[0].RequestID != "p1" || items[0].RunName != "Code review — Review it" {
		t.Errorf("permission item lacks its request id or run name: %+v", items[0])
	}
}

type failingRuns struct{}

func (failingRuns) Active() []string { return []string{"r"} }
func (failingRuns) Snapshot(context.Context, string) (engine.Snapshot, error) {
	return engine.Snapshot{}, errors.New("disk gone")
}

func TestCollectEmptyAndErrors(t *testing.T) {
	t.Parallel()
	items, err := Collect(context.Background(), fakeRuns{}, nil)
	if err != nil || items == nil || len(items) != 0 {
		t.Fatalf("Collect with no runs = %v, %v; want an empty list", items, err)
	}
	if _, err := Collect(context.Background(), failingRuns{}, nil); err == nil {
		t.Fatal("a failing snapshot was not reported")
	}
}

func TestWatcherCoalescesAndReports(t *testing.T) {
	t.Parallel()
	runs := fakeRuns{"r1": {Run: store.Run{ID: "r1", Status: "confirming"}}}
	got := make(chan Summary, 16)
	w := NewWatcher(runs, nil, 50*time.Millisecond, 0, func(s Summary) { got <- s }, nil)
	defer w.Close()
	for range 100 {
		w.Emit(engine.EventWorkerWaiting, engine.Payload{RunID: "r1"})
	}
	select {
	case s := <-got:
		if s.Active != 2 || len(s.Items) != 1 || s.Items[0].Kind != KindReview {
			t.Fatalf("summary = %+v; want 2 active runs (one already gone) and one review", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no summary after events")
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(got); n > 1 {
		t.Fatalf("100 events gave %d more recounts; they should coalesce into at most one", n)
	}
}

func TestCollectQuestionsAndUserReviews(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	userReview := json.RawMessage(`{"phases":{"review":{"enabled":true,"reviewer":"user"}}}`)
	leadReview := json.RawMessage(`{"phases":{"review":{"enabled":true,"reviewer":"orchestrator"}}}`)
	runs := fakeRuns{
		"u": {Run: store.Run{ID: "u", Status: "running", Template: userReview}, Workers: []store.Worker{
			{TaskID: "task_001", Status: "awaiting_review", Summary: "Docs written", UpdatedAt: t0},
			{TaskID: "task_002", Status: "running", Questions: []string{"Which format?", "Keep v1?"}, UpdatedAt: t0.Add(time.Minute)},
		}},
		"o": {Run: store.Run{ID: "o", Status: "running", Template: leadReview}, Workers: []store.Worker{
			{TaskID: "task_001", Status: "awaiting_review", UpdatedAt: t0},
		}},
	}
	items, err := Collect(context.Background(), runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 {
		t.Fatalf("got %+v; want the user review and the question (the main session reviews run o)", items)
	}
	if items[0].Kind != KindTaskReview || items[0].RunID != "u" || items[0].Detail != "Docs written" {
		t.Errorf("first item = %+v, want the user's review of task_001", items[0])
	}
	if items[1].Kind != KindQuestion || items[1].Detail != "Which format?\nKeep v1?" {
		t.Errorf("second item = %+v, want task_002's questions", items[1])
	}
}

// A worker that stopped on a conflict (seed 003) waits for the user in the
// inbox while its run goes on.
func TestCollectConflicts(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	runs := fakeRuns{"c": {Run: store.Run{ID: "c", Status: "running", Cwd: "/p"}, Tasks: []store.Task{{ID: "task_002", Title: "Edit the API"}},
		Workers: []store.Worker{
			{TaskID: "task_001", Status: "completed", UpdatedAt: t0},
			{TaskID: "task_002", Status: "failed", Conflicts: []string{"/p/api.go: task_001 renamed Serve (suggested: keep the new name)"},
				UpdatedAt: t0},
		}}}
	items, err := Collect(context.Background(), runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].Kind != KindConflict || items[0].TaskID != "task_002" ||
		items[0].Detail != "api.go: task_001 renamed Serve (suggested: keep the new name)" ||
		items[0].Title != "task_002 “Edit the API” stopped on a conflict" {
		t.Fatalf("items = %+v, want task_002's conflict", items)
	}
}

func verification(t *testing.T, id int64, status string, v map[string]any, at time.Time) store.PhaseAnswer {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return store.PhaseAnswer{ID: id, Phase: "verification", Status: status, Data: data, CreatedAt: at}
}

func TestCollectFailedVerifications(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	fail := map[string]any{"status": "fail", "summary": "Two problems.", "issues": []map[string]any{
		{"description": "The README misses the install step", "task_id": "task_002"},
		{"description": "go vet fails"},
	}}
	pass := map[string]any{"status": "pass", "summary": "All good."}
	runs := fakeRuns{
		// Remediation under way after a failed verification.
		"fixing": {Run: store.Run{ID: "fixing", TemplateName: "Docs", Request: "Document it", Status: "running"},
			Answers: []store.PhaseAnswer{verification(t, 1, "valid", fail, t0)}},
		// Paused after a failed verification; a later invalid answer does not count.
		"paused": {Run: store.Run{ID: "paused", Status: "paused"}, Answers: []store.PhaseAnswer{
			verification(t, 2, "repaired", fail, t0.Add(time.Minute)),
			{ID: 3, Phase: "verification", Status: "invalid", Data: json.RawMessage(`{"status":"pass"}`), CreatedAt: t0.Add(2 * time.Minute)},
		}},
		// Failed, fixed, passed: nothing waits.
		"fixed": {Run: store.Run{ID: "fixed", Status: "verifying"}, Answers: []store.PhaseAnswer{
			verification(t, 4, "valid", fail, t0), verification(t, 5, "valid", pass, t0.Add(time.Minute)),
		}},
		// No verification yet: an analysis answer is not one.
		"early": {Run: store.Run{ID: "early", Status: "running"}, Answers: []store.PhaseAnswer{
			{ID: 6, Phase: "analysis", Status: "valid", Data: json.RawMessage(`{"status":"fail"}`), CreatedAt: t0},
		}},
	}
	items, err := Collect(context.Background(), runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 {
		t.Fatalf("got %+v; want the failed verifications of runs fixing and paused", items)
	}
	for i, want := range []struct{ run, status string }{
		{"fixing", "Remediation tasks are fixing it; open the run to follow them."},
		{"paused", "The run is paused: resume it to fix these issues."},
	} {
		it := items[i]
		if it.Kind != KindVerification || it.RunID != want.run || it.Title != "Verification failed" || it.TaskID != "" {
			t.Errorf("item %d = %+v, want the failed verification of %s", i, it, want.run)
		}
		wantDetail := "Two problems.\n- The README misses the install step (task_002)\n- go vet fails\n" + want.status
		if it.Detail != wantDetail {
			t.Errorf("item %d detail = %q, want %q", i, it.Detail, wantDetail)
		}
	}
	if !items[1].Since.Equal(t0.Add(time.Minute)) {
		t.Errorf("since = %v, want the time of the failed answer", items[1].Since)
	}
}

// fakeHost is a session host with the given sessions; it counts the calls.
type fakeHost struct {
	mu       sync.Mutex
	sessions map[session.ID]session.Info
	calls    int
}

func (h *fakeHost) Session(_ context.Context, id session.ID) (session.Info, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls++
	s, ok := h.sessions[id]
	if !ok {
		return session.Info{}, errors.New("no such session")
	}
	return s, nil
}

func (h *fakeHost) set(id session.ID, s session.Info) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sessions[id] = s
}

func (h *fakeHost) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls
}

func TestCollectMainSessionPrompts(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	host := &fakeHost{sessions: map[session.ID]session.Info{
		"main_a": {ID: "main_a", LastActivityAt: t0.Add(time.Minute), Pending: []session.PermissionRequest{
			{RequestID: "m1", SessionID: "main_a", ToolName: "Bash", Input: json.RawMessage(`{"command":"ls docs"}`)},
		}},
		"main_b": {ID: "main_b", Pending: []session.PermissionRequest{
			{RequestID: "m2", SessionID: "main_b", ToolName: "AskUserQuestion", Input: json.RawMessage(`{"questions":[{"question":"Which module first?"}]}`)},
		}},
		"main_idle": {ID: "main_idle", Pending: []session.PermissionRequest{}},
	}}
	runs := fakeRuns{
		"a":    {Run: store.Run{ID: "a", TemplateName: "Docs", Request: "Document it", Status: "analyzing", MainSessionID: "main_a"}},
		"b":    {Run: store.Run{ID: "b", Status: "planning", MainSessionID: "main_b", UpdatedAt: t0.Add(2 * time.Minute)}},
		"idle": {Run: store.Run{ID: "idle", Status: "running", MainSessionID: "main_idle"}},
		// The host cannot read this one now: the others are still listed.
		"lost": {Run: store.Run{ID: "lost", Status: "verifying", MainSessionID: "main_lost"}},
		"new":  {Run: store.Run{ID: "new", Status: "created"}},
	}
	items, err := Collect(context.Background(), runs, host)
	if err != nil {
		t.Fatal(err)
	}
	want := []Item{
		{Kind: KindPermission, RunID: "a", RunName: "Docs — Document it", RequestID: "m1", SessionID: "main_a",
			Title: "The main session wants permission", Detail: "Bash ls docs", Since: t0.Add(time.Minute),
			Key: "Bash\x00{\"command\":\"ls docs\"}", Summary: "ls docs", Suggestions: []store.Suggestion{
				{Rule: "Bash(ls docs)", Label: "this exact command"}, {Rule: "Bash(ls:*)", Label: "commands that start with ls"}, {Rule: "Bash", Label: "every Bash call"}}},
		{Kind: KindQuestion, RunID: "b", RunName: "b", RequestID: "m2", SessionID: "main_b",
			Title: "The main session asks you", Detail: "Which module first?", Since: t0.Add(2 * time.Minute)},
	}
	if !reflect.DeepEqual(items, want) {
		t.Fatalf("items = %+v\nwant %+v", items, want)
	}
	if n := host.count(); n != 4 {
		t.Errorf("the host was asked %d times, want once per run with a main session (4)", n)
	}
	// Without a host the main sessions are left out.
	if items, err := Collect(context.Background(), runs, nil); err != nil || len(items) != 0 {
		t.Fatalf("Collect without a host = %+v, %v; want nothing", items, err)
	}
}

func TestWatcherLooksAgainForMainSessionPrompts(t *testing.T) {
	t.Parallel()
	host := &fakeHost{sessions: map[session.ID]session.Info{"main": {ID: "main"}}}
	runs := fakeRuns{"r1": {Run: store.Run{ID: "r1", Status: "analyzing", MainSessionID: "main"}}}
	got := make(chan Summary, 64)
	w := NewWatcher(runs, host, time.Millisecond, time.Millisecond, func(s Summary) { got <- s }, nil)
	defer w.Close()
	w.Refresh()
	first := receive(t, got)
	if len(first.Items) != 0 {
		t.Fatalf("first summary = %+v, want nothing waiting", first)
	}
	// Looks without events change nothing: no summary is handed on.
	for n := host.count(); host.count() < n+3; {
		time.Sleep(time.Millisecond)
	}
	if len(got) != 0 {
		t.Fatalf("%d summaries without any change", len(got))
	}
	// A prompt of the main session arrives without an engine event.
	host.set("main", session.Info{ID: "main", Pending: []session.PermissionRequest{{RequestID: "m1", SessionID: "main", ToolName: "Write", Input: json.RawMessage(`{"file_path":"notes.md"}`)}}})
	s := receive(t, got)
	if len(s.Items) != 1 || s.Items[0].RequestID != "m1" || s.Items[0].Kind != KindPermission {
		t.Fatalf("summary = %+v, want the main session's prompt", s)
	}
	// An engine event always hands the inbox on, changed or not.
	w.Emit(engine.EventPhaseChanged, engine.Payload{RunID: "r1"})
	if s := receive(t, got); len(s.Items) != 1 {
		t.Fatalf("summary after an event = %+v", s)
	}
}

func receive(t *testing.T, ch <-chan Summary) Summary {
	t.Helper()
	select {
	case s := <-ch:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("no summary")
		return Summary{}
	}
}

// A limit that reset while the automatic resume is off, and a budget that
// paused a run, wait for the user.
func TestCollectLimitsAndBudgets(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	runs := fakeRuns{
		"due":     {Run: store.Run{ID: "due", Request: "A", Status: "running", Limits: store.RunLimits{WaitingUntil: &t0, ResumeDue: true}}},
		"waiting": {Run: store.Run{ID: "waiting", Request: "B", Status: "running", Limits: store.RunLimits{WaitingUntil: &t0}}},
		"budget":  {Run: store.Run{ID: "budget", Request: "C", Status: "paused", UpdatedAt: t0.Add(time.Minute), Limits: store.RunLimits{BudgetPaused: true}}},
	}
	items, err := Collect(context.Background(), runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || items[0].Kind != KindLimit || items[0].RunID != "due" || items[1].Kind != KindBudget || items[1].RunID != "budget" {
		t.Fatalf("items %+v", items)
	}
}
