package simulator

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/agent/agenttest"
	"github.com/baton-app/baton/backend/protocol"
)

func newSim(t *testing.T, opts Options) (*Simulator, string) {
	t.Helper()
	if opts.Speed == 0 {
		opts.Speed = 1000
	}
	opts.Logger = slog.New(slog.DiscardHandler)
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// A connection the shared transport dialed but never used is
		// "new" to the server, whose Shutdown waits 5 s for it: close it.
		http.DefaultClient.CloseIdleConnections()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	tokens.Store(s.base, s.token)
	return s, s.base
}

// tokens maps a test simulator's base address to its token, so that call
// sends it as the page does.
var tokens sync.Map

func withToken(req *http.Request) {
	for base, tok := range tokens.Range {
		if strings.HasPrefix(req.URL.String(), base.(string)+"/") {
			req.Header.Set(TokenHeader, tok.(string))
		}
	}
}

func call(t *testing.T, method, u string, body any) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, u, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	withToken(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func start(t *testing.T, base string, info map[string]any) string {
	t.Helper()
	code, b := call(t, "POST", base+"/api/start", info)
	if code != http.StatusOK {
		t.Fatalf("start: %d %s", code, b)
	}
	var res struct{ SessionID string }
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	return res.SessionID
}

// waitResult waits (bounded) until the session's transcript has results
// results, and returns the transcript.
func waitResult(t *testing.T, base, id string, results int) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, b := call(t, "GET", base+"/api/transcript?id="+url.QueryEscape(id), nil)
		var tr struct {
			Entries []map[string]any `json:"entries"`
		}
		if err := json.Unmarshal(b, &tr); err != nil {
			t.Fatalf("transcript: %v: %s", err, b)
		}
		n := 0
		for _, e := range tr.Entries {
			if e["type"] == "result" {
				n++
			}
		}
		if n >= results {
			return tr.Entries
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s: %d results after 30s", id, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// finalText is the text of the last assistant entry.
func finalText(entries []map[string]any) string {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i]["type"] != "assistant" {
			continue
		}
		msg := entries[i]["message"].(map[string]any)
		for _, blk := range msg["content"].([]any) {
			if m := blk.(map[string]any); m["type"] == "text" {
				return m["text"].(string)
			}
		}
	}
	return ""
}

// parseBlock returns the JSON between the delimiters, or "" and false.
func parseBlock(text string) (string, bool) {
	s := strings.LastIndex(text, protocol.DefaultStart)
	if s < 0 {
		return "", false
	}
	e := strings.Index(text[s:], protocol.DefaultEnd)
	if e < 0 {
		return "", false
	}
	return strings.TrimSpace(text[s+len(protocol.DefaultStart) : s+e]), true
}

func TestPhaseAnswers(t *testing.T) {
	t.Parallel()
	_, base := newSim(t, Options{})
	dir := agenttest.Project(t)
	required := map[string][]string{
		"analysis":     {"summary", "recommended_splits"},
		"task_list":    {"tasks"},
		"completion":   {"task_id", "status"},
		"aggregation":  {"status"},
		"verification": {"status"},
	}
	prompts := map[string]string{
		"analysis":     `Analyze. Answer {"phase": "analysis", "data": {...}}`,
		"task_list":    `Plan. Answer {"phase": "task_list", "data": {"tasks": []}}`,
		"completion":   `Do task_007 on api/. Answer {"phase": "completion", "data": {"task_id": "task_007"}}`,
		"aggregation":  `Merge task_001 and task_002. Answer {"phase": "aggregation"}`,
		"verification": `Verify. Answer {"phase": "verification"}`,
	}
	tests := []struct {
		scenario string
		check    func(t *testing.T, phase, text string)
	}{
		{"happy", func(t *testing.T, phase, text string) {
			body, ok := parseBlock(text)
			if !ok {
				t.Fatalf("no block in %q", text)
			}
			var v struct {
				Phase string         `json:"phase"`
				Data  map[string]any `json:"data"`
			}
			if err := json.Unmarshal([]byte(body), &v); err != nil {
				t.Fatalf("block is not JSON: %v", err)
			}
			if v.Phase != phase {
				t.Fatalf("phase = %q, want %q", v.Phase, phase)
			}
			for _, k := range required[phase] {
				if _, ok := v.Data[k]; !ok {
					t.Fatalf("%s block lacks %s: %v", phase, k, v.Data)
				}
			}
			if phase == "completion" && v.Data["task_id"] != "task_007" {
				t.Fatalf("task_id = %v", v.Data["task_id"])
			}
			if phase == "task_list" {
				tasks := v.Data["tasks"].([]any)
				if len(tasks) != 4 { // ".", api, store, plus the integration task
					t.Fatalf("task_list has %d tasks: %v", len(tasks), tasks)
				}
			}
		}},
		{"malformed-json", func(t *testing.T, phase, text string) {
			body, ok := parseBlock(text)
			if !ok || json.Valid([]byte(body)) {
				t.Fatalf("want a block with broken JSON, got %q", text)
			}
		}},
		{"no-delimiters", func(t *testing.T, phase, text string) {
			if strings.Contains(text, protocol.DefaultStart) || !strings.Contains(text, `"phase"`) {
				t.Fatalf("want JSON without delimiters, got %q", text)
			}
		}},
		{"missing-fields", func(t *testing.T, phase, text string) {
			body, _ := parseBlock(text)
			var v struct {
				Data map[string]any `json:"data"`
			}
			if err := json.Unmarshal([]byte(body), &v); err != nil {
				t.Fatal(err)
			}
			missing := false
			for _, k := range required[phase] {
				if _, ok := v.Data[k]; !ok {
					missing = true
				}
			}
			if tasks, ok := v.Data["tasks"].([]any); ok && len(tasks) > 0 {
				_, has := tasks[0].(map[string]any)["description"]
				missing = missing || !has
			}
			if !missing && phase != "task_list" {
				t.Fatalf("%s block has every required field: %v", phase, v.Data)
			}
		}},
	}
	for _, tt := range tests {
		for phase, prompt := range prompts {
			t.Run(tt.scenario+"/"+phase, func(t *testing.T) {
				t.Parallel()
				id := start(t, base, map[string]any{"cwd": dir, "message": "[[sim:scenario=" + tt.scenario + "]] " + prompt})
				entries := waitResult(t, base, id, 1)
				tt.check(t, phase, finalText(entries))
				if tt.scenario != "happy" {
					// A re-prompt of the same phase gets a valid answer.
					call(t, "POST", base+"/api/send", map[string]string{"sessionId": id, "message": "Again, strictly: " + prompt})
					entries = waitResult(t, base, id, 2)
					body, ok := parseBlock(finalText(entries))
					if !ok || !json.Valid([]byte(body)) {
						t.Fatalf("second answer is not a valid block: %q", finalText(entries))
					}
				}
			})
		}
	}
}

func TestWorkerFails(t *testing.T) {
	t.Parallel()
	s, base := newSim(t, Options{})
	if err := s.SetScenario("_worker_task_002", "worker-fails"); err != nil {
		t.Fatal(err)
	}
	dir := agenttest.Project(t)
	id := start(t, base, map[string]any{"cwd": dir, "sessionId": "local___orch_r1_worker_task_002", "message": `Do it; answer {"phase": "completion"}`})
	entries := waitResult(t, base, id, 1)
	body, _ := parseBlock(finalText(entries))
	var v struct {
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil || v.Data["status"] != "failed" || v.Data["task_id"] != "task_002" {
		t.Fatalf("completion = %s (%v)", body, err)
	}
	if res := entries[len(entries)-1]; res["is_error"] != true {
		t.Fatalf("result = %v", res)
	}
	// The rule is by id: another worker is happy.
	other := start(t, base, map[string]any{"cwd": dir, "sessionId": "local___orch_r1_worker_task_003", "message": `Do it; answer {"phase": "completion"}`})
	body, _ = parseBlock(finalText(waitResult(t, base, other, 1)))
	if !strings.Contains(body, `"success"`) {
		t.Fatalf("other worker = %s", body)
	}
}

func TestFolderEndpointStaysInside(t *testing.T) {
	t.Parallel()
	_, base := newSim(t, Options{Scenario: "worker-hangs"})
	dir := agenttest.Project(t)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("TOPSECRET-CONTENT"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	id := start(t, base, map[string]any{"cwd": dir, "message": "hello"})
	tests := []struct {
		path string
		ok   bool
	}{
		{"README.md", true},
		{"api/server.go", true},
		{"../secret.txt", false},
		{"api/../../secret.txt", false},
		{outside, false},
		{"link.txt", false},
		{"", false},
	}
	for _, tt := range tests {
		code, b := call(t, "GET", base+"/fs/"+url.PathEscape(id)+"/read?path="+url.QueryEscape(tt.path), nil)
		if (code == http.StatusOK) != tt.ok || strings.Contains(string(b), "TOPSECRET") && !tt.ok {
			t.Errorf("read %q = %d %q, want ok=%v", tt.path, code, b, tt.ok)
		}
	}
	code, b := call(t, "GET", base+"/fs/"+url.PathEscape(id)+"/list", nil)
	if code != http.StatusOK || strings.Contains(string(b), "TOPSECRET") || !strings.Contains(string(b), "api/server.go") {
		t.Fatalf("list = %d %s", code, b)
	}
	if code, _ := call(t, "GET", base+"/fs/local_nope/list", nil); code != http.StatusNotFound {
		t.Fatalf("list of unknown session = %d", code)
	}
}

func TestStartValidation(t *testing.T) {
	t.Parallel()
	_, base := newSim(t, Options{Scenario: "worker-hangs"})
	dir := agenttest.Project(t)
	tests := []struct {
		name string
		info map[string]any
	}{
		{"relative cwd", map[string]any{"cwd": "rel", "message": "x"}},
		{"missing cwd", map[string]any{"cwd": filepath.Join(dir, "nope"), "message": "x"}},
		{"empty message", map[string]any{"cwd": dir, "message": ""}},
		{"bad id", map[string]any{"cwd": dir, "message": "x", "sessionId": "local_../x"}},
		{"bad mode", map[string]any{"cwd": dir, "message": "x", "permissionMode": "yolo"}},
	}
	for _, tt := range tests {
		if code, b := call(t, "POST", base+"/api/start", tt.info); code != http.StatusBadRequest {
			t.Errorf("%s: start = %d %s, want 400", tt.name, code, b)
		}
	}
	start(t, base, map[string]any{"cwd": dir, "message": "x", "sessionId": "local_dup"})
	if code, _ := call(t, "POST", base+"/api/start", map[string]any{"cwd": dir, "message": "x", "sessionId": "local_dup"}); code != http.StatusBadRequest {
		t.Errorf("duplicate id: start = %d, want 400", code)
	}
}

func TestForeignHostRefused(t *testing.T) {
	t.Parallel()
	_, base := newSim(t, Options{})
	req, _ := http.NewRequest("GET", base+"/api/sessions", nil)
	withToken(req)
	req.Host = "evil.example:80"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign Host = %d, want 403", resp.StatusCode)
	}
	dir := agenttest.Project(t)
	body := `{"cwd":` + strconvQuote(dir) + `,"message":"x"}`
	tests := []struct {
		name, origin, ctype string
		want                int
	}{
		{"foreign origin", "https://evil.example", "application/json", http.StatusForbidden},
		{"simple form post", "", "text/plain", http.StatusUnsupportedMediaType},
		{"own origin", base, "application/json", http.StatusOK},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest("POST", base+"/api/start", strings.NewReader(body))
		withToken(req)
		req.Header.Set("Content-Type", tt.ctype)
		if tt.origin != "" {
			req.Header.Set("Origin", tt.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s: start = %d, want %d", tt.name, resp.StatusCode, tt.want)
		}
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestOptionsValidation(t *testing.T) {
	t.Parallel()
	if _, err := New(Options{Scenario: "nope"}); err == nil {
		t.Fatal("New accepted an unknown scenario")
	}
	s, err := New(Options{Addr: "0.0.0.0:0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err == nil {
		t.Fatal("Start listened on a non-loopback address")
	}
	if err := s.SetScenario("x", "nope"); err == nil {
		t.Fatal("SetScenario accepted an unknown scenario")
	}
}

// The API and the folder endpoint answer only requests with the per-launch
// token, which only the page (from its fragment) and the agents hold; the
// page itself is served to anyone on the machine but holds no secret.
func TestAPIRequiresTheLaunchToken(t *testing.T) {
	t.Parallel()
	s, base := newSim(t, Options{})
	dir := agenttest.Project(t)
	if code, b := call(t, "POST", base+"/api/start", map[string]any{"cwd": dir, "message": "x", "sessionId": "local_tok"}); code != http.StatusOK {
		t.Fatalf("start with the token = %d %s", code, b)
	}
	for _, tc := range []struct{ method, path, token string }{
		{"GET", "/api/sessions", ""},
		{"GET", "/api/sessions", "wrong"},
		{"GET", "/api/transcript?id=local_tok", ""},
		{"POST", "/api/send", ""},
		{"GET", "/fs/local_tok/list", ""},
		{"GET", "/fs/local_tok/read?path=README.md", "0000"},
		{"GET", "/api/events", ""},
		{"GET", "/api/events?token=wrong", ""},
	} {
		req, _ := http.NewRequest(tc.method, base+tc.path, strings.NewReader(`{"sessionId":"local_tok","message":"hi"}`))
		req.Header.Set("Content-Type", "application/json")
		if tc.token != "" {
			req.Header.Set(TokenHeader, tc.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s %s with token %q = %d, want 403", tc.method, tc.path, tc.token, resp.StatusCode)
		}
	}
	resp, err := http.Get(base + "/baton-simulator/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || strings.Contains(string(page), s.token) {
		t.Fatalf("the page = %d, holds the token: %v", resp.StatusCode, strings.Contains(string(page), s.token))
	}
	if !strings.Contains(s.URL(), "#token="+s.token) || strings.Contains(s.PageURL(), s.token) {
		t.Fatalf("URL %s, PageURL %s", s.URL(), s.PageURL())
	}
}
