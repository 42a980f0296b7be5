package console

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/baton-app/baton/backend/view"
)

// progress shows a run as it goes: on a terminal, a bar per worker redrawn
// in place under the log lines; elsewhere, one plain line per event that
// matters (no progress ticks, so logs stay short).
type progress struct {
	w       io.Writer
	tty     bool
	workers map[string]view.Worker
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
	return &progress{w: w, tty: tty, workers: map[string]view.Worker{}}
}

func (p *progress) event(e view.Event) {
	if e.Worker != nil {
		p.workers[e.Worker.TaskID] = *e.Worker
	}
	for _, w := range e.Workers {
		p.workers[w.TaskID] = w
	}
	if line := describe(e); line != "" {
		p.log(line)
	}
	if p.tty && (e.Name != view.EventWorkerProgress && e.Name != view.EventProgress || time.Since(p.last) > 100*time.Millisecond) {
		p.redraw()
	}
}

// describe is the plain line for an event, or "" for progress ticks.
func describe(p view.Event) string {
	switch p.Name {
	case view.EventPhaseChanged:
		return fmt.Sprintf("phase %s (%s)", p.Phase, p.Status)
	case view.EventAnalysisComplete:
		return "analysis done"
	case view.EventReprompted, view.EventWorkerReprompted:
		return strings.TrimSpace(fmt.Sprintf("%s asked again: %s", orRun(p.TaskID), p.Message))
	case view.EventWorkerStarted:
		return fmt.Sprintf("%s started", p.TaskID)
	case view.EventWorkerCompleted:
		return fmt.Sprintf("%s completed", p.TaskID)
	case view.EventWorkerFailed, view.EventWorkerTimeout:
		return fmt.Sprintf("%s %s: %s", p.TaskID, strings.TrimPrefix(p.Name, "worker:"), p.Message)
	case view.EventWorkerRetrying:
		if strings.Contains(p.Message, "starts again elsewhere") || strings.HasPrefix(p.Message, "waiting for machine") {
			return fmt.Sprintf("%s retrying: %s", p.TaskID, p.Message)
		}
		return fmt.Sprintf("%s retrying", p.TaskID)
	case view.EventWorkerProgress:
		if p.TaskID != "" && p.Message != "" {
			return fmt.Sprintf("%s %s", p.TaskID, p.Message) // waiting for its machine
		}
	case view.EventWorkerSkipped:
		return fmt.Sprintf("%s skipped: %s", p.TaskID, p.Message)
	case view.EventWorkerWaiting:
		if p.Worker != nil && p.Worker.Waiting == nil {
			return fmt.Sprintf("%s: %s", p.TaskID, p.Message) // the prompt was answered
		}
		return fmt.Sprintf("%s waits for permission: %s", p.TaskID, p.Message)
	case view.EventWorkerMemory:
		return fmt.Sprintf("%s %s", p.TaskID, p.Message)
	case view.EventWorkerQuestion:
		return fmt.Sprintf("%s asks a question", p.TaskID)
	case view.EventWorkerAnswered:
		return fmt.Sprintf("%s got the answer", p.TaskID)
	case view.EventWorkerAwaitingReview:
		return fmt.Sprintf("%s awaits review", p.TaskID)
	case view.EventWorkerRejected:
		return fmt.Sprintf("%s rejected: %s", p.TaskID, p.Message)
	case view.EventPaused, view.EventResumed, view.EventCancelled:
		return strings.TrimPrefix(p.Name, "orchestrator:")
	case view.EventError:
		return "error: " + p.Message
	case view.EventReconnecting:
		return "reconnecting: " + p.Message
	case view.EventReconnected:
		return "reconnected: " + p.Message
	case view.EventStatusChanged:
		if p.Status == view.RunInterrupted && p.Message != "restored" {
			return "interrupted: " + p.Message
		}
	}
	if l := limitLine(p); l != "" {
		return l
	}
	return describeWorktree(p)
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
