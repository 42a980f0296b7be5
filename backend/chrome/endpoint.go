// Package chrome is a small Chrome DevTools Protocol layer: it finds and
// launches browsers, attaches to one page of a browser and keeps the
// attachment across reloads and browser restarts, calls page functions with
// arguments, and hands CDP binding calls to Go. What runs on the page (the
// scripts, the bindings' meaning, what to wait for after an attach) belongs
// to its user, through Config's hooks.
package chrome

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultEndpoint is where a browser started with
// --remote-debugging-port=9222 listens.
const DefaultEndpoint = "http://127.0.0.1:9222"

// Sentinel errors of the connection.
var (
	// ErrRemoteEndpoint is returned for an endpoint that is not on this
	// machine while remote endpoints are not allowed.
	ErrRemoteEndpoint = errors.New("endpoint is not a loopback address")
	// ErrUnreachable is returned when nothing answers at the endpoint.
	ErrUnreachable = errors.New("endpoint not reachable")
	// ErrNoPage is returned when the browser has no page that matches.
	ErrNoPage = errors.New("no matching page")
	// ErrConnectionLost is returned by calls after the browser went away.
	ErrConnectionLost = errors.New("lost the connection to the browser")
	// ErrClosed is returned by calls after Close.
	ErrClosed = errors.New("connection closed")
	// ErrContextLost is returned when the page reloaded or navigated
	// during a call, so the call may or may not have run.
	ErrContextLost = errors.New("page reloaded during the call")
)

// ParseEndpoint checks an endpoint URL ("http://127.0.0.1:9222",
// "127.0.0.1:9222" or "ws://…") and returns its http form. A host that is not
// loopback is refused with ErrRemoteEndpoint unless allowRemote is true: the
// debug port has no authentication, so whoever reaches it runs code in the
// page.
func ParseEndpoint(raw string, allowRemote bool) (*url.URL, error) {
	if raw == "" {
		raw = DefaultEndpoint
	}
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("parse endpoint %q: %w", raw, err)
	}
	switch u.Scheme {
	case "http", "ws":
		u.Scheme = "http"
	case "https", "wss":
		u.Scheme = "https"
	default:
		return nil, fmt.Errorf("endpoint %q: scheme %q is not http or ws", raw, u.Scheme)
	}
	if u.Port() == "" {
		return nil, fmt.Errorf("endpoint %q has no port", raw)
	}
	if !allowRemote && !IsLoopbackHost(u.Hostname()) {
		return nil, fmt.Errorf("endpoint %q: %w", raw, ErrRemoteEndpoint)
	}
	return &url.URL{Scheme: u.Scheme, Host: u.Host}, nil
}

// IsLoopbackHost reports whether host is "localhost" or a loopback IP.
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// VersionInfo is the answer of /json/version.
type VersionInfo struct {
	Browser              string `json:"Browser"`
	ProtocolVersion      string `json:"Protocol-Version"`
	UserAgent            string `json:"User-Agent"`
	WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
}

// TargetInfo is one entry of /json/list.
type TargetInfo struct {
	ID    string `json:"id"`
	Type  string `json:"type"`
	Title string `json:"title"`
	URL   string `json:"url"`
}

var httpClient = &http.Client{Timeout: 5 * time.Second}

func getJSON(ctx context.Context, u *url.URL, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String()+path, nil)
	if err != nil {
		return err
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return &UnreachableError{Endpoint: u.String(), Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &UnreachableError{Endpoint: u.String(), Err: fmt.Errorf("GET %s: %s", path, resp.Status)}
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 8<<20)).Decode(v); err != nil {
		return fmt.Errorf("decode %s of %s: %w", path, u, err)
	}
	return nil
}

// Version asks the endpoint for its browser version and websocket address.
func Version(ctx context.Context, endpoint *url.URL) (VersionInfo, error) {
	var v VersionInfo
	err := getJSON(ctx, endpoint, "/json/version", &v)
	return v, err
}

// Targets lists the targets of the endpoint.
func Targets(ctx context.Context, endpoint *url.URL) ([]TargetInfo, error) {
	var ts []TargetInfo
	err := getJSON(ctx, endpoint, "/json/list", &ts)
	return ts, err
}

// MatchPages returns the page targets whose URL contains one of patterns, in
// the order of patterns and then of targets.
func MatchPages(targets []TargetInfo, patterns []string) []TargetInfo {
	var out []TargetInfo
	seen := map[string]bool{}
	for _, p := range patterns {
		for _, t := range targets {
			if t.Type == "page" && !seen[t.ID] && strings.Contains(t.URL, p) {
				seen[t.ID] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// browserSocket returns the websocket address of the browser, pointed at the
// endpoint's own host and port (the browser may report another name for
// itself, and Baton must not follow it elsewhere).
func browserSocket(v VersionInfo, endpoint *url.URL) (string, error) {
	ws, err := url.Parse(v.WebSocketDebuggerURL)
	if err != nil || ws.Path == "" {
		return "", fmt.Errorf("endpoint %s reports no browser websocket address", endpoint)
	}
	ws.Host = endpoint.Host
	if endpoint.Scheme == "https" {
		ws.Scheme = "wss"
	} else {
		ws.Scheme = "ws"
	}
	return ws.String(), nil
}

// UnreachableError says that nothing usable answers at Endpoint.
type UnreachableError struct {
	Endpoint string
	Err      error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("nothing answers at %s: %v", e.Endpoint, e.Err)
}

func (e *UnreachableError) Unwrap() []error { return []error{ErrUnreachable, e.Err} }

// OpenPage opens a new tab at pageURL in the browser of endpoint and
// returns its target.
func OpenPage(ctx context.Context, endpoint *url.URL, pageURL string) (TargetInfo, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, endpoint.String()+"/json/new?"+url.QueryEscape(pageURL), nil)
	if err != nil {
		return TargetInfo{}, err
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return TargetInfo{}, &UnreachableError{Endpoint: endpoint.String(), Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return TargetInfo{}, fmt.Errorf("open page: %s", resp.Status)
	}
	var t TargetInfo
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&t); err != nil {
		return TargetInfo{}, fmt.Errorf("open page: %w", err)
	}
	return t, nil
}

// ClosePage closes the tab with the target id.
func ClosePage(ctx context.Context, endpoint *url.URL, id string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint.String()+"/json/close/"+url.PathEscape(id), nil)
	if err != nil {
		return err
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return &UnreachableError{Endpoint: endpoint.String(), Err: err}
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("close page %s: %s", id, resp.Status)
	}
	return nil
}
