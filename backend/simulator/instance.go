package simulator

import (
	"context"
	"errors"
	"fmt"
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
