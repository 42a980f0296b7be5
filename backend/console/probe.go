package console

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/baton-app/baton/backend/chrome"
	"github.com/baton-app/baton/backend/claude"
)

// ProbeUsage is the usage line of "baton probe".
const ProbeUsage = "baton probe --out FILE [--cdp URL] [--yes] [--redact] [--for 30s] [--session ID]... [--sessions N] [--entries N]"

// probeOptions are the flags of "baton probe".
type probeOptions struct {
	out, cdpURL, kind, pattern *string
	allowRemote, yes, redact   *bool
	dur                        *time.Duration
	maxSessions, maxEntries    *int
	ids                        *multiFlag
}

// probeFlagSet defines the flags of "baton probe": its help lists them all.
func probeFlagSet() (*flag.FlagSet, *probeOptions) {
	fs := flag.NewFlagSet("probe", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o := &probeOptions{ids: &multiFlag{}}
	o.out = fs.String("out", "", "the file to write the recording to (required)")
	o.cdpURL = fs.String("cdp", chrome.DefaultEndpoint, "DevTools endpoint of Claude Desktop, or its main process debugger (http://127.0.0.1:9229)")
	o.kind = fs.String("endpoint-kind", "", "page or inspector (default: detected)")
	o.pattern = fs.String("page", "", "page URL pattern (default: "+strings.Join(claude.PagePatterns, ", ")+")")
	o.allowRemote = fs.Bool("allow-remote", false, "allow an endpoint that is not on this machine (unsafe)")
	o.yes = fs.Bool("yes", false, "consent without asking")
	o.redact = fs.Bool("redact", false, "replace every text (messages, tool input and output, titles, paths) by its length")
	o.dur = fs.Duration("for", 30*time.Second, "how long to record events")
	o.maxSessions = fs.Int("sessions", 10, "how many of the most recently active sessions to record")
	o.maxEntries = fs.Int("entries", 500, "how many entries of each transcript's end to keep")
	fs.Var(o.ids, "session", "record this session id (repeatable; default: the most recently active)")
	return fs, o
}

// ProbeCLI is "baton probe": with the user's consent it records what
// Claude Desktop's LocalSessions really returns to a file the user names,
// so that "baton sim --replay FILE" can play it and Baton's readers can be
// checked against it.
func ProbeCLI(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, o := probeFlagSet()
	fs.SetOutput(stderr)
	out, cdpURL, kind, pattern, allowRemote, yes, redact := o.out, o.cdpURL, o.kind, o.pattern, o.allowRemote, o.yes, o.redact
	dur, maxSessions, maxEntries, ids := o.dur, o.maxSessions, o.maxEntries, o.ids
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 || *out == "" {
		fmt.Fprintln(stderr, "baton probe needs --out FILE and takes no other arguments; run \"baton help probe\".")
		return 2
	}
	what := "the text of your messages and of Claude's answers, tool input and output, session titles and folders"
	if *redact {
		what = "the shapes only (texts replaced by their length; ids, dates, field names and counts kept)"
	}
	fmt.Fprintf(stdout, "baton probe records what Claude Desktop at %s returns (its session list, up to %d sessions with their transcripts, "+
		"the events and permission requests of the next %s, and its method list) to %s. It holds %s. "+
		"It starts, sends and answers nothing. Nothing leaves this machine unless you share the file.\n", *cdpURL, *maxSessions, *dur, *out, what)
	if !*yes {
		fmt.Fprint(stdout, "Record? [y/N] ")
		line, _ := bufio.NewReader(stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(stdout, "Nothing was recorded.")
			return 1
		}
	}
	if _, err := os.Stat(*out); err == nil {
		fmt.Fprintf(stderr, "baton probe: %s exists; name a new file.\n", *out)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var patterns []string
	if *pattern != "" {
		patterns = []string{*pattern}
	}
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	h, err := claude.Dial(dctx, chrome.Config{Endpoint: *cdpURL, AllowRemote: *allowRemote, PagePatterns: patterns,
		Logger: slog.New(slog.DiscardHandler)}, claude.Options{ProbeOnly: true, EndpointKind: *kind, Logger: slog.New(slog.DiscardHandler)})
	cancel()
	if err != nil {
		fmt.Fprintf(stderr, "baton probe: %v\n", err)
		if errors.Is(err, chrome.ErrUnreachable) {
			fmt.Fprintln(stderr, claude.StartAdvice(goosOf(), portOf(*cdpURL)))
		}
		return 1
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = h.Close(cctx)
	}()
	rctx, rcancel := context.WithTimeout(ctx, *dur+2*time.Minute)
	defer rcancel()
	rec, err := claude.Record(rctx, h, claude.RecordOptions{For: *dur, Redact: *redact, Sessions: *ids, MaxSessions: *maxSessions, MaxEntries: *maxEntries,
		Progress: func(s string) { fmt.Fprintln(stdout, s) }})
	if err != nil {
		fmt.Fprintf(stderr, "baton probe: %v\n", err)
		return 1
	}
	if err := rec.WriteFile(*out); err != nil {
		fmt.Fprintf(stderr, "baton probe: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "Recorded to %s. Replay it with: baton sim --replay %s\n", *out, *out)
	return 0
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func goosOf() string { return runtime.GOOS }

// portOf is the port of an endpoint URL ("" when it has none).
func portOf(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil {
		return u.Port()
	}
	return ""
}
