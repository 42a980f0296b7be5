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
	"github.com/baton-app/baton/backend/doctor"
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
// methods. It never fails: every problem is a failed check with a fix. The
// report is OK when the endpoint, the page and every required method are
// there (a missing local Chrome does not matter for Claude Desktop); its
// list names every method and whether the page has it.
func Diagnose(ctx context.Context, opts DoctorOptions) doctor.Report {
	goos := opts.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	var r doctor.Report
	check := func(name string, ok bool, detail, fix string) {
		r.Checks = append(r.Checks, doctor.Check{Name: name, OK: ok, Detail: detail, Fix: fix})
	}

	// The local browser (needed for the simulator, not for Claude Desktop).
	if p, err := chrome.FindChrome(opts.ChromePath); err != nil {
		check("chrome", false, err.Error(),
			"Install Chromium or Google Chrome, or set its path in Settings or in BATON_CHROME; it is only needed for the simulator.")
	} else if v, err := chrome.BrowserVersion(ctx, p); err != nil {
		check("chrome", false, err.Error(), "Check that "+p+" is a working Chrome or Chromium, or choose another in Settings.")
	} else {
		check("chrome", true, v+" at "+p, "")
	}

	u, err := chrome.ParseEndpoint(opts.Endpoint, opts.AllowRemote)
	if err != nil {
		fix := "Use an endpoint such as http://127.0.0.1:9222."
		if errors.Is(err, chrome.ErrRemoteEndpoint) {
			fix = "Use a 127.0.0.1 endpoint, or turn on the warned setting that allows remote endpoints (anyone who reaches the port controls the app)."
		}
		check("endpoint", false, err.Error(), fix)
		return r
	}
	r.Target = u.String()
	port := u.Port()
	v, err := chrome.Version(ctx, u)
	if err != nil {
		check("endpoint", false, err.Error(), "Nothing answers at "+r.Target+". "+StartAdvice(goos, port))
		return r
	}
	check("endpoint", true, r.Target+" answers ("+v.Browser+")", "")

	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	conn, err := dialLink(cctx, chrome.Config{Endpoint: opts.Endpoint, AllowRemote: opts.AllowRemote, PagePatterns: opts.PagePatterns},
		opts.EndpointKind, linkOptions{ProbeOnly: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fix := "Open the main Claude window, or adjust the page pattern in Settings."
		if !errors.Is(err, chrome.ErrNoPage) {
			fix = "Check that the endpoint belongs to Claude Desktop. " + StartAdvice(goos, port)
		}
		check("page", false, err.Error(), fix)
		return r
	}
	defer func() {
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer scancel()
		_ = conn.Close(sctx)
	}()
	p := conn.Probe()
	page := conn.page()
	r.Version = p.Version
	if !p.Present {
		check("page", false, "page "+page+" has no window['claude.web'].LocalSessions",
			"Update Claude Desktop to a version with Claude Code sessions, and open its main window.")
		return r
	}
	detail := page
	if conn.insp != nil {
		detail += " (reached through the main process's Node inspector; Baton polls for changes)"
	}
	check("page", true, detail, "")
	methods := doctor.List{Title: "LocalSessions methods"}
	var missing, opt []string
	for _, m := range RequiredMethods {
		methods.Items = append(methods.Items, methodItem(m, p.Has(m), "required"))
		if !p.Has(m) {
			missing = append(missing, m)
		}
	}
	for _, m := range OptionalMethods {
		methods.Items = append(methods.Items, methodItem(m, p.Has(m), "optional"))
		if !p.Has(m) {
			opt = append(opt, m)
		}
	}
	r.Lists = append(r.Lists, methods)
	if len(missing) > 0 {
		check("methods", false, "missing: "+strings.Join(missing, ", "),
			"This Claude Desktop version ("+p.Version+") lacks methods Baton needs; update Claude Desktop or Baton.")
		return r
	}
	detail = "all methods present"
	if len(opt) > 0 {
		detail = "required methods present; optional missing: " + strings.Join(opt, ", ")
		if slices.Contains(opt, "onOnEvent") {
			detail += " (Baton will poll instead of being notified)"
		}
	}
	check("methods", true, detail, "")
	r.OK = true
	r.Verdict = "Baton can drive the sessions at " + r.Target + "."
	return r
}

// methodItem is one LocalSessions method in the doctor's list.
func methodItem(name string, present bool, note string) doctor.Item {
	state := "missing"
	if present {
		state = "present"
	}
	return doctor.Item{Name: name, OK: present, State: state, Note: note}
}
