package inbox

import (
	"context"
	"log/slog"
	"reflect"
	"sync"
	"time"

	"github.com/baton-app/baton/backend/engine"
)

// EventChanged carries the whole inbox to the frontend whenever it may have
// changed.
const EventChanged = "inbox:changed"

// Summary is the inbox with the number of active runs (for the tray).
type Summary struct {
	Active int    `json:"active"`
	Items  []Item `json:"items"`
}

// Watcher recomputes the inbox after engine events, at most once per
// interval, and hands the result to onChange. A main session's prompts come
// without an engine event, so while an active run has a main session it
// also looks again every poll, and hands on only what changed. It is an
// engine.Emitter; Emit never blocks.
type Watcher struct {
	runs     Runs
	host     Sessions
	onChange func(Summary)
	interval time.Duration
	poll     time.Duration
	log      *slog.Logger

	kick chan struct{}
	done chan struct{}
	wg   sync.WaitGroup
}

// NewWatcher starts a Watcher; Close stops it. host may be nil (no main
// session prompts); poll 0 never looks again without an event.
func NewWatcher(runs Runs, host Sessions, interval, poll time.Duration, onChange func(Summary), logger *slog.Logger) *Watcher {
	if logger == nil {
		logger = slog.Default()
	}
	w := &Watcher{runs: runs, host: host, onChange: onChange, interval: interval, poll: poll, log: logger.With("component", "inbox"),
		kick: make(chan struct{}, 1), done: make(chan struct{})}
	w.wg.Add(1)
	go w.loop()
	return w
}

// Emit implements engine.Emitter: events that can change what waits for
// the user schedule a recount.
func (w *Watcher) Emit(name string, p engine.Payload) {
	if name == engine.EventWorkerProgress || name == engine.EventProgress {
		if p.Worker == nil && len(p.Workers) == 0 {
			return
		}
	}
	w.Refresh()
}

// Refresh schedules a recount.
func (w *Watcher) Refresh() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

func (w *Watcher) loop() {
	defer w.wg.Done()
	var (
		last   *Summary
		polled bool
		again  <-chan time.Time // the next look for main session prompts
	)
	for {
		select {
		case <-w.done:
			return
		case <-w.kick:
			polled = false
		case <-again:
			polled = true
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		items, mains, err := collect(ctx, w.runs, w.host)
		cancel()
		again = nil
		if mains && w.poll > 0 {
			again = time.After(w.poll)
		}
		if err != nil {
			w.log.Warn("inbox not updated", "err", err)
		} else if s := (Summary{Active: len(w.runs.Active()), Items: items}); !polled || last == nil || !reflect.DeepEqual(s, *last) {
			last = &s
			w.onChange(s)
		}
		select {
		case <-w.done:
			return
		case <-time.After(w.interval):
		}
	}
}

// Close stops the Watcher and waits for it.
func (w *Watcher) Close() {
	close(w.done)
	w.wg.Wait()
}
