package remote

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gorilla/websocket"

	"github.com/baton-app/baton/backend/hosts"
	"github.com/baton-app/baton/backend/inbox"
)

// fakeApp is a binding object like the window's App.
type fakeApp struct {
	mu    sync.Mutex
	calls []string
}

type Pair struct {
	A int    `json:"a"`
	B string `json:"b"`
}

func (f *fakeApp) record(s string) { f.mu.Lock(); f.calls = append(f.calls, s); f.mu.Unlock() }

func (f *fakeApp) Echo(s string) string      { f.record("Echo"); return s }
func (f *fakeApp) Swap(p Pair) (Pair, error) { return Pair{A: -p.A, B: strings.ToUpper(p.B)}, nil }
func (f *fakeApp) Refuse(id string) error {
	return errors.New("That run does not exist any more; refresh the list.")
}
func (f *fakeApp) Nothing()                      { f.record("Nothing") }
func (f *fakeApp) Explode() string               { panic("boom") }
func (f *fakeApp) unexported() string            { return "" } //nolint:unused
func (f *fakeApp) Many(a, b int, c []string) int { return a + b + len(c) }

var frontend = fstest.MapFS{
	"index.html":      {Data: []byte(`<!doctype html><html><head><meta charset="utf-8"><script type="module" src="/assets/app-1.js"></script></head><body><div id="app"></div></body></html>`)},
	"assets/app-1.js": {Data: []byte(`console.log("the frontend")`)},
	"appicon.png":     {Data: []byte("png")},
}

type harness struct {
	t     *testing.T
	srv   *Server
	ts    *httptest.Server
	cfg   *Config
	token string
	logs  *syncBuffer
	app   *fakeApp
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func newHarness(t *testing.T, mod func(*Options)) *harness {
	t.Helper()
	cfg, err := OpenConfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	token, err := cfg.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	app := &fakeApp{}
	b, err := NewBindings(app)
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	o := Options{Listen: "127.0.0.1:0", Assets: frontend, Bindings: b, Config: cfg,
		Logger: slog.New(slog.NewTextHandler(logs, nil)), MaxFailures: 3, FailureWindow: time.Minute}
	if mod != nil {
		mod(&o)
	}
	srv, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		ts.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	return &harness{t: t, srv: srv, ts: ts, cfg: cfg, token: token, logs: logs, app: app}
}

// client is a browser-like client with its own cookie jar.
func (h *harness) client() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func (h *harness) get(c *http.Client, path string) (*http.Response, string) {
	h.t.Helper()
	resp, err := c.Get(h.ts.URL + path)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// login signs c in with the token.
func (h *harness) login(c *http.Client, token string) *http.Response {
	h.t.Helper()
	resp, _ := h.get(c, "/login?token="+url.QueryEscape(token))
	return resp
}

func (h *harness) call(c *http.Client, name string, origin string, args ...any) (int, map[string]json.RawMessage) {
	h.t.Helper()
	body, _ := json.Marshal(args)
	req, _ := http.NewRequest(http.MethodPost, h.ts.URL+"/api/call/"+name, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := c.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]json.RawMessage
	data, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(data, &out)
	return resp.StatusCode, out
}

func (h *harness) dial(c *http.Client, origin string) (*websocket.Conn, *http.Response, error) {
	u, _ := url.Parse(h.ts.URL)
	d := websocket.Dialer{Jar: c.Jar, HandshakeTimeout: 5 * time.Second}
	hdr := http.Header{}
	if origin != "" {
		hdr.Set("Origin", origin)
	}
	return d.Dial("ws://"+u.Host+"/api/events", hdr)
}

func TestBindingsAreTheExportedMethods(t *testing.T) {
	t.Parallel()
	b, err := NewBindings(&fakeApp{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Echo", "Explode", "Many", "Nothing", "Refuse", "Swap"}
	if got := b.Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	res, err := b.Call("Swap", []json.RawMessage{json.RawMessage(`{"a":2,"b":"x"}`)})
	if err != nil || res != (Pair{A: -2, B: "X"}) {
		t.Errorf("Swap = %v, %v", res, err)
	}
	if res, err := b.Call("Nothing", nil); err != nil || res != nil {
		t.Errorf("Nothing = %v, %v", res, err)
	}
	var be *BindingError
	if _, err := b.Call("Refuse", []json.RawMessage{json.RawMessage(`"r1"`)}); !errors.As(err, &be) || be.Message != "That run does not exist any more; refresh the list." {
		t.Errorf("Refuse: %v", err)
	}
	var ae *ArgumentError
	if _, err := b.Call("Echo", nil); !errors.As(err, &ae) {
		t.Errorf("Echo without its argument: %v", err)
	}
	if _, err := b.Call("Echo", []json.RawMessage{json.RawMessage(`42`)}); !errors.As(err, &ae) {
		t.Errorf("Echo with a number: %v", err)
	}
	var pe *PanicError
	if _, err := b.Call("Explode", nil); !errors.As(err, &pe) {
		t.Errorf("Explode: %v", err)
	}
	if _, err := b.Call("unexported", nil); !errors.Is(err, ErrUnknownBinding) {
		t.Errorf("unexported: %v", err)
	}
}

type badResults struct{}

func (badResults) Two() (string, string) { return "", "" }

func TestBindingsRefuseWhatWailsCannotBind(t *testing.T) {
	t.Parallel()
	if _, err := NewBindings(badResults{}); err == nil {
		t.Error("a method whose second result is not an error was accepted")
	}
	if _, err := NewBindings(42); err == nil {
		t.Error("a value without methods was accepted")
	}
}

// TestWithoutCookieOnlyASentence: nothing but one sentence is served to a
// browser without the cookie, whatever it asks for.
func TestWithoutCookieOnlyASentence(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	c := h.client()
	for _, path := range []string{"/", "/index.html", "/assets/app-1.js", "/appicon.png", "/_baton/bridge.js", "/api/call/Echo", "/api/events", "/nothing"} {
		resp, body := h.get(c, path)
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s: %d, want 401", path, resp.StatusCode)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
			t.Errorf("GET %s: Content-Type %q", path, ct)
		}
		if body != sentenceNoCookie+"\n" {
			t.Errorf("GET %s: body %q, want the one sentence", path, body)
		}
	}
	if n, _ := h.call(c, "Echo", "", "hi"); n != http.StatusUnauthorized {
		t.Errorf("POST without the cookie: %d", n)
	}
	if slices.Contains(h.app.calls, "Echo") {
		t.Error("a binding ran without the cookie")
	}
	if strings.Contains(h.logs.String(), "remote access refused") {
		t.Errorf("a request without any cookie was counted as a failed attempt:\n%s", h.logs.String())
	}
}

func TestTokenIsExchangedForACookie(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	c := h.client()
	resp := h.login(c, h.token)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("login: %d", resp.StatusCode)
	}
	cookies := resp.Cookies()
	if len(cookies) != 1 {
		t.Fatalf("cookies: %v", cookies)
	}
	ck := cookies[0]
	if ck.Name != CookieName || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/" || ck.MaxAge <= 0 {
		t.Errorf("cookie %+v: want HttpOnly, SameSite=Strict, Path=/, kept", ck)
	}
	if ck.Value == h.token || strings.Contains(ck.Value, h.token) {
		t.Error("the cookie carries the token itself")
	}
	if ck.Secure {
		t.Error("Secure on plain HTTP: the browser would not send it back")
	}
	// The page, with the bridge before the page's own scripts.
	resp, body := h.get(c, "/")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /: %d %s", resp.StatusCode, body)
	}
	bridge, module := strings.Index(body, `<script src="/_baton/bridge.js"></script>`), strings.Index(body, `type="module"`)
	if bridge < 0 || module < 0 || bridge > module {
		t.Errorf("the bridge is not first in the page:\n%s", body)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("CSP %q", csp)
	}
	resp, js := h.get(c, "/_baton/bridge.js")
	if resp.StatusCode != http.StatusOK || !strings.Contains(js, `["Echo","Explode","Many","Nothing","Refuse","Swap"]`) {
		t.Errorf("bridge.js (%d) does not list the bindings:\n%.300s", resp.StatusCode, js)
	}
	if resp, body := h.get(c, "/assets/app-1.js"); resp.StatusCode != http.StatusOK || body != `console.log("the frontend")` {
		t.Errorf("asset: %d %q", resp.StatusCode, body)
	}
	if resp, _ := h.get(c, "/assets/"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a folder listing: %d", resp.StatusCode)
	}
	// Calls.
	n, out := h.call(c, "Swap", h.ts.URL, Pair{A: 1, B: "b"})
	if n != http.StatusOK || string(out["result"]) != `{"a":-1,"b":"B"}` {
		t.Errorf("Swap: %d %s", n, out["result"])
	}
	n, out = h.call(c, "Refuse", h.ts.URL, "r1")
	if n != http.StatusOK || string(out["error"]) != `"That run does not exist any more; refresh the list."` {
		t.Errorf("Refuse: %d %v", n, out)
	}
	if n, out = h.call(c, "Nope", h.ts.URL); n != http.StatusNotFound || out["error"] == nil {
		t.Errorf("unknown binding: %d %v", n, out)
	}
	if n, out = h.call(c, "Many", h.ts.URL, 1); n != http.StatusBadRequest || out["error"] == nil {
		t.Errorf("too few arguments: %d %v", n, out)
	}
	if n, out = h.call(c, "Explode", h.ts.URL); n != http.StatusInternalServerError || !strings.Contains(string(out["error"]), "log") {
		t.Errorf("panic: %d %v", n, out)
	}
	// A call from another site's page is refused even with the cookie.
	if n, _ = h.call(c, "Nothing", "http://evil.example"); n != http.StatusForbidden {
		t.Errorf("call with a foreign Origin: %d, want 403", n)
	}
	if slices.Contains(h.app.calls, "Nothing") {
		t.Error("the foreign call ran")
	}
}

func TestCookieIsSecureOverTLSAndBehindAnHTTPSProxy(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(o *Options) { o.BehindProxy = true })
	req, _ := http.NewRequest(http.MethodGet, h.ts.URL+"/login?token="+h.token, nil)
	req.Header.Set("X-Forwarded-Proto", "https")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if c := resp.Cookies(); len(c) != 1 || !c[0].Secure {
		t.Errorf("cookie behind an HTTPS proxy: %+v", c)
	}
}

func TestFailedAttemptsAreLimitedAndLogged(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil) // 3 failures a minute
	now := time.Now()
	h.srv.limit.now = func() time.Time { return now }
	c := h.client()
	for i := range 3 {
		if resp := h.login(c, "wrong-"+string(rune('a'+i))); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong token %d: %d", i, resp.StatusCode)
		}
	}
	resp := h.login(c, h.token)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("the right token after 3 failures: %d (Retry-After %q), want 429", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if len(resp.Cookies()) != 0 {
		t.Error("a blocked client got the cookie")
	}
	logs := h.logs.String()
	if strings.Count(logs, "reason=\"wrong access token\"") != 3 || !strings.Contains(logs, "client=127.0.0.1") || strings.Count(logs, "too many failed attempts") != 1 {
		t.Errorf("the failures are not logged:\n%s", logs)
	}
	if strings.Contains(logs, h.token) {
		t.Error("the token was logged")
	}
	// A wrong cookie counts too, and is blocked alike.
	now = now.Add(time.Minute)
	if resp := h.login(c, h.token); resp.StatusCode != http.StatusOK {
		t.Fatalf("after the window: %d", resp.StatusCode)
	}
	other := h.client()
	u, _ := url.Parse(h.ts.URL)
	for range 3 {
		other.Jar.SetCookies(u, []*http.Cookie{{Name: CookieName, Value: "guess"}})
		if resp, _ := h.get(other, "/"); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("a guessed cookie: %d", resp.StatusCode)
		}
	}
	if resp, _ := h.get(c, "/"); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("the same address after 3 guessed cookies: %d, want 429", resp.StatusCode)
	}
}

func TestClientAddressBehindAProxy(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(o *Options) { o.BehindProxy = true })
	now := time.Now()
	h.srv.limit.now = func() time.Time { return now }
	try := func(forwarded, token string) int {
		req, _ := http.NewRequest(http.MethodGet, h.ts.URL+"/login?token="+token, nil)
		req.Header.Set("X-Forwarded-For", forwarded)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for range 3 {
		try("6.6.6.6, 10.0.0.9", "wrong")
	}
	if n := try("10.0.0.9", h.token); n != http.StatusTooManyRequests {
		t.Errorf("the blocked client: %d", n)
	}
	if n := try("10.0.0.8", h.token); n != http.StatusOK {
		t.Errorf("another client behind the same proxy: %d, want 200", n)
	}
}

func TestWebSocketChecksTheOrigin(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	c := h.client()
	h.login(c, h.token)
	h.srv.Emit("inbox:changed", map[string]int{"active": 1})

	for _, origin := range []string{"http://evil.example", "", "null", "https://" + strings.TrimPrefix(h.ts.URL, "http://")} {
		conn, resp, err := h.dial(c, origin)
		if err == nil {
			conn.Close()
			t.Errorf("Origin %q: the WebSocket opened", origin)
			continue
		}
		if resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("Origin %q: %v (%v), want 403", origin, err, resp)
		}
	}
	if !strings.Contains(h.logs.String(), "another origin") {
		t.Errorf("the refusal is not logged:\n%s", h.logs.String())
	}
	// Without the cookie, even from the right origin: 401.
	if _, resp, err := h.dial(h.client(), h.ts.URL); err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no cookie: %v %v", err, resp)
	}

	conn, _, err := h.dial(c, h.ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	var m struct {
		Name string          `json:"name"`
		Data json.RawMessage `json:"data"`
	}
	if err := conn.ReadJSON(&m); err != nil || m.Name != "inbox:changed" || string(m.Data) != `{"active":1}` {
		t.Fatalf("replayed state: %+v %v", m, err)
	}
	waitFor(t, func() bool { return h.srv.Browsers() == 1 })
	h.srv.Emit("worker:progress", map[string]string{"taskId": "task_001"})
	if err := conn.ReadJSON(&m); err != nil || m.Name != "worker:progress" || string(m.Data) != `{"taskId":"task_001"}` {
		t.Fatalf("event: %+v %v", m, err)
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestNewTokenSignsEveryBrowserOut(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	c := h.client()
	h.login(c, h.token)
	conn, _, err := h.dial(c, h.ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	waitFor(t, func() bool { return h.srv.Browsers() == 1 })

	token, err := h.cfg.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	h.srv.SignOutAll()
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _, err = conn.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != CloseSignedOut {
		t.Errorf("the browser's WebSocket: %v, want close %d", err, CloseSignedOut)
	}
	resp, body := h.get(c, "/")
	if resp.StatusCode != http.StatusUnauthorized || body != sentenceSignedOut+"\n" {
		t.Errorf("the old cookie: %d %q", resp.StatusCode, body)
	}
	if cl := resp.Cookies(); len(cl) != 1 || cl[0].MaxAge >= 0 {
		t.Errorf("the old cookie is not cleared: %+v", cl)
	}
	if n, _ := h.call(c, "Echo", h.ts.URL, "x"); n != http.StatusUnauthorized {
		t.Errorf("a call with the old cookie: %d", n)
	}
	if resp := h.login(h.client(), h.token); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the old token: %d", resp.StatusCode)
	}
	c2 := h.client()
	if resp := h.login(c2, token); resp.StatusCode != http.StatusOK {
		t.Errorf("the new token: %d", resp.StatusCode)
	}
	if resp, _ := h.get(c2, "/"); resp.StatusCode != http.StatusOK {
		t.Errorf("the new cookie: %d", resp.StatusCode)
	}
}

func TestBeyondLoopbackNeedsTLSUnlessBehindAProxy(t *testing.T) {
	t.Parallel()
	cfg, err := OpenConfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewBindings(&fakeApp{})
	base := Options{Assets: frontend, Bindings: b, Config: cfg}
	for _, tc := range []struct {
		listen string
		tls    bool
		proxy  bool
		ok     bool
	}{
		{"127.0.0.1:0", false, false, true},
		{"localhost:8390", false, false, true},
		{"[::1]:0", false, false, true},
		{"", false, false, true}, // DefaultListen
		{"0.0.0.0:8390", false, false, false},
		{":8390", false, false, false},
		{"192.168.1.10:8390", false, false, false},
		{"baton.example:443", false, false, false},
		{"0.0.0.0:8390", true, false, true},
		{"0.0.0.0:8390", false, true, true},
	} {
		o := base
		o.Listen, o.BehindProxy = tc.listen, tc.proxy
		if tc.tls {
			o.TLS = &tls.Config{}
		}
		_, err := New(o)
		if tc.ok && err != nil {
			t.Errorf("%q tls=%v proxy=%v: %v", tc.listen, tc.tls, tc.proxy, err)
		}
		if !tc.ok && !errors.Is(err, ErrNeedsTLS) {
			t.Errorf("%q tls=%v proxy=%v: %v, want ErrNeedsTLS", tc.listen, tc.tls, tc.proxy, err)
		}
	}
	for _, bad := range []string{"8390", "127.0.0.1:http", "127.0.0.1:70000"} {
		o := base
		o.Listen = bad
		if _, err := New(o); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

func TestTheTokenIsNotKept(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg, err := OpenConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	token, err := cfg.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(token); n < 43 {
		t.Errorf("token %q has %d characters; 256 bits take 43", token, n)
	}
	cookie, ok := cfg.Exchange(token)
	if !ok {
		t.Fatal("the token is not accepted")
	}
	info, err := os.Stat(filepath.Join(dir, ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v", ConfigFile, info.Mode().Perm())
	}
	data, _ := os.ReadFile(filepath.Join(dir, ConfigFile))
	if strings.Contains(string(data), token) || strings.Contains(string(data), cookie) {
		t.Errorf("%s holds the token or the cookie:\n%s", ConfigFile, data)
	}
	// Read again (a restart): the same token and cookie work.
	again, err := OpenConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := again.Exchange(token); !ok || c != cookie || !again.CheckCookie(cookie) {
		t.Error("after a restart the token or its cookie is refused")
	}
	if _, ok := again.Exchange(token[:len(token)-1]); ok || again.CheckCookie(cookie+"x") || again.CheckCookie("") {
		t.Error("a wrong token or cookie is accepted")
	}
	if other, _ := again.NewToken(); other == token {
		t.Error("a new token equals the old one")
	}
	if _, ok := again.Exchange(token); ok || again.CheckCookie(cookie) {
		t.Error("the replaced token or its cookie still works")
	}
}

// The events replayed to a browser that connects are the state events
// Baton sends under these names.
func TestReplayedEventsAreBatonsStateEvents(t *testing.T) {
	t.Parallel()
	for _, name := range []string{hosts.EventStatus, inbox.EventChanged} {
		if !replayed[name] {
			t.Errorf("%s is not replayed", name)
		}
	}
	if len(replayed) != 2 {
		t.Errorf("replayed: %v", replayed)
	}
}
