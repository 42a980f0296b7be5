package modelsim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/baton-app/baton/backend/agent"
	"github.com/baton-app/baton/backend/testsupport"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// sseEvent is one event as an EventSource dispatches it.
type sseEvent struct {
	event, data string
}

// readSSE reads a text/event-stream as the HTML standard's parser does:
// lines end in LF, CR or CRLF; "field: value" (one leading space of the
// value dropped); data lines joined by LF; a blank line dispatches; lines
// starting with ":" are comments; an event without data is not
// dispatched. It returns the events and the read error, if any (a stream
// cut before its end).
func readSSE(r io.Reader) ([]sseEvent, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
			if data[i] == '\r' {
				if i+1 == len(data) && !atEOF {
					return 0, nil, nil
				}
				if i+1 < len(data) && data[i+1] == '\n' {
					return i + 2, data[:i], nil
				}
			}
			return i + 1, data[:i], nil
		}
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	})
	var out []sseEvent
	var ev string
	var data []string
	hasData := false
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if hasData {
				name := ev
				if name == "" {
					name = "message"
				}
				out = append(out, sseEvent{name, strings.Join(data, "\n")})
			}
			ev, data, hasData = "", nil, false
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			ev = value
		case "data":
			data = append(data, value)
			hasData = true
		}
	}
	return out, sc.Err()
}

func newServer(t *testing.T, opts Options) *Server {
	t.Helper()
	opts.Logger = slog.New(slog.DiscardHandler)
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return s
}

// project is a small Go project folder.
func project(t *testing.T) string {
	t.Helper()
	return testsupport.Project(t, map[string]string{
		"README.md":     "# Demo\n",
		"go.mod":        "module demo\n",
		"api/server.go": "package api\n",
	})
}

// cliBody is a request as the Claude Code CLI sends it: the prompt beside
// a reminder, the environment text in a system message, its tools.
func cliBody(dir, prompt string, stream bool, more ...map[string]any) map[string]any {
	msgs := []any{
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "<system-reminder>\nAttribution.\n</system-reminder>\n"},
			map[string]any{"type": "text", "text": prompt},
		}},
		map[string]any{"role": "system", "content": []any{map[string]any{"type": "text", "text": "# Environment\n - Primary working directory: " + dir + "\n"}}},
	}
	for _, m := range more {
		msgs = append(msgs, m)
	}
	return map[string]any{
		"model": "claude-opus-5-5", "max_tokens": 32000, "stream": stream,
		"system":   []any{map[string]any{"type": "text", "text": "You are a Claude agent."}},
		"tools":    []any{map[string]any{"name": "Bash", "input_schema": map[string]any{}}, map[string]any{"name": "Read", "input_schema": map[string]any{}}},
		"messages": msgs,
		"metadata": map[string]any{"user_id": `{"device_id":"d","account_uuid":"","session_id":"sess-1"}`},
	}
}

func post(t *testing.T, s *Server, path string, body any, header ...string) *http.Response {
	t.Helper()
	b, _ := json.Marshal(body)
	req, err := http.NewRequest(http.MethodPost, s.URL()+path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// assembled is a message put together from its stream events, as a client
// does.
type assembled struct {
	blocks     []map[string]any
	stopReason string
	usage      map[string]any
	start      map[string]any
	names      []string
}

// assemble checks the order of the events and puts the message together.
func assemble(t *testing.T, evs []sseEvent) assembled {
	t.Helper()
	var a assembled
	partial := map[int]string{}
	open := -1
	for i, ev := range evs {
		var d map[string]any
		if err := json.Unmarshal([]byte(ev.data), &d); err != nil {
			t.Fatalf("event %d (%s): data is not JSON: %v", i, ev.event, err)
		}
		if d["type"] != ev.event {
			t.Errorf("event %q carries type %v", ev.event, d["type"])
		}
		a.names = append(a.names, ev.event)
		switch ev.event {
		case "message_start":
			if i != 0 {
				t.Errorf("message_start at %d", i)
			}
			a.start, _ = d["message"].(map[string]any)
		case "content_block_start":
			idx := int(d["index"].(float64))
			if open != -1 || idx != len(a.blocks) {
				t.Errorf("block %d starts while %d is open or out of order", idx, open)
			}
			open = idx
			cb, _ := d["content_block"].(map[string]any)
			a.blocks = append(a.blocks, cb)
		case "content_block_delta":
			idx := int(d["index"].(float64))
			if idx != open {
				t.Errorf("delta for block %d while %d is open", idx, open)
			}
			delta, _ := d["delta"].(map[string]any)
			switch delta["type"] {
			case "text_delta":
				a.blocks[idx]["text"] = a.blocks[idx]["text"].(string) + delta["text"].(string)
			case "input_json_delta":
				partial[idx] += delta["partial_json"].(string)
			default:
				t.Errorf("delta type %v", delta["type"])
			}
		case "content_block_stop":
			idx := int(d["index"].(float64))
			if idx != open {
				t.Errorf("stop of block %d while %d is open", idx, open)
			}
			if js, ok := partial[idx]; ok {
				var in map[string]any
				if err := json.Unmarshal([]byte(js), &in); err != nil {
					t.Errorf("tool input of block %d is not JSON: %q", idx, js)
				}
				a.blocks[idx]["input"] = in
			}
			open = -1
		case "message_delta":
			delta, _ := d["delta"].(map[string]any)
			a.stopReason, _ = delta["stop_reason"].(string)
			a.usage, _ = d["usage"].(map[string]any)
		case "message_stop":
			if i != len(evs)-1 {
				t.Errorf("message_stop at %d of %d", i, len(evs))
			}
		case "ping":
		default:
			t.Errorf("unknown event %q", ev.event)
		}
	}
	return a
}

func TestStreamToolUseThenText(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	dir := project(t)
	resp := post(t, s, "/v1/messages?beta=true", cliBody(dir, `Analyse. Answer {"phase": "analysis"}`, true))
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	evs, err := readSSE(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := assemble(t, evs)
	if a.names[len(a.names)-1] != "message_stop" || !strings.Contains(strings.Join(a.names, ","), "ping") {
		t.Errorf("events = %v", a.names)
	}
	if a.stopReason != "tool_use" || len(a.blocks) != 1 || a.blocks[0]["type"] != "tool_use" || a.blocks[0]["name"] != "Bash" {
		t.Fatalf("message = %+v", a)
	}
	if a.start["model"] != "claude-opus-5-5" || a.start["role"] != "assistant" || a.start["stop_reason"] != nil {
		t.Errorf("message_start = %v", a.start)
	}
	in, _ := a.blocks[0]["input"].(map[string]any)
	cmd, _ := in["command"].(string)
	if !strings.HasPrefix(cmd, "find . ") {
		t.Errorf("tool input = %v", in)
	}
	for _, k := range []string{"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"} {
		if n, ok := a.usage[k].(float64); !ok || k != "cache_read_input_tokens" && n <= 0 {
			t.Errorf("usage %s = %v in %v", k, a.usage[k], a.usage)
		}
	}

	// the CLI runs the listing and sends the result: the agent reads a file
	id, _ := a.blocks[0]["id"].(string)
	resp = post(t, s, "/v1/messages?beta=true", cliBody(dir, `Analyse. Answer {"phase": "analysis"}`, true,
		map[string]any{"role": "assistant", "content": []any{a.blocks[0]}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "7\tREADME.md\n12\tgo.mod\n12\tapi/server.go\n"}}},
	))
	evs, err = readSSE(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	g := assemble(t, evs)
	if in, _ := g.blocks[0]["input"].(map[string]any); len(g.blocks) != 1 || g.blocks[0]["name"] != "Bash" || in["command"] != agent.UntrackedCommand {
		t.Fatalf("second reply = %+v, want the files git does not track", g.blocks)
	}
	// not a git repository: nothing is left out
	history := []map[string]any{
		{"role": "assistant", "content": []any{a.blocks[0]}},
		{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "7\tREADME.md\n12\tgo.mod\n12\tapi/server.go\n"}}},
		{"role": "assistant", "content": []any{g.blocks[0]}},
		{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": g.blocks[0]["id"], "is_error": true, "content": "fatal: not a git repository"}}},
	}
	resp = post(t, s, "/v1/messages?beta=true", cliBody(dir, `Analyse. Answer {"phase": "analysis"}`, true, history...))
	evs, err = readSSE(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	b := assemble(t, evs)
	if len(b.blocks) != 1 || b.blocks[0]["name"] != "Read" {
		t.Fatalf("third reply = %+v", b.blocks)
	}
	if in, _ := b.blocks[0]["input"].(map[string]any); in["file_path"] != filepath.Join(dir, "README.md") {
		t.Errorf("read %v", in)
	}
	// the prefix the first request wrote to the cache, the later one reads;
	// its longer conversation costs more input tokens
	if cr, _ := b.usage["cache_read_input_tokens"].(float64); cr <= 0 || cr != a.usage["cache_creation_input_tokens"] ||
		b.usage["cache_creation_input_tokens"] != 0.0 || b.usage["input_tokens"].(float64) <= a.usage["input_tokens"].(float64) {
		t.Errorf("usage of a later request %v after %v", b.usage, a.usage)
	}
	id2, _ := b.blocks[0]["id"].(string)
	resp = post(t, s, "/v1/messages?beta=true", cliBody(dir, `Analyse. Answer {"phase": "analysis"}`, true, append(history,
		map[string]any{"role": "assistant", "content": []any{b.blocks[0]}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id2, "content": "1\t# Demo\n"}}},
	)...))
	evs, err = readSSE(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	c := assemble(t, evs)
	if c.stopReason != "end_turn" || len(c.blocks) != 1 || c.blocks[0]["type"] != "text" {
		t.Fatalf("final reply = %+v", c.blocks)
	}
	text, _ := c.blocks[0]["text"].(string)
	if !strings.Contains(text, "<<<ORCHESTRATOR_RESPONSE>>>") || !strings.Contains(text, `"phase": "analysis"`) || !strings.Contains(text, "3 files") {
		t.Errorf("final text:\n%s", text)
	}
}

func TestNonStreaming(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	resp := post(t, s, "/v1/messages", cliBody(project(t), "hello", false))
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	content, _ := m["content"].([]any)
	usage, _ := m["usage"].(map[string]any)
	if resp.StatusCode != 200 || m["type"] != "message" || m["role"] != "assistant" || m["stop_reason"] != "tool_use" || len(content) != 1 || usage["output_tokens"] == nil {
		t.Errorf("reply %d = %v", resp.StatusCode, m)
	}
	if !strings.HasPrefix(resp.Header.Get("request-id"), "req_") {
		t.Errorf("request-id = %q", resp.Header.Get("request-id"))
	}
}

func TestCountTokensAndModels(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	resp := post(t, s, "/v1/messages/count_tokens?beta=true", cliBody(project(t), "hello", false))
	var n struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&n); err != nil || resp.StatusCode != 200 || n.InputTokens < 50 {
		t.Errorf("count_tokens %d: %+v %v", resp.StatusCode, n, err)
	}
	r, err := http.Get(s.URL() + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var list struct {
		Data []struct {
			Type, ID string
		} `json:"data"`
		HasMore bool `json:"has_more"`
	}
	if err := json.NewDecoder(r.Body).Decode(&list); err != nil || len(list.Data) != len(Models) || list.Data[0].Type != "model" {
		t.Errorf("models = %+v %v", list, err)
	}
	r2, err := http.Get(s.URL() + "/v1/models/" + Models[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	r3, err := http.Get(s.URL() + "/v1/models/nope")
	if err != nil {
		t.Fatal(err)
	}
	r3.Body.Close()
	if r2.StatusCode != 200 || r3.StatusCode != 404 {
		t.Errorf("model statuses %d, %d", r2.StatusCode, r3.StatusCode)
	}
}

func TestLoopbackOnly(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", "192.168.1.10:8080", ":8080", "example.com:80", "nonsense"} {
		if _, err := New(Options{Addr: addr}); err == nil {
			t.Errorf("%s accepted", addr)
		} else if addr != "nonsense" && !strings.Contains(err.Error(), "not a loopback address") {
			t.Errorf("%s: %v", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0", "[::1]:0"} {
		if err := CheckLoopback(addr); err != nil {
			t.Errorf("%s refused: %v", addr, err)
		}
	}
	if ln, err := net.Listen("tcp", "[::1]:0"); err == nil {
		ln.Close()
		s := newServer(t, Options{Addr: "[::1]:0"})
		r, err := http.Get(s.URL() + "/v1/models")
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != 200 || !strings.HasPrefix(s.URL(), "http://[::1]:") {
			t.Errorf("IPv6 loopback: %d at %s", r.StatusCode, s.URL())
		}
	} else {
		t.Logf("no IPv6 loopback here: %v", err)
	}
}

func TestWrongHostAndOriginRefused(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	for _, h := range [][2]string{{"Host", "evil.example:80"}, {"Origin", "http://evil.example"}} {
		req, _ := http.NewRequest(http.MethodGet, s.URL()+"/v1/models", nil)
		if h[0] == "Host" {
			req.Host = h[1]
		} else {
			req.Header.Set(h[0], h[1])
		}
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != http.StatusForbidden {
			t.Errorf("%s %s: %d", h[0], h[1], r.StatusCode)
		}
	}
}

// apiErr decodes the API's error shape.
func apiErr(t *testing.T, resp *http.Response) (kind, msg string) {
	t.Helper()
	var e struct {
		Type  string `json:"type"`
		Error struct {
			Type, Message string
		} `json:"error"`
		RequestID string `json:"request_id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
		t.Fatal(err)
	}
	if e.Type != "error" || !strings.HasPrefix(e.RequestID, "req_") || e.Error.Message == "" {
		t.Errorf("error body = %+v", e)
	}
	return e.Error.Type, e.Error.Message
}

func TestFaultScenarios(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	dir := project(t)
	prompt := func(sc string) map[string]any { return cliBody(dir, "Analyse [[sim:scenario="+sc+"]]", true) }

	t.Run("overloaded", func(t *testing.T) {
		resp := post(t, s, "/v1/messages", prompt("overloaded"))
		if kind, _ := apiErr(t, resp); resp.StatusCode != 529 || kind != "overloaded_error" {
			t.Errorf("%d %s", resp.StatusCode, kind)
		}
	})
	t.Run("server-error", func(t *testing.T) {
		resp := post(t, s, "/v1/messages", prompt("server-error"))
		if kind, _ := apiErr(t, resp); resp.StatusCode != 500 || kind != "api_error" {
			t.Errorf("%d %s", resp.StatusCode, kind)
		}
	})
	t.Run("rate-limited", func(t *testing.T) {
		resp := post(t, s, "/v1/messages", prompt("rate-limited after=7"))
		if kind, _ := apiErr(t, resp); resp.StatusCode != 429 || kind != "rate_limit_error" || resp.Header.Get("retry-after") != "7" {
			t.Errorf("%d %s retry-after %q", resp.StatusCode, kind, resp.Header.Get("retry-after"))
		}
	})
	t.Run("usage-limit", func(t *testing.T) {
		before := time.Now()
		resp := post(t, s, "/v1/messages", prompt("usage-limit"))
		kind, _ := apiErr(t, resp)
		reset, err := strconv.ParseInt(resp.Header.Get("anthropic-ratelimit-unified-reset"), 10, 64)
		if resp.StatusCode != 429 || kind != "rate_limit_error" || resp.Header.Get("anthropic-ratelimit-unified-status") != "rejected" || err != nil {
			t.Fatalf("%d %s %v", resp.StatusCode, kind, resp.Header)
		}
		if at := time.Unix(reset, 0); !at.After(before) || at.After(before.Add(time.Hour+time.Second)) || at.Minute() != 0 {
			t.Errorf("reset at %v, want the next full hour", at)
		}
	})
	t.Run("garbage", func(t *testing.T) {
		resp := post(t, s, "/v1/messages", prompt("garbage"))
		evs, _ := readSSE(resp.Body)
		bad := 0
		for _, ev := range evs {
			if !json.Valid([]byte(ev.data)) {
				bad++
			}
		}
		if resp.StatusCode != 200 || bad == 0 {
			t.Errorf("%d, %d unreadable events of %d", resp.StatusCode, bad, len(evs))
		}
	})
	t.Run("cut-stream", func(t *testing.T) {
		resp := post(t, s, "/v1/messages", prompt("cut-stream"))
		evs, err := readSSE(resp.Body)
		if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("reading the cut stream: %v, want an unexpected EOF", err)
		}
		var names []string
		for _, ev := range evs {
			names = append(names, ev.event)
		}
		if got := strings.Join(names, ","); got != "message_start,ping,content_block_start,content_block_delta" {
			t.Errorf("events = %s", got)
		}
	})
	t.Run("no-answer", func(t *testing.T) {
		b, _ := json.Marshal(prompt("no-answer"))
		client := &http.Client{Timeout: 300 * time.Millisecond}
		_, err := client.Post(s.URL()+"/v1/messages", "application/json", bytes.NewReader(b))
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			t.Errorf("err = %v, want a timeout", err)
		}
	})
	t.Run("slow", func(t *testing.T) {
		start := time.Now()
		resp := post(t, s, "/v1/messages", prompt("slow delay=40"))
		evs, err := readSSE(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d < time.Duration(len(evs))*40*time.Millisecond {
			t.Errorf("%d events in %v, want 40ms each", len(evs), d)
		}
	})
	t.Run("times", func(t *testing.T) {
		body := prompt("overloaded times=1")
		first := post(t, s, "/v1/messages", body, "X-Claude-Code-Session-Id", "sess-times")
		second := post(t, s, "/v1/messages", body, "X-Claude-Code-Session-Id", "sess-times")
		if first.StatusCode != 529 || second.StatusCode != 200 {
			t.Errorf("statuses %d then %d, want 529 then 200", first.StatusCode, second.StatusCode)
		}
	})
}

// TestScenarioRules: a rule matches the session id, the folder or the
// first prompt; a marker wins over rules; the default applies otherwise.
func TestScenarioRules(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{Scenario: "overloaded"})
	dir := project(t)
	if err := s.SetScenario("sess-rate", "rate-limited"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetScenario(filepath.Base(dir), "usage-limit"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetScenario("sess-once", "rate-limited times=1 after=9"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"nope", "", "slow delay"} {
		if err := s.SetScenario("x", bad); err == nil {
			t.Errorf("the scenario %q was accepted", bad)
		}
	}
	other := t.TempDir()
	for _, tt := range []struct {
		dir, prompt, session string
		want                 int
		after                string
	}{
		{other, "hello", "sess-rate-1", 429, "1"},
		{other, "hello", "other", 529, ""},
		{dir, "hello", "other", 429, ""},
		{dir, "hello [[sim:scenario=happy]]", "sess-rate-2", 200, ""},
		// A rule's parameters: retry-after 9 s, only the first request.
		{other, "hello", "sess-once", 429, "9"},
		{other, "hello", "sess-once", 200, ""},
	} {
		resp := post(t, s, "/v1/messages", cliBody(tt.dir, tt.prompt, false), "X-Claude-Code-Session-Id", tt.session)
		if resp.StatusCode != tt.want || resp.Header.Get("retry-after") != tt.after {
			t.Errorf("%s %q %s: %d (retry-after %q), want %d (%q)", tt.dir, tt.prompt, tt.session, resp.StatusCode, resp.Header.Get("retry-after"), tt.want, tt.after)
		}
	}
}

func TestBadRequests(t *testing.T) {
	t.Parallel()
	log := &syncWriter{}
	s := newServer(t, Options{Log: log})
	req, _ := http.NewRequest(http.MethodPost, s.URL()+"/v1/messages", strings.NewReader("{"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if kind, _ := apiErr(t, resp); resp.StatusCode != 400 || kind != "invalid_request_error" {
		t.Errorf("%d %s", resp.StatusCode, kind)
	}
	resp.Body.Close()
	resp = post(t, s, "/v1/messages", map[string]any{"model": "m", "messages": []any{}})
	if kind, _ := apiErr(t, resp); resp.StatusCode != 400 || kind != "invalid_request_error" {
		t.Errorf("%d %s", resp.StatusCode, kind)
	}
	resp = post(t, s, "/v1/complete", map[string]any{})
	if kind, _ := apiErr(t, resp); resp.StatusCode != 404 || kind != "not_found_error" {
		t.Errorf("%d %s", resp.StatusCode, kind)
	}
	// the line is written once the reply is out
	deadline := time.Now().Add(5 * time.Second)
	for strings.Count(log.String(), "\n") < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := strings.Count(log.String(), "\n"); n != 2 {
		t.Errorf("%d log lines, want one per messages request:\n%s", n, log.String())
	}
}

// syncWriter is a log the server writes while the test reads it.
type syncWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(b)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
