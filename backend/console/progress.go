package console

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/store"
)

// progress shows a run as it goes: on a terminal, a bar per worker redrawn
// in place under the log lines; elsewhere, one plain line per event that
// matters (no progress ticks, so logs stay short).
type progress struct {
	w       io.Writer
	tty     bool
	workers map[string]store.Worker
	drawn   int // worker lines currently on screen (tty only)
	last    time.Time
}

func newProgress(w io.Writer) *progress {
	tty := false
	// The display writes its own cursor movements, so it writes to the
	// writer under a safeWriter and sanitizes the text it shows itself.
	w = unwrap(w)
	if f, ok := w.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	return &progress{w: w, tty: tty, workers: map[string]store.Worker{}}
}

func (p *progress) event(e evt) {
	if e.p.Worker != nil {
		p.workers[e.p.Worker.TaskID] = *e.p.Worker
	}
	for _, w := range e.p.Workers {
		p.workers[w.TaskID] = w
	}
	if line := describe(e); line != "" {
		p.log(line)
	}
	if p.tty && (e.name != engine.EventWorkerProgress && e.name != engine.EventProgress || time.Since(p.last) > 100*time.Millisecond) {
		p.redraw()
	}
}

// describe is the plain line for an event, or "" for progress ticks.
func describe(e evt) string {
	p := e.p
	switch e.name {
	case engine.EventPhaseChanged:
		return fmt.Sprintf("phase %s (%s)", p.Phase, p.Status)
	case engine.EventAnalysisComplete:
		return "analysis done"
	case engine.EventReprompted, engine.EventWorkerReprompted:
		return strings.TrimSpace(fmt.Sprintf("%s asked again: %s", orRun(p.TaskID), p.Message))
	case engine.EventWorkerStarted:
		return fmt.Sprintf("%s started", p.TaskID)
	case engine.EventWorkerCompleted:
		return fmt.Sprintf("%s completed", p.TaskID)
	case engine.EventWorkerFailed, engine.EventWorkerTimeout:
		return fmt.Sprintf("%s %s: %s", p.TaskID, strings.TrimPrefix(e.name, "worker:"), p.Message)
	case engine.EventWorkerRetrying:
		return fmt.Sprintf("%s retrying", p.TaskID)
	case engine.EventWorkerSkipped:
		return fmt.Sprintf("%s skipped: %s", p.TaskID, p.Message)
	case engine.EventWorkerWaiting:
		if p.Worker != nil && p.Worker.Waiting == nil {
			return fmt.Sprintf("%s: %s", p.TaskID, p.Message) // the prompt was answered
		}
		return fmt.Sprintf("%s waits for permission: %s", p.TaskID, p.Message)
	case engine.EventWorkerQuestion:
		return fmt.Sprintf("%s asks a question", p.TaskID)
	case engine.EventWorkerAnswered:
		return fmt.Sprintf("%s got the answer", p.TaskID)
	case engine.EventWorkerAwaitingReview:
		return fmt.Sprintf("%s awaits review", p.TaskID)
	case engine.EventWorkerRejected:
		return fmt.Sprintf("%s rejected: %s", p.TaskID, p.Message)
	case engine.EventPaused, engine.EventResumed, engine.EventCancelled:
		return strings.TrimPrefix(e.name, "orchestrator:")
	case engine.EventError:
		return "error: " + p.Message
	case engine.EventReconnecting:
		return "reconnecting: " + p.Message
	case engine.EventReconnected:
		return "reconnected: " + p.Message
	case engine.EventStatusChanged:
		if p.Status == engine.RunInterrupted.String() && p.Message != "restored" {
			return "interrupted: " + p.Message
		}
	}
	if l := limitLine(e); l != "" {
		return l
	}
	return describeWorktree(e)
}

func orRun(task string) string {
	if task == "" {
		return "the main session"
	}
	return task
}

func (p *progress) log(line string) {
	if p.tty {
		p.clear()
	}
	fmt.Fprintf(p.w, "%s %s\n", time.Now().Format("15:04:05"), sanitize(line))
	if p.tty {
		p.redraw()
	}
}

func (p *progress) clear() {
	if p.drawn > 0 {
		fmt.Fprintf(p.w, "\x1b[%dA\x1b[J", p.drawn)
		p.drawn = 0
	}
}

func (p *progress) redraw() {
	p.clear()
	ids := make([]string, 0, len(p.workers))
	for id := range p.workers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		w := p.workers[id]
		fmt.Fprintf(p.w, "  %-10s %s %-9s %s\n", line(id), bar(w.Progress), line(w.Status), clip(line(w.CurrentAction), 50))
	}
	p.drawn = len(ids)
	p.last = time.Now()
}

func bar(fraction float64) string {
	const width = 20
	if fraction > 1 {
		fraction /= 100 // percent
	}
	n := int(fraction*width + 0.5)
	n = max(0, min(width, n))
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", width-n) + "]"
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
