package chrome

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
)

// The Node inspector route. Claude Desktop's Developer menu has "Enable
// Main Process Debugger", which opens a Node inspector (port 9229 by
// default) on the app's main process; recent builds are reported to ignore
// --remote-debugging-port. Through that inspector Baton evaluates a fixed
// bridge function in the main process, which runs Baton's page function in
// the window's renderer with webContents.executeJavaScript. The page
// function is Baton's own constant code; its arguments travel as JSON data
// (a string literal the page parses), never pasted into code.

// ErrNoNodeTarget is returned when an endpoint has no Node inspector target.
var ErrNoNodeTarget = errors.New("no Node inspector target")

// NodeTarget is a target of type "node" in /json/list, with its websocket
// address pointed at the endpoint's own host and port.
type NodeTarget struct {
	ID    string
	Title string
	WS    string
}

// NodeTargets lists the Node inspector targets of the endpoint (none for a
// browser's DevTools endpoint).
func NodeTargets(ctx context.Context, endpoint *url.URL) ([]NodeTarget, error) {
	var ts []struct {
		ID    string `json:"id"`
		Type  string `json:"type"`
		Title string `json:"title"`
		WS    string `json:"webSocketDebuggerUrl"`
	}
	if err := getJSON(ctx, endpoint, "/json/list", &ts); err != nil {
		return nil, err
	}
	var out []NodeTarget
	for _, t := range ts {
		if t.Type != "node" || t.WS == "" {
			continue
		}
		ws, err := url.Parse(t.WS)
		if err != nil || ws.Path == "" {
			continue
		}
		ws.Host = endpoint.Host // never follow the target elsewhere
		ws.Scheme = "ws"
		if endpoint.Scheme == "https" {
			ws.Scheme = "wss"
		}
		out = append(out, NodeTarget{ID: t.ID, Title: t.Title, WS: ws.String()})
	}
	return out, nil
}

// IsInspector reports whether the endpoint is a Node inspector (it lists a
// target of type "node").
func IsInspector(ctx context.Context, endpoint *url.URL) (bool, error) {
	ts, err := NodeTargets(ctx, endpoint)
	return len(ts) > 0, err
}

// requireExpr evaluates, in the main process, to a require function that
// can load "electron": the inspector console's own, or the main module's.
const requireExpr = `(() => {
  try { if (typeof require === 'function') return require; } catch (e) {}
  const m = globalThis.process && process.mainModule;
  if (m && typeof m.require === 'function') return m.require.bind(m);
  return null;
})()`

// bridgeJS runs in the main process with this = require. It picks the
// first webContents whose URL contains one of patterns and runs the page
// function fn there on its global object with the arguments decoded from
// argsJSON, returning {url, ok} or {url, error} (Electron's
// executeJavaScript loses a thrown error's message, so it is caught in the
// page and thrown again here).
const bridgeJS = `async function (patterns, fn, argsJSON) {
  const req = this;
  const electron = req('electron');
  const all = (electron && electron.webContents && electron.webContents.getAllWebContents()) || [];
  let wc = null;
  for (const p of patterns) {
    wc = all.find((w) => { try { return !w.isDestroyed || !w.isDestroyed() ? String(w.getURL()).includes(p) : false; } catch (e) { return false; } });
    if (wc) break;
  }
  if (!wc) throw new Error('no window of the app matches ' + JSON.stringify(patterns) + ' (' + all.length + ' web contents)');
  const code = '(async () => { try { return { ok: await (' + fn + ').apply(globalThis, JSON.parse(' + JSON.stringify(argsJSON) + ')) }; }' +
    ' catch (e) { return { error: String((e && e.message) || e) }; } })()';
  const res = await wc.executeJavaScript(code, true);
  if (res && typeof res.error === 'string') throw new Error(res.error);
  return { url: String(wc.getURL()), ok: res ? res.ok : null };
}`

// Inspector is a connection to an app's main process through its Node
// inspector, which runs page functions in the app's window.
type Inspector struct {
	endpoint *url.URL
	patterns []string
	log      *slog.Logger

	mu     sync.Mutex
	cl     *client
	req    runtime.RemoteObjectID
	page   string
	closed bool
}

// DialInspector connects to the Node inspector at cfg.Endpoint (a loopback
// address unless cfg.AllowRemote). cfg.PagePatterns choose the window.
func DialInspector(ctx context.Context, cfg Config) (*Inspector, error) {
	u, err := ParseEndpoint(cfg.Endpoint, cfg.AllowRemote)
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	in := &Inspector{endpoint: u, patterns: cfg.PagePatterns, log: log.With("component", "inspector")}
	if err := in.connect(ctx); err != nil {
		return nil, err
	}
	return in, nil
}

func (in *Inspector) connect(ctx context.Context) error {
	ts, err := NodeTargets(ctx, in.endpoint)
	if err != nil {
		return err
	}
	if len(ts) == 0 {
		return fmt.Errorf("%s: %w", in.endpoint, ErrNoNodeTarget)
	}
	cl, err := dial(ctx, ts[0].WS, in.log)
	if err != nil {
		return &UnreachableError{Endpoint: in.endpoint.String(), Err: err}
	}
	res, err := cdp.Call(ctx, cl.session(""), runtime.Evaluate, runtime.EvaluateParams{Expression: requireExpr, IncludeCommandLineAPI: new(true), Silent: new(true)})
	if err != nil {
		cl.close()
		return fmt.Errorf("the main process at %s: %w", in.endpoint, err)
	}
	if res.ExceptionDetails != nil {
		cl.close()
		return fmt.Errorf("the main process at %s: %w", in.endpoint, newJSError(res.ExceptionDetails))
	}
	if res.Result == nil || res.Result.ObjectID == "" {
		cl.close()
		return fmt.Errorf("the main process at %s offers no require to reach its windows", in.endpoint)
	}
	in.mu.Lock()
	in.cl, in.req = cl, res.Result.ObjectID
	in.mu.Unlock()
	return nil
}

// Call runs the page function fn with args in the app's window, as
// Conn.Call does in a page. A lost inspector connection is dialled again
// once.
func (in *Inspector) Call(ctx context.Context, fn string, args ...any) (json.RawMessage, error) {
	argsJSON, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("encode call arguments: %w", err)
	}
	if args == nil {
		argsJSON = []byte("[]")
	}
	for attempt := 0; ; attempt++ {
		in.mu.Lock()
		cl, req, closed := in.cl, in.req, in.closed
		in.mu.Unlock()
		if closed {
			return nil, fmt.Errorf("%w: closed", ErrConnectionLost)
		}
		if cl == nil {
			if err := in.connect(ctx); err != nil {
				return nil, fmt.Errorf("%w: %w", ErrConnectionLost, err)
			}
			continue
		}
		params := runtime.CallFunctionOnParams{FunctionDeclaration: bridgeJS, ObjectID: req,
			ReturnByValue: new(true), AwaitPromise: new(true), Silent: new(true)}
		for _, a := range []any{in.patterns, fn, string(argsJSON)} {
			b, _ := json.Marshal(a)
			params.Arguments = append(params.Arguments, &runtime.CallArgument{Value: jsonv2.Value(b)})
		}
		res, err := cdp.Call(ctx, cl.session(""), runtime.CallFunctionOn, params)
		if err != nil {
			if errors.Is(err, ErrConnectionLost) && attempt == 0 {
				in.mu.Lock()
				if in.cl == cl {
					in.cl = nil
				}
				in.mu.Unlock()
				cl.close()
				continue
			}
			return nil, err
		}
		raw, err := callResult(res)
		if err != nil {
			return nil, err
		}
		var out struct {
			URL string          `json:"url"`
			OK  json.RawMessage `json:"ok"`
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			return nil, fmt.Errorf("decode the window's answer: %w", err)
		}
		in.mu.Lock()
		in.page = out.URL
		in.mu.Unlock()
		if len(out.OK) == 0 {
			return json.RawMessage("null"), nil
		}
		return out.OK, nil
	}
}

// CallNow is Call (the inspector has no page reloads to wait for).
func (in *Inspector) CallNow(ctx context.Context, fn string, args ...any) (json.RawMessage, error) {
	return in.Call(ctx, fn, args...)
}

// Endpoint is the inspector's http endpoint.
func (in *Inspector) Endpoint() string { return in.endpoint.String() }

// Page is the URL of the window the last call ran in.
func (in *Inspector) Page() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.page
}

// Close closes the inspector connection (the app keeps running).
func (in *Inspector) Close(ctx context.Context) error {
	in.mu.Lock()
	cl := in.cl
	in.cl, in.closed = nil, true
	in.mu.Unlock()
	if cl != nil {
		cl.close()
	}
	return nil
}

// IsNodeVersion reports whether a /json/version answer is a Node
// inspector's (no browser websocket address, a node.js "Browser").
func IsNodeVersion(v VersionInfo) bool {
	return v.WebSocketDebuggerURL == "" && strings.HasPrefix(strings.ToLower(v.Browser), "node")
}
