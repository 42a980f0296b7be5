package console

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
	"github.com/baton-app/baton/backend/recording"
	"github.com/baton-app/baton/backend/simulator"
)

// SimCLI is "baton sim": it runs the simulator as a stand-in for Claude
// Desktop until interrupted.
func SimCLI(args []string, stdout, stderr io.Writer) int {
	fs, o := simFlagSet()
	fs.SetOutput(stderr)
	port, scenario, speed, chromePath, headed := o.port, o.scenario, o.speed, o.chromePath, o.headed
	replay, shapesFlag := o.replay, o.shapes
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "baton sim takes no arguments besides its flags; run \"baton help sim\".")
		return 2
	}
	shapes, err := simulator.ParseShapes(*shapesFlag)
	if err != nil {
		fmt.Fprintf(stderr, "baton sim: --shapes: %v\n", err)
		return 2
	}
	var rec *recording.Recording
	if *replay != "" {
		if rec, err = recording.Read(*replay); err != nil {
			fmt.Fprintf(stderr, "baton sim: --replay: %v\n", err)
			return 2
		}
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	in, err := simulator.Launch(ctx, simulator.InstanceOptions{
		Simulator:  simulator.Options{Scenario: *scenario, Speed: *speed, Logger: log, Shapes: shapes, Replay: rec},
		Port:       *port,
		ChromePath: *chromePath,
		Headed:     *headed,
		Rules:      *o.rules,
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

type scenarioRules map[string]string

func (r *scenarioRules) String() string { return fmt.Sprint(map[string]string(*r)) }

func (r *scenarioRules) Set(v string) error {
	match, sc, ok := strings.Cut(v, "=")
	if !ok || match == "" || !simulator.ValidScenario(sc) {
		return fmt.Errorf("want MATCH=SCENARIO with SCENARIO one of %s", strings.Join(simulator.Scenarios, ", "))
	}
	if *r == nil {
		*r = map[string]string{}
	}
	(*r)[match] = sc
	return nil
}

type simOptions struct {
	port       *int
	scenario   *string
	speed      *float64
	chromePath *string
	headed     *bool
	rules      *scenarioRules
	replay     *string
	shapes     *string
}

// simFlagSet defines the flags of "baton sim": its help lists them all.
func simFlagSet() (*flag.FlagSet, *simOptions) {
	o := &simOptions{}
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.port = fs.Int("port", 9222, "DevTools port of the simulator's browser (0 picks a free one)")
	o.scenario = fs.String("scenario", "happy", "default scenario: "+strings.Join(simulator.Scenarios, ", "))
	o.speed = fs.Float64("speed", 1, "speed factor of the scripted agent (10 is ten times faster)")
	o.chromePath = fs.String("chrome", "", "path of Chrome or Chromium (default: $BATON_CHROME or the standard places)")
	o.headed = fs.Bool("headed", false, "show the browser window")
	o.rules = new(scenarioRules)
	fs.Var(o.rules, "scenario-for", "MATCH=SCENARIO: sessions whose id contains MATCH use SCENARIO (repeatable)")
	o.replay = fs.String("replay", "", "serve a \"baton probe\" recording instead of the scripted agent")
	o.shapes = fs.String("shapes", "", "make the page take the real Claude Desktop's reported shapes: real (all), or a comma-separated list of "+strings.Join(simulator.ShapeNames(), ", "))
	return fs, o
}
