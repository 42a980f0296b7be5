package console

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/sessions"
	"github.com/baton-app/baton/backend/view"
	"golang.org/x/term"
)

// attention asks, in the terminal, about what a run waits for from the
// user: a worker's questions (the answer goes to its session), an
// AskUserQuestion call of a worker or of the main session (its options
// listed, picked by number or answered in the user's words), a task that
// waits for the user's review, a worker's permission prompt. Each is asked
// once; an empty line leaves it open. With nobody to ask (stdin at its
// end, or --non-interactive) check says what waits instead, and the
// command pauses the run and ends.
type attention struct {
	runs  *service.Runs
	host  mainHost
	runID string
	in    *lineReader
	out   io.Writer
	// ctx is the context of the check in progress: a read waiting for a
	// line ends when it ends (Ctrl-C, SIGTERM).
	ctx   context.Context
	asked map[string]bool
	// eof: nobody to ask (no input left, or --non-interactive).
	eof bool
	// echo writes what was read back to out, when the input is not a
	// terminal that shows it already.
	echo bool
}

// mainHost is the session host, for the prompts of the run's main session,
// which the engine does not follow.
type mainHost interface {
	Session(ctx context.Context, id session.ID) (session.Info, error)
	RespondPermission(ctx context.Context, requestID string, decision session.PermissionDecision, updatedInput json.RawMessage) error
}

func newAttention(runs *service.Runs, host mainHost, runID string, stdin io.Reader, in *lineReader, out io.Writer) *attention {
	f, isFile := stdin.(*os.File)
	echo := !isFile || !term.IsTerminal(int(f.Fd()))
	return &attention{runs: runs, host: host, runID: runID, in: in, out: out, asked: map[string]bool{}, echo: echo, ctx: context.Background()}
}

// lineReader reads lines of the terminal on its own goroutine, so that a
// question waiting for a line is given up at once when the command's
// context ends (Ctrl-C, SIGTERM) instead of blocking the command.
type lineReader struct {
	in    *bufio.Reader
	start sync.Once
	lines chan lineResult
}

type lineResult struct {
	line string
	err  error
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{in: bufio.NewReader(r), lines: make(chan lineResult, 1)}
}

// ReadLine returns the next line (with its newline), or ctx's error when
// ctx ends first; the line is then kept for the next call.
func (l *lineReader) ReadLine(ctx context.Context) (string, error) {
	l.start.Do(func() {
		go func() {
			for {
				s, err := l.in.ReadString('\n')
				l.lines <- lineResult{s, err}
				if err != nil {
					return
				}
			}
		}()
	})
	select {
	case r := <-l.lines:
		if r.err != nil {
			l.lines <- lineResult{"", r.err} // every later read sees the end too
		}
		return r.line, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// check asks about everything the run waits for that was not asked yet.
// With nobody to ask it returns what waits ("" when nothing does).
func (a *attention) check(ctx context.Context) string {
	if ctx.Err() != nil {
		return ""
	}
	a.ctx = ctx
	defer func() { a.ctx = context.Background() }()
	snap, err := a.runs.Snapshot(ctx, a.runID)
	if err != nil {
		return ""
	}
	for _, w := range snap.Workers {
		if what := waitsFor(snap, w); what != "" && a.eof {
			return what
		}
		switch {
		case len(w.Questions) > 0:
			if a.once("question", w.TaskID, strings.Join(w.Questions, "\n")) {
				continue
			}
			fmt.Fprintf(a.out, "\n%s asks:\n", w.TaskID)
			for _, q := range w.Questions {
				fmt.Fprintf(a.out, "  - %s\n", q)
			}
			if line, ok := a.read("Your answer (Enter leaves the question open): "); ok {
				a.report(a.runs.Answer(ctx, a.runID, w.TaskID, line), "send the answer")
			}
		case snap.UserReviews && w.Status == view.WorkerAwaitingReview:
			if a.once("review", w.TaskID, strconv.Itoa(w.RetryCount)) {
				continue
			}
			fmt.Fprintf(a.out, "\n%s waits for your review: %s\n", w.TaskID, w.Summary)
			if line, ok := a.read("Approve it? y approves, a reason rejects it, Enter leaves it: "); ok {
				approve := strings.EqualFold(line, "y") || strings.EqualFold(line, "yes")
				reason := line
				if approve {
					reason = ""
				}
				a.report(a.runs.Review(ctx, a.runID, w.TaskID, approve, reason), "record the review")
			}
		case w.Waiting != nil:
			p := sessions.Permissions([]session.PermissionRequest{{RequestID: w.Waiting.RequestID, ToolName: w.Waiting.ToolName, Input: w.Waiting.Input}})[0]
			if qs := parseAsk(w.Waiting.Input); w.Waiting.ToolName == "AskUserQuestion" && len(qs) > 0 {
				// An AskUserQuestion call: the answers go into the call.
				if a.once("permission", w.TaskID, p.RequestID) {
					continue
				}
				if answers, ok := a.askUser(w.TaskID, qs); ok {
					a.report(a.runs.AnswerQuestion(ctx, a.runID, w.TaskID, answers), "send the answer")
				}
				continue
			}
			a.permission(w.TaskID, p, func(d session.PermissionDecision) error {
				return a.runs.RespondPermission(ctx, a.runID, w.TaskID, d)
			})
		}
	}
	if a.eof {
		for _, w := range snap.Workers {
			if what := waitsFor(snap, w); what != "" {
				return what // answered nothing: the input ended meanwhile
			}
		}
	}
	if a.host == nil || snap.Run.MainSessionID == "" {
		return ""
	}
	if l, ok := a.host.(session.HostLink); ok && l.Link().Refuses() {
		return "" // the host is lost: the engine shows reconnecting
	}
	// Bounded: a host lost during the call must not hold the command.
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	info, err := a.host.Session(hctx, session.ID(snap.Run.MainSessionID))
	cancel()
	if err != nil {
		return ""
	}
	for i, p := range sessions.Permissions(info.Pending) {
		req := info.Pending[i]
		if a.eof {
			if req.ToolName == "AskUserQuestion" {
				return "the main session asks a question: " + p.Summary
			}
			return "the main session asks permission: " + p.Summary
		}
		if qs := parseAsk(req.Input); req.ToolName == "AskUserQuestion" && len(qs) > 0 {
			if a.once("permission", "The main session", p.RequestID) {
				continue
			}
			answers, ok := a.askUser("The main session", qs)
			if !ok {
				continue
			}
			input, err := answeredInput(req.Input, answers)
			if err == nil {
				err = a.host.RespondPermission(ctx, p.RequestID, session.AllowOnce, input)
			}
			a.report(err, "send the answer")
			continue
		}
		a.permission("The main session", p, func(d session.PermissionDecision) error {
			rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			return a.host.RespondPermission(rctx, p.RequestID, d, nil)
		})
	}
	if a.eof && len(info.Pending) > 0 {
		return "the main session asks permission" // the input ended while it was asked
	}
	return ""
}

// waitsFor says what worker w of snap waits for from the user ("" when
// nothing).
func waitsFor(snap view.Snapshot, w view.Worker) string {
	switch {
	case len(w.Questions) > 0:
		return fmt.Sprintf("%s asks: %s", w.TaskID, strings.Join(w.Questions, " "))
	case snap.UserReviews && w.Status == view.WorkerAwaitingReview:
		return fmt.Sprintf("%s waits for your review", w.TaskID)
	case w.Waiting != nil && w.Waiting.ToolName == "AskUserQuestion":
		p := sessions.Permissions([]session.PermissionRequest{{RequestID: w.Waiting.RequestID, ToolName: w.Waiting.ToolName, Input: w.Waiting.Input}})[0]
		return fmt.Sprintf("%s asks a question: %s", w.TaskID, p.Summary)
	case w.Waiting != nil:
		p := sessions.Permissions([]session.PermissionRequest{{RequestID: w.Waiting.RequestID, ToolName: w.Waiting.ToolName, Input: w.Waiting.Input}})[0]
		return fmt.Sprintf("%s asks permission: %s", w.TaskID, p.Summary)
	}
	return ""
}

// permission asks about one permission prompt of who, once.
func (a *attention) permission(who string, p sessions.Permission, respond func(session.PermissionDecision) error) {
	if a.eof || a.once("permission", who, p.RequestID) {
		return
	}
	fmt.Fprintf(a.out, "\n%s asks permission: %s\n", who, p.Summary)
	line, ok := a.read("Allow it? o once, a always, d deny, Enter leaves it: ")
	if !ok {
		return
	}
	decision, known := map[string]session.PermissionDecision{"o": session.AllowOnce, "once": session.AllowOnce,
		"a": session.AllowAlways, "always": session.AllowAlways, "d": session.Deny, "deny": session.Deny}[strings.ToLower(line)]
	if !known {
		fmt.Fprintf(a.out, "%q is not o, a or d: the prompt stays open.\n", line)
		return
	}
	a.report(respond(decision), "answer the prompt")
}

// once reports whether this item was asked already, and marks it asked.
func (a *attention) once(kind, task, detail string) bool {
	key := kind + "\x00" + task + "\x00" + detail
	if a.asked[key] {
		return true
	}
	a.asked[key] = true
	return false
}

// read prompts and returns the line typed, and whether it holds anything.
func (a *attention) read(prompt string) (string, bool) {
	if a.ctx.Err() != nil {
		return "", false
	}
	fmt.Fprint(a.out, prompt)
	line, err := a.in.ReadLine(a.ctx)
	line = strings.TrimSpace(line)
	if a.ctx.Err() != nil {
		return "", false // Ctrl-C or SIGTERM: the command pauses the run
	}
	if err != nil && line == "" {
		a.eof = true // check says what waits; the command pauses the run
		fmt.Fprintln(a.out)
		return "", false
	}
	if a.echo {
		fmt.Fprintln(a.out, line)
	}
	return line, line != ""
}

func (a *attention) report(err error, what string) {
	if err != nil {
		fmt.Fprintf(a.out, "Baton could not %s: %v\n", what, err)
	}
}
