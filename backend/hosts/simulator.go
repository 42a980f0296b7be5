package hosts

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/baton-app/baton/backend/chrome"
	"github.com/baton-app/baton/backend/claude"
	"github.com/baton-app/baton/backend/doctor"
	"github.com/baton-app/baton/backend/settings"
	"github.com/baton-app/baton/backend/simulator"
)

// SimulatorOptions configure the Simulator kind.
type SimulatorOptions struct {
	// Speed divides the simulated agent's delays; 1 when zero.
	Speed float64
	// Scenario is the simulator's default scenario; "happy" when empty.
	Scenario string
	// StateDir is where the simulator keeps its sessions, so that a run
	// survives Baton's exit; none kept when empty.
	StateDir string
}

// Simulator is the "Simulator — no AI" kind: the simulator started
// in-process (its server and a Chromium on its page) and the LocalSessions
// adapter attached to it, the very code that drives Claude Desktop.
func Simulator(o SimulatorOptions) Kind { return simulatorKind{o} }

type simulatorKind struct{ opts SimulatorOptions }

func (simulatorKind) Info() Info {
	return Info{Name: settings.HostSimulator, Short: "sim", Label: "Simulator — no AI",
		Description: "A scripted agent in a local Chromium page. For trying Baton, demos and tests.",
		Fields:      []string{"chromePath", "headless", "pollIntervalMs"},
		Simulated:   true}
}

func (k simulatorKind) Open(ctx context.Context, cfg settings.Settings, env Env) (Conn, error) {
	h, in, err := StartSimulator(ctx, simulator.InstanceOptions{
		Simulator:  simulator.Options{Speed: k.opts.Speed, Scenario: k.opts.Scenario, Logger: env.Logger, StateDir: k.opts.StateDir},
		ChromePath: cfg.ChromePath,
		Headed:     !cfg.Headless,
	}, adapterOptions(cfg, env))
	if err != nil {
		return nil, err
	}
	return simConn{cdpConn{h}, in}, nil
}

// Diagnose checks the simulator this Manager runs (connecting first, so
// the report shows its page); it cannot check one it does not run.
func (simulatorKind) Diagnose(ctx context.Context, cfg settings.Settings, inUse InUse) doctor.Report {
	const name = "Simulator"
	conn, err := inUse(ctx)
	if errors.Is(err, ErrNotInUse) {
		return doctor.Report{Checks: []doctor.Check{{Name: name, Detail: "the simulator is not the host in use",
			Fix: "Save the settings with Simulator as the host, then test the connection."}}}
	}
	if err != nil {
		return doctor.Report{Checks: []doctor.Check{{Name: name, Detail: err.Error(),
			Fix: "Install Chromium (or set its path in Settings) so Baton can start the simulator."}}}
	}
	sc, ok := conn.(simConn)
	if !ok {
		return doctor.Report{Checks: []doctor.Check{{Name: name, Detail: fmt.Sprintf("the host in use is a %T, not the simulator", conn),
			Fix: "Save the settings again with Simulator as the host, then test the connection."}}}
	}
	return claude.Diagnose(ctx, claude.DoctorOptions{Endpoint: sc.in.Endpoint(), PagePatterns: []string{sc.in.PagePattern()}, ChromePath: cfg.ChromePath})
}

func (simulatorKind) Describe(Status) string { return "the embedded simulator (no AI)" }

// simConn is the adapter on the simulator it started.
type simConn struct {
	cdpConn
	in *simulator.Instance
}

// StartSimulator starts the simulator in-process (its server and a browser
// on its page, as "baton sim" does) and attaches the adapter to it: the
// Simulator kind's host, and the tests' simulator. Closing the Host stops
// the simulator too.
func StartSimulator(ctx context.Context, sim simulator.InstanceOptions, opts claude.Options) (*claude.Host, *simulator.Instance, error) {
	in, err := simulator.Launch(ctx, sim)
	if err != nil {
		return nil, nil, fmt.Errorf("start the simulator: %w", err)
	}
	opts.OnClose = in.Shutdown
	h, err := claude.Dial(ctx, chrome.Config{Endpoint: in.Endpoint(), PagePatterns: []string{in.PagePattern()}, Logger: opts.Logger}, opts)
	if err != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return nil, nil, errors.Join(err, in.Shutdown(sctx))
	}
	return h, in, nil
}
