package claude

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/chrome"
)

// DoctorOptions say what to check.
type DoctorOptions struct {
	Endpoint     string
	AllowRemote  bool
	PagePatterns []string
	ChromePath   string
	// GOOS chooses the platform of the advice; runtime.GOOS when empty.
	GOOS string
	// EndpointKind is the endpoint's kind (see Options.EndpointKind);
	// detected when empty.
	EndpointKind string
}

// MethodStatus is one LocalSessions method and whether the page has it.
type MethodStatus struct {
	Name     string `json:"name"`
	Present  bool   `json:"present"`
	Required bool   `json:"required"`
}

// Check is one line of the report. Fix is one sentence saying how to fix a
// failed check.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Report is what "baton doctor" prints and the Settings view's "Test
// connection" shows.
type Report struct {
	ChromePath    string         `json:"chromePath"`
	ChromeVersion string         `json:"chromeVersion"`
	Endpoint      string         `json:"endpoint"`
	Browser       string         `json:"browser"`
	Page          string         `json:"page"`
	AppVersion    string         `json:"appVersion"`
	Methods       []MethodStatus `json:"methods"`
	Checks        []Check        `json:"checks"`
	// OK is true when the endpoint, the page and every required method
	// are there (a missing local Chrome does not matter for Claude
	// Desktop).
	OK bool `json:"ok"`
}

// InspectorPort is the default port of the Node inspector that Claude
// Desktop's "Enable Main Process Debugger" opens.
const InspectorPort = "9229"

// StartAdvice is the paragraph that says how to make Claude Desktop
// reachable on goos: both routes, the --remote-debugging-port flag (which
// recent builds are reported to ignore) and the Developer menu's main
// process debugger (a Node inspector that Baton reaches the page through).
func StartAdvice(goos, port string) string {
	if port == "" {
		port = "9222"
	}
	var quit, flagCmd, devMode string
	switch goos {
	case "darwin":
		quit = "Quit Claude Desktop fully (Cmd+Q)"
		flagCmd = "open -a Claude --args --remote-debugging-port=" + port
		devMode = "Help > Troubleshooting > Enable Developer Mode in the menu bar"
	case "windows":
		quit = "Quit Claude Desktop fully (also from the tray)"
		flagCmd = "claude.exe --remote-debugging-port=" + port
		devMode = "the menu (the three lines at the top left): Help > Troubleshooting > Enable Developer Mode"
	default:
		quit = "Quit Claude Desktop fully"
		flagCmd = "its binary with --remote-debugging-port=" + port
		devMode = "Help > Troubleshooting > Enable Developer Mode"
	}
	return fmt.Sprintf("%s, then start it with: %s, and check again. "+
		"Recent builds may ignore that flag (nothing opens on port %s); then use the other route: turn on %s, choose Developer > Enable Main Process Debugger, "+
		"and give Baton the endpoint http://127.0.0.1:%s (Settings, or baton doctor --cdp http://127.0.0.1:%s), where Baton reaches the window through the main process's Node inspector. "+
		"To try Baton without Claude Desktop, run \"baton sim --port %s\".", quit, flagCmd, port, devMode, InspectorPort, InspectorPort, port)
}

// Diagnose checks the browser, the endpoint, the page and the LocalSessions
// methods. It never fails: every problem is a failed Check with a Fix.
func Diagnose(ctx context.Context, opts DoctorOptions) Report {
	goos := opts.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	var r Report

	// The local browser (needed for the simulator, not for Claude Desktop).
	if p, err := chrome.FindChrome(opts.ChromePath); err != nil {
		r.Checks = append(r.Checks, Check{Name: "chrome", Detail: err.Error(),
			Fix: "Install Chromium or Google Chrome, or set its path in Settings or in BATON_CHROME; it is only needed for the simulator."})
	} else {
		r.ChromePath = p
		v, err := chrome.BrowserVersion(ctx, p)
		if err != nil {
			r.Checks = append(r.Checks, Check{Name: "chrome", Detail: err.Error(), Fix: "Check that " + p + " is a working Chrome or Chromium, or choose another in Settings."})
		} else {
			r.ChromeVersion = v
			r.Checks = append(r.Checks, Check{Name: "chrome", OK: true, Detail: v + " at " + p})
		}
	}

	u, err := chrome.ParseEndpoint(opts.Endpoint, opts.AllowRemote)
	if err != nil {
		fix := "Use an endpoint such as http://127.0.0.1:9222."
		if errors.Is(err, chrome.ErrRemoteEndpoint) {
			fix = "Use a 127.0.0.1 endpoint, or turn on the warned setting that allows remote endpoints (anyone who reaches the port controls the app)."
		}
		r.Checks = append(r.Checks, Check{Name: "endpoint", Detail: err.Error(), Fix: fix})
		return r
	}
	r.Endpoint = u.String()
	port := u.Port()
	v, err := chrome.Version(ctx, u)
	if err != nil {
		r.Checks = append(r.Checks, Check{Name: "endpoint", Detail: err.Error(), Fix: "Nothing answers at " + r.Endpoint + ". " + StartAdvice(goos, port)})
		return r
	}
	r.Browser = v.Browser
	r.Checks = append(r.Checks, Check{Name: "endpoint", OK: true, Detail: r.Endpoint + " answers (" + v.Browser + ")"})

	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	conn, err := dialLink(cctx, chrome.Config{Endpoint: opts.Endpoint, AllowRemote: opts.AllowRemote, PagePatterns: opts.PagePatterns},
		opts.EndpointKind, linkOptions{ProbeOnly: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fix := "Open the main Claude window, or adjust the page pattern in Settings."
		if !errors.Is(err, chrome.ErrNoPage) {
			fix = "Check that the endpoint belongs to Claude Desktop. " + StartAdvice(goos, port)
		}
		r.Checks = append(r.Checks, Check{Name: "page", Detail: err.Error(), Fix: fix})
		return r
	}
	defer func() {
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer scancel()
		_ = conn.Close(sctx)
	}()
	p := conn.Probe()
	r.Page = conn.page()
	r.AppVersion = p.Version
	if !p.Present {
		r.Checks = append(r.Checks, Check{Name: "page", Detail: "page " + r.Page + " has no window['claude.web'].LocalSessions",
			Fix: "Update Claude Desktop to a version with Claude Code sessions, and open its main window."})
		return r
	}
	detail := r.Page
	if conn.insp != nil {
		detail += " (reached through the main process's Node inspector; Baton polls for changes)"
	}
	r.Checks = append(r.Checks, Check{Name: "page", OK: true, Detail: detail})
	var missing []string
	for _, m := range RequiredMethods {
		r.Methods = append(r.Methods, MethodStatus{Name: m, Present: p.Has(m), Required: true})
		if !p.Has(m) {
			missing = append(missing, m)
		}
	}
	for _, m := range OptionalMethods {
		r.Methods = append(r.Methods, MethodStatus{Name: m, Present: p.Has(m)})
	}
	if len(missing) > 0 {
		r.Checks = append(r.Checks, Check{Name: "methods", Detail: "missing: " + strings.Join(missing, ", "),
			Fix: "This Claude Desktop version (" + p.Version + ") lacks methods Baton needs; update Claude Desktop or Baton."})
		return r
	}
	var opt []string
	for _, m := range OptionalMethods {
		if !p.Has(m) {
			opt = append(opt, m)
		}
	}
	detail = "all methods present"
	if len(opt) > 0 {
		detail = "required methods present; optional missing: " + strings.Join(opt, ", ")
		if slices.Contains(opt, "onOnEvent") {
			detail += " (Baton will poll instead of being notified)"
		}
	}
	r.Checks = append(r.Checks, Check{Name: "methods", OK: true, Detail: detail})
	r.OK = true
	return r
}
