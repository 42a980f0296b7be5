package simulator

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/baton-app/baton/backend/chrome"
)

// InstanceOptions configure a simulator with its own browser.
type InstanceOptions struct {
	Simulator Options
	// Port is the DevTools port of the browser; any free port when zero.
	Port int
	// ChromePath is the browser; found with chrome.FindChrome when empty.
	ChromePath string
	// Headed shows the browser window (headless by default).
	Headed bool
	// ProfileDir is a persistent browser profile; temporary when empty.
	ProfileDir string
	// Rules are per-session scenario rules: session id part → scenario.
	Rules map[string]string
}

// Instance is a simulator server plus a Chromium showing its page with a
// DevTools port: a stand-in for Claude Desktop that the adapter attaches to
// exactly as it attaches to Claude Desktop.
type Instance struct {
	Sim     *Simulator
	Browser *chrome.Browser
}

// Launch starts the simulator server and a browser on its page. It is what
// "baton sim" runs and what the GUI's Simulator host starts in-process.
func Launch(ctx context.Context, opts InstanceOptions) (*Instance, error) {
	sim, err := New(opts.Simulator)
	if err != nil {
		return nil, err
	}
	for match, sc := range opts.Rules {
		if err := sim.SetScenario(match, sc); err != nil {
			return nil, err
		}
	}
	if err := sim.Start(); err != nil {
		return nil, err
	}
	b, err := chrome.Launch(ctx, chrome.LaunchOptions{
		Path: opts.ChromePath, Headless: !opts.Headed, ProfileDir: opts.ProfileDir, Port: opts.Port, URL: sim.URL(),
	})
	if err != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return nil, errors.Join(fmt.Errorf("start the simulator's browser: %w", err), sim.Shutdown(sctx))
	}
	return &Instance{Sim: sim, Browser: b}, nil
}

// Endpoint is the DevTools endpoint to attach to.
func (in *Instance) Endpoint() string { return in.Browser.Endpoint() }

// PagePattern is a page pattern that selects the simulator's page.
func (in *Instance) PagePattern() string { return in.Sim.URL() }

// Shutdown stops the browser and the server.
func (in *Instance) Shutdown(ctx context.Context) error {
	return errors.Join(in.Browser.Shutdown(ctx), in.Sim.Shutdown(ctx))
}

// RunCLI is "baton sim": it runs the simulator as a stand-in for Claude
// Desktop until interrupted.
func RunCLI(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	port := fs.Int("port", 9222, "DevTools port of the simulator's browser (0 picks a free one)")
	scenario := fs.String("scenario", "happy", "default scenario: "+strings.Join(Scenarios, ", "))
	speed := fs.Float64("speed", 1, "speed factor of the scripted agent (10 is ten times faster)")
	chromePath := fs.String("chrome", "", "path of Chrome or Chromium (default: $BATON_CHROME or the standard places)")
	headed := fs.Bool("headed", false, "show the browser window")
	var rules ruleFlag
	fs.Var(&rules, "scenario-for", "MATCH=SCENARIO: sessions whose id contains MATCH use SCENARIO (repeatable)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "baton sim takes no arguments besides its flags; run \"baton help sim\".")
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	in, err := Launch(ctx, InstanceOptions{
		Simulator:  Options{Scenario: *scenario, Speed: *speed, Logger: log},
		Port:       *port,
		ChromePath: *chromePath,
		Headed:     *headed,
		Rules:      rules,
	})
	if err != nil {
		fmt.Fprintf(stderr, "The simulator could not start: %v.\n", err)
		if errors.Is(err, chrome.ErrChromeNotFound) {
			fmt.Fprintln(stderr, "Install Chromium or Chrome, or pass its path with --chrome or BATON_CHROME.")
		}
		return 1
	}
	fmt.Fprintf(stdout, "Simulator running (no AI).\nCDP endpoint: %s\nPage: %s\nAttach with: baton doctor --cdp %s\nPress Ctrl+C to stop.\n", in.Endpoint(), in.Sim.URL(), in.Endpoint())
	select {
	case <-ctx.Done():
	case <-in.Browser.Done():
		fmt.Fprintln(stderr, "The simulator's browser exited.")
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := in.Shutdown(sctx); err != nil {
		fmt.Fprintf(stderr, "Stopping the simulator: %v.\n", err)
		return 1
	}
	return 0
}

type ruleFlag map[string]string

func (r *ruleFlag) String() string { return fmt.Sprint(map[string]string(*r)) }

func (r *ruleFlag) Set(v string) error {
	match, sc, ok := strings.Cut(v, "=")
	if !ok || match == "" || !ValidScenario(sc) {
		return fmt.Errorf("want MATCH=SCENARIO with SCENARIO one of %s", strings.Join(Scenarios, ", "))
	}
	if *r == nil {
		*r = map[string]string{}
	}
	(*r)[match] = sc
	return nil
}
