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

	"github.com/baton-app/baton/backend/modelsim"
)

// ModelSimUsage is the one-line usage of "baton model-sim".
const ModelSimUsage = "baton model-sim [--listen 127.0.0.1:PORT] [--scenario NAME] [--scenario-for MATCH=NAME]... [--log FILE]"

// RunModelSim is "baton model-sim": the Messages API stand-in, serving
// until interrupted.
func RunModelSim(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runModelSim(ctx, args, stdout, stderr)
}

type modelSimRules []string

func (r *modelSimRules) String() string { return strings.Join(*r, ",") }

func (r *modelSimRules) Set(v string) error {
	match, name, ok := strings.Cut(v, "=")
	if !ok || match == "" || !modelsim.ValidScenario(name) {
		return errors.New("want MATCH=SCENARIO with a scenario listed in \"baton model-sim --help\"")
	}
	*r = append(*r, v)
	return nil
}

func modelSimHelp(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n\n", ModelSimUsage)
	fmt.Fprint(w, `A stand-in for the Anthropic Messages API on this machine, for tests and demos
of the real Claude Code CLI: no AI, only the scripted agent of the simulator.
Point the CLI at it:

  ANTHROPIC_BASE_URL=http://127.0.0.1:PORT ANTHROPIC_API_KEY=any \
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 claude -p "..." --output-format stream-json --verbose

It serves POST /v1/messages (streaming and not), POST /v1/messages/count_tokens
and GET /v1/models. The agent reads the phase Baton's prompt asks for and the
working directory from the request, explores the folder and ends with the
phase's block, through the CLI's own tools. Its workers do real work: a
documentation task writes docs/<component>.md from the code and the index
docs/README.md, a test task writes a test file per package that builds and
passes and runs it (go test, npm test, python3 -m unittest, cargo test),
reviews and bug hunts report findings at file:line. In plan mode they write
nothing and propose their changes. A resumed conversation goes on from the
tool results in it: what it wrote, it does not write again.

A session's scenario: a marker [[sim:scenario=NAME k=v]] in a prompt, else the
last --scenario-for rule whose MATCH is in the CLI's session id, the working
directory or the first prompt, else --scenario. The API faults (cut-stream,
no-answer, garbage, overloaded, server-error, rate-limited, usage-limit) hit
every request, or only the first N with times=N.

Scenarios:
`)
	for _, s := range modelsim.Scenarios {
		fmt.Fprintf(w, "  %-17s %s\n", s.Name, wrap(s.Help, 78, strings.Repeat(" ", 20)))
	}
	fmt.Fprintln(w, "\nFlags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
}

func runModelSim(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, o := modelSimFlagSet()
	listen, scenario, logPath := o.listen, o.scenario, o.logPath
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			modelSimHelp(fs, stdout)
			return 0
		}
		fmt.Fprintf(stderr, "baton model-sim: %v. Run \"baton model-sim --help\".\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "baton model-sim takes no arguments besides its flags; run \"baton model-sim --help\".")
		return 2
	}
	if err := modelsim.CheckLoopback(*listen); err != nil {
		fmt.Fprintf(stderr, "baton model-sim: %v.\n", err)
		return 2
	}
	opts := modelsim.Options{
		Addr: *listen, Scenario: *scenario,
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			fmt.Fprintf(stderr, "baton model-sim: the log file: %v.\n", err)
			return 1
		}
		defer f.Close()
		opts.Log = f
	}
	srv, err := modelsim.New(opts)
	if err != nil {
		fmt.Fprintf(stderr, "baton model-sim: %v.\n", err)
		return 2
	}
	for _, r := range *o.rules {
		match, name, _ := strings.Cut(r, "=")
		if err := srv.SetScenario(match, name); err != nil {
			fmt.Fprintf(stderr, "baton model-sim: %v.\n", err)
			return 2
		}
	}
	if err := srv.Start(); err != nil {
		fmt.Fprintf(stderr, "baton model-sim: %v.\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "model-sim (no AI) listening on %s\nUse it with: ANTHROPIC_BASE_URL=%s ANTHROPIC_API_KEY=any claude ...\nPress Ctrl+C to stop.\n", srv.URL(), srv.URL())
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		fmt.Fprintf(stderr, "baton model-sim: stopping: %v.\n", err)
		return 1
	}
	return 0
}

// wrap breaks text into lines of at most width bytes, the later ones
// indented.
func wrap(text string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(text) {
		if i > 0 && n+1+len(word) > width {
			b.WriteString("\n" + indent)
			n = 0
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}

type modelSimOptions struct {
	listen   *string
	scenario *string
	logPath  *string
	rules    *modelSimRules
}

// modelSimFlagSet defines the flags of "baton model-sim": its help lists them all.
func modelSimFlagSet() (*flag.FlagSet, *modelSimOptions) {
	o := &modelSimOptions{}
	fs := flag.NewFlagSet("model-sim", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.listen = fs.String("listen", "127.0.0.1:0", "loopback address to listen on (port 0 picks a free one)")
	o.scenario = fs.String("scenario", "happy", "default scenario")
	o.logPath = fs.String("log", "", "append every request and its answer to FILE as JSON lines")
	o.rules = new(modelSimRules)
	fs.Var(o.rules, "scenario-for", "MATCH=SCENARIO: sessions that MATCH use SCENARIO (repeatable)")
	return fs, o
}
