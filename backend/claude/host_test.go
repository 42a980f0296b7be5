package claude

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/chrome"
	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/simulator"
)

func decodeEntry(t testing.TB, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("entry is not a JSON object: %v: %s", err, raw)
	}
	return m
}

// textOf returns the text of an entry (string content or text blocks).
func textOf(e map[string]any) string {
	msg, _ := e["message"].(map[string]any)
	switch c := msg["content"].(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, blk := range c {
			if m, ok := blk.(map[string]any); ok && m["type"] == "text" {
				b.WriteString(m["text"].(string))
			}
		}
		return b.String()
	}
	return ""
}

// blocks returns the kinds of the content blocks of an entry.
func blocks(e map[string]any) []string {
	msg, _ := e["message"].(map[string]any)
	c, _ := msg["content"].([]any)
	var out []string
	for _, blk := range c {
		if m, ok := blk.(map[string]any); ok {
			out = append(out, m["type"].(string))
		}
	}
	return out
}

// lastBlock parses the last protocol block of the transcript.
func lastBlock(t testing.TB, entries []map[string]any) (string, map[string]any) {
	t.Helper()
	for i := len(entries) - 1; i >= 0; i-- {
		text := textOf(entries[i])
		s := strings.LastIndex(text, "<<<ORCHESTRATOR_RESPONSE>>>")
		if entries[i]["type"] != "assistant" || s < 0 {
			continue
		}
		end := strings.Index(text[s:], "<<<END_ORCHESTRATOR_RESPONSE>>>")
		if end < 0 {
			t.Fatalf("block without end delimiter: %q", text)
		}
		var v struct {
			Phase string         `json:"phase"`
			Data  map[string]any `json:"data"`
		}
		body := text[s+len("<<<ORCHESTRATOR_RESPONSE>>>") : s+end]
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatalf("block is not JSON: %v: %s", err, body)
		}
		return v.Phase, v.Data
	}
	t.Fatal("no protocol block in the transcript")
	return "", nil
}

func TestStartSendRead(t *testing.T) {
	t.Parallel()
	e := newEnv(t, simulator.Options{})
	ctx := testCtx(t)
	id, err := engine.WorkerSessionID("run1", "task_001")
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.host.Start(ctx, session.StartOptions{
		Cwd: e.dir, ID: id, Title: "Analyze the demo", Model: "claude-opus-4-1", PermissionMode: "acceptEdits",
		Message: `Analyze this project and answer with {"phase": "analysis", "data": {...}} between the delimiters.`,
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if got != id {
		t.Fatalf("Start returned %q, want the chosen id %q", got, id)
	}
	entries := e.waitIdle(t, id)
	if entries[0]["type"] != "user" || !strings.Contains(textOf(entries[0]), "Analyze this project") {
		t.Fatalf("first entry is not the start message: %v", entries[0])
	}
	var kinds []string
	for _, en := range entries {
		kinds = append(kinds, blocks(en)...)
	}
	if !slices.Contains(kinds, "tool_use") || !slices.Contains(kinds, "tool_result") {
		t.Fatalf("no tool_use/tool_result entries: %v", kinds)
	}
	phase, data := lastBlock(t, entries)
	if phase != "analysis" || data["summary"] == nil || data["recommended_splits"] == nil {
		t.Fatalf("analysis block = %q %v", phase, data)
	}
	if !strings.Contains(fmt.Sprint(data["key_files"]), "README.md") {
		t.Fatalf("analysis does not come from the folder: key_files = %v", data["key_files"])
	}
	res := entries[len(entries)-1]
	if res["subtype"] != "success" || res["total_cost_usd"] == nil || res["num_turns"] == nil {
		t.Fatalf("result entry = %v", res)
	}

	si, err := e.host.Session(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if si.Title != "Analyze the demo" || si.Model != "claude-opus-4-1" || si.PermissionMode != "acceptEdits" || si.Cwd != e.dir || !si.Hidden || si.TurnRunning {
		t.Fatalf("Session = %+v", si)
	}

	// Incremental: after the cursor only the new turn comes back.
	_, cursor := e.readFrom(t, id, session.Cursor{})
	if err := e.host.Send(ctx, id, `Now plan: answer with {"phase": "task_list", "data": {"tasks": []}}.`); err != nil {
		t.Fatalf("Send: %v", err)
	}
	e.waitIdle(t, id)
	fresh, _ := e.readFrom(t, id, cursor)
	if len(fresh) < 3 || fresh[0]["type"] != "user" || !strings.HasPrefix(textOf(fresh[0]), "Now plan") {
		t.Fatalf("read after the cursor = %d entries, first %v", len(fresh), fresh)
	}
	phase, data = lastBlock(t, fresh)
	tasks, _ := data["tasks"].([]any)
	if phase != "task_list" || len(tasks) < 2 {
		t.Fatalf("task_list block = %q %v", phase, data)
	}

	// A session that does not exist.
	if _, err := e.host.Session(ctx, "local_nope"); !errors.Is(err, ErrNoSession) {
		t.Fatalf("Session(unknown) error = %v, want ErrNoSession", err)
	}
}

func TestReadDetectsRewrittenTranscript(t *testing.T) {
	t.Parallel()
	e := newEnv(t, simulator.Options{})
	ctx := testCtx(t)
	id, err := e.host.Start(ctx, session.StartOptions{Cwd: e.dir, Message: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	entries := e.waitIdle(t, id)
	b, err := e.host.Read(ctx, id, session.Cursor{Index: len(entries), UUID: "not-a-uuid-of-this-transcript"})
	if err != nil {
		t.Fatal(err)
	}
	if !b.Reset || len(b.Entries) != len(entries) {
		t.Fatalf("Read with a stale cursor = reset %v, %d entries; want reset and %d", b.Reset, len(b.Entries), len(entries))
	}
}

func TestUntrustedTextTravelsIntact(t *testing.T) {
	t.Parallel()
	e := newEnv(t, simulator.Options{})
	ctx := testCtx(t)
	title := "q\"uo'te `tick` ${globalThis.__pwned=1} </script><script>globalThis.__pwned=1</script> \\ \u2028 end"
	msg := "msg \" ' ` ${globalThis.__pwned=2} </script><img src=x onerror=\"globalThis.__pwned=3\"> \\n\n" + title
	id, err := e.host.Start(ctx, session.StartOptions{Cwd: e.dir, Message: msg, Title: title})
	if err != nil {
		t.Fatal(err)
	}
	entries := e.waitIdle(t, id)
	if got := textOf(entries[0]); got != msg {
		t.Fatalf("message changed on the way:\n got %q\nwant %q", got, msg)
	}
	si, err := e.host.Session(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if si.Title != title {
		t.Fatalf("title changed on the way:\n got %q\nwant %q", si.Title, title)
	}
	if err := e.host.Send(ctx, id, msg+" again"); err != nil {
		t.Fatalf("Send: %v", err)
	}
	// The simulator page renders titles; give it a render, then look.
	e.waitIdle(t, id)
	raw, err := e.host.Conn().Call(ctx, "function () { return String(globalThis.__pwned); }")
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != `"undefined"` {
		t.Fatalf("page code ran: globalThis.__pwned = %s", raw)
	}
}

func TestHiddenSessionsFiltered(t *testing.T) {
	t.Parallel()
	e := newEnv(t, simulator.Options{})
	ctx := testCtx(t)
	visible, err := e.host.Start(ctx, session.StartOptions{Cwd: e.dir, Message: "hello", Title: "Visible"})
	if err != nil {
		t.Fatal(err)
	}
	worker, _ := engine.WorkerSessionID("orch7", "task_002")
	if _, err := e.host.Start(ctx, session.StartOptions{Cwd: e.dir, Message: "hello", ID: worker}); err != nil {
		t.Fatal(err)
	}
	byTitle, err := e.host.Start(ctx, session.StartOptions{Cwd: e.dir, Message: "hello", Title: "worker __orch_x"})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(list []session.Info) []session.ID {
		var out []session.ID
		for _, s := range list {
			out = append(out, s.ID)
		}
		return out
	}
	tests := []struct {
		hidden bool
		want   []session.ID
	}{
		{false, []session.ID{visible}},
		{true, []session.ID{visible, worker, byTitle}},
	}
	for _, tt := range tests {
		list, err := e.host.List(ctx, tt.hidden)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(list); !slices.Equal(got, tt.want) {
			t.Errorf("List(includeHidden=%v) = %v, want %v", tt.hidden, got, tt.want)
		}
	}
}

func TestPermissionRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		scenario string
		decision session.PermissionDecision
		tool     string
		input    json.RawMessage
		want     string
		isErr    bool
	}{
		{"needs-permission", session.AllowOnce, "Write", nil, "allowed once", false},
		{"needs-permission", session.AllowAlways, "Write", nil, "allowed always", false},
		{"needs-permission", session.Deny, "Write", nil, "denied", true},
		{"asks-question", session.AllowOnce, "AskUserQuestion", json.RawMessage(`{"answers":{"Which part should I start with?":"Backend"}}`), `"Which part should I start with?"="Backend"`, false},
	}
	e := newEnv(t, simulator.Options{})
	for _, tt := range tests {
		t.Run(tt.scenario+"/"+string(tt.decision), func(t *testing.T) {
			ctx := testCtx(t)
			id, err := e.host.Start(ctx, session.StartOptions{Cwd: e.dir, Message: "[[sim:scenario=" + tt.scenario + "]] analysis please"})
			if err != nil {
				t.Fatal(err)
			}
			si := e.waitSession(t, id, "waiting for permission", func(si session.Info) bool { return len(si.Pending) > 0 })
			p := si.Pending[0]
			if p.ToolName != tt.tool || p.RequestID == "" || len(p.Input) == 0 {
				t.Fatalf("pending = %+v", p)
			}
			all, err := e.host.Pending(ctx)
			if err != nil || !slices.ContainsFunc(all, func(q session.PermissionRequest) bool { return q.RequestID == p.RequestID && q.SessionID == id }) {
				t.Fatalf("Pending() = %v, %v; want it to hold %s", all, err, p.RequestID)
			}
			if err := e.host.RespondPermission(ctx, p.RequestID, tt.decision, tt.input); err != nil {
				t.Fatalf("RespondPermission: %v", err)
			}
			entries := e.waitIdle(t, id)
			var result map[string]any
			for _, en := range entries {
				msg, _ := en["message"].(map[string]any)
				if c, ok := msg["content"].([]any); ok {
					for _, blk := range c {
						if m, _ := blk.(map[string]any); m["type"] == "tool_result" && strings.Contains(fmt.Sprint(m["content"]), tt.want) {
							result = m
						}
					}
				}
			}
			if result == nil || result["is_error"] != tt.isErr {
				t.Fatalf("no tool_result with %q and is_error=%v after the answer", tt.want, tt.isErr)
			}
			if si, _ := e.host.Session(ctx, id); len(si.Pending) != 0 {
				t.Fatalf("still pending after the answer: %+v", si.Pending)
			}
		})
	}
	ctx := testCtx(t)
	if err := e.host.RespondPermission(ctx, "perm_unknown", session.Deny, nil); err == nil {
		t.Fatal("RespondPermission(unknown request) succeeded")
	}
	if err := e.host.RespondPermission(ctx, "perm_x", "maybe", nil); err == nil {
		t.Fatal("RespondPermission(bad decision) succeeded")
	}
}

func TestInterruptAndArchive(t *testing.T) {
	t.Parallel()
	e := newEnv(t, simulator.Options{})
	ctx := testCtx(t)
	id, err := e.host.Start(ctx, session.StartOptions{Cwd: e.dir, Message: "[[sim:scenario=worker-hangs]] task_009: report completion"})
	if err != nil {
		t.Fatal(err)
	}
	e.waitSession(t, id, "busy", func(si session.Info) bool { return si.TurnRunning })
	if err := e.host.Interrupt(ctx, id); err != nil {
		t.Fatalf("Interrupt: %v", err)
	}
	entries := e.waitIdle(t, id)
	if res := entries[len(entries)-1]; res["is_error"] != true {
		t.Fatalf("interrupted turn result = %v", res)
	}
	if err := e.host.Archive(ctx, id); err != nil {
		t.Fatalf("Archive: %v", err)
	}
	if si, err := e.host.Session(ctx, id); err != nil || !si.Archived {
		t.Fatalf("after Archive: %+v, %v", si, err)
	}
	steps := []struct {
		name  string
		do    func() error
		check func(session.Info) bool
	}{
		{"Unarchive", func() error { return e.host.Unarchive(ctx, id) }, func(si session.Info) bool { return !si.Archived }},
		{"SetModel", func() error { return e.host.SetModel(ctx, id, "claude-haiku-4-5") }, func(si session.Info) bool { return si.Model == "claude-haiku-4-5" }},
		{"SetPermissionMode", func() error { return e.host.SetPermissionMode(ctx, id, "plan") }, func(si session.Info) bool { return si.PermissionMode == "plan" }},
		{"Stop", func() error { return e.host.Stop(ctx, id) }, func(si session.Info) bool { return !si.Running }},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if si, err := e.host.Session(ctx, id); err != nil || !st.check(si) {
			t.Fatalf("after %s: %+v, %v", st.name, si, err)
		}
	}
	if err := e.host.SetPermissionMode(ctx, id, "yolo"); err == nil {
		t.Fatal("SetPermissionMode accepted an unknown mode")
	}
}

func TestPageReloadRecovers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, simulator.Options{Speed: 20})
	ctx := testCtx(t)
	id, err := e.host.Start(ctx, session.StartOptions{Cwd: e.dir, Message: `[[sim:scenario=page-reload]] answer with "phase": "analysis"`})
	if err != nil {
		t.Fatal(err)
	}
	entries := e.waitIdle(t, id)
	if phase, _ := lastBlock(t, entries); phase != "analysis" {
		t.Fatalf("phase after the reload = %q", phase)
	}
	// Notices still arrive after the reload: the listeners came back.
	for len(e.host.Notices()) > 0 {
		<-e.host.Notices()
	}
	if err := e.host.Send(ctx, id, "one more"); err != nil {
		t.Fatalf("Send after reload: %v", err)
	}
	select {
	case n := <-e.host.Notices():
		if n.SessionID != id {
			t.Fatalf("notice for %s, want %s", n.SessionID, id)
		}
	case <-ctx.Done():
		t.Fatal("no notice after the page reloaded")
	}
	e.waitIdle(t, id)
	if st := e.host.Conn().Status(); st.State != chrome.Connected {
		t.Fatalf("status after reload = %+v", st)
	}
}

func TestReconnectAfterPageClosed(t *testing.T) {
	t.Parallel()
	u := needBrowser(t)
	e := newEnv(t, simulator.Options{})
	ctx := testCtx(t)
	id, err := e.host.Start(ctx, session.StartOptions{Cwd: e.dir, Message: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	e.waitIdle(t, id)
	targets, err := chrome.Targets(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range chrome.MatchPages(targets, []string{e.sim.PageURL()}) {
		if err := chrome.ClosePage(ctx, u, p.ID); err != nil {
			t.Fatal(err)
		}
	}
	// Calls wait while the page is gone, and work once it is back.
	done := make(chan error, 1)
	go func() {
		_, err := e.host.Session(ctx, id)
		done <- err
	}()
	deadline := time.Now().Add(30 * time.Second)
	for e.host.Conn().Status().State == chrome.Connected && time.Now().Before(deadline) {
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
		}
	}
	if st := e.host.Conn().Status(); st.State != chrome.Reconnecting {
		t.Fatalf("status after the page closed = %+v, want reconnecting", st)
	}
	if _, err := chrome.OpenPage(ctx, u, e.sim.URL()); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Session after reconnect: %v", err)
	}
	if st := e.host.Conn().Status(); st.State != chrome.Connected {
		t.Fatalf("status = %+v, want connected", st)
	}
}

func TestDeadEndpoint(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	dead := srv.URL
	srv.Close()
	ctx := testCtx(t)
	_, err := Dial(ctx, chrome.Config{Endpoint: dead, Logger: slog.New(slog.DiscardHandler)}, Options{})
	if !errors.Is(err, chrome.ErrUnreachable) {
		t.Fatalf("Dial(dead) error = %v, want ErrUnreachable", err)
	}
	r := Diagnose(ctx, DoctorOptions{Endpoint: dead, GOOS: "darwin", ChromePath: chromiumPath})
	if r.OK {
		t.Fatal("Diagnose(dead).OK = true")
	}
	port := strings.TrimPrefix(dead[strings.LastIndex(dead, ":"):], ":")
	fix := ""
	for _, c := range r.Checks {
		if c.Name == "endpoint" && !c.OK {
			fix = c.Fix
		}
	}
	if !strings.Contains(fix, "open -a Claude --args --remote-debugging-port="+port) {
		t.Fatalf("endpoint fix = %q, want the macOS start command with port %s", fix, port)
	}
	if _, err := Dial(ctx, chrome.Config{Endpoint: "http://192.0.2.1:9222"}, Options{}); !errors.Is(err, chrome.ErrRemoteEndpoint) {
		t.Fatalf("Dial(remote) error = %v, want ErrRemoteEndpoint", err)
	}
}

func TestDoctorAgainstSimulator(t *testing.T) {
	t.Parallel()
	e := newEnv(t, simulator.Options{})
	ctx := testCtx(t)
	r := Diagnose(ctx, DoctorOptions{Endpoint: e.host.Conn().Endpoint(), PagePatterns: []string{e.sim.PageURL()}, ChromePath: chromiumPath})
	if !r.OK {
		t.Fatalf("Diagnose against the simulator failed:\n%+v", r.Checks)
	}
	if len(r.Lists) != 1 || r.Lists[0].Title != "LocalSessions methods" {
		t.Fatalf("report lists = %+v, want the LocalSessions methods", r.Lists)
	}
	methods := r.Lists[0].Items
	for _, m := range methods {
		if !m.OK || m.State != "present" {
			t.Errorf("method %s reported missing", m.Name)
		}
	}
	if len(methods) != len(RequiredMethods)+len(OptionalMethods) || !r.Checks[0].OK || r.Checks[0].Name != "chrome" {
		t.Fatalf("report = %+v", r)
	}
	if r.Target != e.host.Conn().Endpoint() || r.Verdict != "Baton can drive the sessions at "+r.Target+"." {
		t.Fatalf("report target %q, verdict %q", r.Target, r.Verdict)
	}
}

func TestMissingMethods(t *testing.T) {
	t.Parallel()
	u := needBrowser(t)
	tests := []struct {
		page, method string
	}{
		{"nolocalsessions.html", ""},
		{"partial.html", "getTranscript"},
	}
	srv := httptest.NewServer(http.FileServer(http.Dir("testdata")))
	t.Cleanup(srv.Close)
	for _, tt := range tests {
		t.Run(tt.page, func(t *testing.T) {
			t.Parallel()
			ctx := testCtx(t)
			p, err := chrome.OpenPage(ctx, u, srv.URL+"/"+tt.page)
			if err != nil {
				t.Fatal(err)
			}
			defer chrome.ClosePage(context.Background(), u, p.ID)
			_, err = Dial(ctx, chrome.Config{Endpoint: u.String(), PagePatterns: []string{srv.URL + "/" + tt.page}, Logger: slog.New(slog.DiscardHandler)}, Options{})
			var mm *MissingMethodError
			if !errors.As(err, &mm) || mm.Method != tt.method {
				t.Fatalf("Dial error = %v, want a missing %q", err, tt.method)
			}
			if tt.method != "" && !strings.Contains(err.Error(), tt.method) {
				t.Fatalf("error %q does not name %s", err, tt.method)
			}
		})
	}
}

func TestSendConfirmsTheIntendedSession(t *testing.T) {
	t.Parallel()
	u := needBrowser(t)
	srv := httptest.NewServer(http.FileServer(http.Dir("testdata")))
	t.Cleanup(srv.Close)
	ctx := testCtx(t)
	p, err := chrome.OpenPage(ctx, u, srv.URL+"/misroute.html")
	if err != nil {
		t.Fatal(err)
	}
	defer chrome.ClosePage(context.Background(), u, p.ID)
	h, err := Dial(ctx, chrome.Config{Endpoint: u.String(), PagePatterns: []string{srv.URL + "/misroute.html"}, Logger: slog.New(slog.DiscardHandler)}, Options{SendTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	if err := h.Send(ctx, "local_a", "to the focused session"); err != nil {
		t.Fatalf("Send to the focused session: %v", err)
	}
	if err := h.Send(ctx, "local_b", "to the other session"); !errors.Is(err, ErrNotDelivered) {
		t.Fatalf("Send that landed elsewhere: error = %v, want ErrNotDelivered", err)
	}
}

// TestReadsSurviveReloads keeps reading while the page reloads again and
// again: every idempotent call must succeed (retried on the new page).
func TestReadsSurviveReloads(t *testing.T) {
	t.Parallel()
	e := newEnv(t, simulator.Options{})
	ctx := testCtx(t)
	id, err := e.host.Start(ctx, session.StartOptions{Cwd: e.dir, Message: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	e.waitIdle(t, id)
	stop := make(chan struct{})
	errs := make(chan error, 1)
	go func() {
		defer close(errs)
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := e.host.Read(ctx, id, session.Cursor{}); err != nil {
				errs <- fmt.Errorf("read %d: %w", n, err)
				return
			}
			if _, err := e.host.Session(ctx, id); err != nil {
				errs <- fmt.Errorf("session %d: %w", n, err)
				return
			}
		}
	}()
	origin := func() string {
		raw, err := e.host.Conn().Call(ctx, "function () { return String(performance.timeOrigin); }")
		if err != nil {
			return ""
		}
		return string(raw)
	}
	for i := range 5 {
		before := origin()
		for before == "" { // a call failed: the previous reload is still under way
			select {
			case <-ctx.Done():
				t.Fatalf("page never answered before reload %d", i)
			case <-time.After(10 * time.Millisecond):
			}
			before = origin()
		}
		e.sim.Reload()
		// Wait (bounded) until the page has really reloaded. The reload
		// notice travels over the page's event stream, which a page that
		// has only just loaded may not have opened yet: repeat it then.
		asked := time.Now()
		for o := origin(); o == before || o == ""; o = origin() {
			select {
			case <-ctx.Done():
				t.Fatalf("reload %d never happened", i)
			case <-time.After(10 * time.Millisecond):
			}
			if time.Since(asked) > time.Second {
				e.sim.Reload()
				asked = time.Now()
			}
		}
	}
	close(stop)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
}
