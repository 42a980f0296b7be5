package claudecode

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/baton-app/baton/backend/limits"
	"github.com/baton-app/baton/backend/session"
)

// The model the children talk to, as they report it: a CLI that retries
// because the model cannot be reached (system/api_retry with no HTTP
// answer, or a 5xx other than 529) or gives up on it (an error result whose
// api_error is connection_failed, a 5xx, a timeout) takes the host's link
// down within seconds (session.LinkState.Model: the host's calls still
// work). The link is up again when a model answers any session; while no
// CLI retries any more, the host checks the model itself every ProbeEvery
// (ModelProber, when the launcher has one; else it lets the sessions try
// again), so the run goes on once the model is back. The loss's Since is
// kept until a model answers, so a run's bound counts from the first sign
// of the outage however often the link comes and goes.

// ModelProber is a Launcher that can check, from the CLI's machine,
// whether the model's API answers the CLI started with env. ErrCannotProbe
// says it cannot tell (the sessions then try again).
type ModelProber interface {
	ProbeModel(ctx context.Context, env []string) error
}

// ErrCannotProbe is what a ModelProber returns for a model it cannot check.
var ErrCannotProbe = errors.New("the model cannot be checked from here")

// modelLink is the host's link: whether the children can reach the model.
type modelLink struct {
	mu       sync.Mutex
	down     bool
	since    time.Time // when the model last stopped answering (zero: it answers)
	reason   string
	changed  chan struct{}
	retrying map[session.ID]bool // sessions whose CLI retries an outage now
	gaveUp   time.Time           // when a CLI last gave up on the model
	probing  bool
	stop     chan struct{}
	wg       sync.WaitGroup
	every    time.Duration
	probe    func(ctx context.Context) error // nil: let the sessions try
	log      interface{ Debug(string, ...any) }
}

func newModelLink(every time.Duration, probe func(ctx context.Context) error, log interface{ Debug(string, ...any) }) *modelLink {
	return &modelLink{changed: make(chan struct{}), retrying: map[session.ID]bool{}, stop: make(chan struct{}),
		every: every, probe: probe, log: log}
}

// state is the link now.
func (l *modelLink) state() session.LinkState {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := session.LinkState{Up: !l.down, Changed: l.changed}
	if l.down {
		st.Model, st.Reason, st.Since = true, l.reason, l.since
	}
	return st
}

// setLocked changes the link and wakes those who wait for a change.
func (l *modelLink) setLocked(down bool, reason string) {
	if l.down == down && (!down || l.reason == reason) {
		return
	}
	l.down, l.reason = down, reason
	close(l.changed)
	l.changed = make(chan struct{})
}

// retried: session id's CLI retries a request (r) to the model.
func (l *modelLink) retried(id session.ID, r limits.Retry) {
	if !r.Outage() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.retrying[id] = true
	if l.since.IsZero() {
		l.since = time.Now()
	}
	reason := "the model cannot be reached; Claude Code retries"
	if a := r.Attempts(); a != "" {
		reason += " (" + a + ")"
	}
	l.setLocked(true, reason)
}

// answered: the model answered session id.
func (l *modelLink) answered(id session.ID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.retrying, id)
	l.since = time.Time{}
	l.setLocked(false, "")
}

// ended: session id's turn ended (o: because the model could not be
// reached) or its CLI exited; it retries no more.
func (l *modelLink) ended(id session.ID, o *limits.Outage) {
	l.mu.Lock()
	defer l.mu.Unlock()
	was := l.retrying[id]
	delete(l.retrying, id)
	if o == nil && !was {
		return
	}
	if o != nil {
		if l.since.IsZero() {
			l.since = time.Now()
		}
		l.gaveUp = time.Now()
		l.setLocked(true, "the model cannot be reached: "+o.Message)
	}
	if l.down && len(l.retrying) == 0 && !l.probing {
		l.probing = true
		l.wg.Go(l.watch)
	}
}

// watch checks the model while the link is down and no CLI retries: up
// when the probe reaches it, or (without a probe) once ProbeEvery passed
// since the last CLI gave up, so that the sessions try again.
func (l *modelLink) watch() {
	t := time.NewTicker(l.every)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		l.mu.Lock()
		if !l.down || len(l.retrying) > 0 {
			l.probing = false
			l.mu.Unlock()
			return
		}
		probe := l.probe
		l.mu.Unlock()
		ok := probe == nil
		if probe != nil {
			ctx, cancel := context.WithTimeout(context.Background(), max(l.every, 5*time.Second))
			err := probe(ctx)
			cancel()
			ok = err == nil || errors.Is(err, ErrCannotProbe)
			if !ok {
				l.log.Debug("the model does not answer yet", "err", err)
			}
		}
		if !ok {
			continue
		}
		l.mu.Lock()
		if l.down && len(l.retrying) == 0 {
			// The loss's since stays: only an answer of the model ends it.
			l.setLocked(false, "")
		}
		l.probing = false
		l.mu.Unlock()
		return
	}
}

// close stops the watch.
func (l *modelLink) close() {
	l.mu.Lock()
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	l.mu.Unlock()
	l.wg.Wait()
}

// Link implements session.HostLink: down while the model the sessions
// talk to cannot be reached (LinkState.Model; the host's calls go on).
func (h *Host) Link() session.LinkState { return h.model.state() }

// modelEvent tells the link what one line of a child says about the model.
func (h *Host) modelEvent(id session.ID, line []byte, typ string) {
	switch typ {
	case "system":
		if r, ok := limits.DetectRetry(line); ok {
			h.model.retried(id, r)
		}
	case "assistant":
		if !strings.Contains(string(line), `"is_api_error_message":true`) {
			h.model.answered(id)
		}
	case "result":
		if o, ok := limits.DetectOutage(line); ok {
			h.model.ended(id, &o)
		} else {
			h.model.ended(id, nil)
		}
	}
}

// ProbeModel implements ModelProber: a GET of the models list at the
// model's address in env (ANTHROPIC_BASE_URL, else the Anthropic API), through
// the proxy the environment names. Any answer but a 5xx counts: the API is
// reached (a missing key answers 401). A CLI that talks to Bedrock or
// Vertex is not probed (an error): its sessions try again instead.
func (Local) ProbeModel(ctx context.Context, env []string) error {
	base := "https://api.anthropic.com"
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == "ANTHROPIC_BASE_URL" && v != "":
			base = v
		case (k == "CLAUDE_CODE_USE_BEDROCK" || k == "CLAUDE_CODE_USE_VERTEX") && v != "" && v != "0":
			return fmt.Errorf("a cloud provider's model (%s): %w", k, ErrCannotProbe)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+"/v1/models", nil)
	if err != nil {
		return err
	}
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	if resp.StatusCode >= 500 {
		return fmt.Errorf("the model's API answers %s", resp.Status)
	}
	return nil
}
