// Package mainsession is a run's main session as the run follows it: where
// its transcript is read, which answer its last prompt asked for and when,
// and whether the host still has it. It decides and says; the engine
// stores it with the run and tells.
package mainsession

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/hostguard"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/transcript"
)

// Session is the run's main session: where its transcript is read,
// which answer its last prompt asked for, and whether the host still has
// it. Its exported fields are stored with the run (runState.Main), so a
// restart reads on from the same place and asks nothing twice.
//
// A host that comes back without the main session (a fresh host, a session
// deleted meanwhile) does not end the run: the main session is then gone,
// and the next prompt starts a new one, under the same id, that first reads
// what the run did so far, so completed work is always aggregated.
type Session struct {
	transcript.Cursor
	// Asked is the protocol phase the last prompt asked for ("" none).
	Asked     protocol.Phase `json:"asked,omitempty"`
	Reprompts int            `json:"reprompts"`
	AskedAt   time.Time      `json:"askedAt"`

	// Action is the session's latest action and Tool the call that runs
	// now (nil: none), sent coalesced as orchestrator:progress when
	// Progressed.
	Action     string             `json:"-"`
	Tool       *store.RunningTool `json:"-"`
	Progressed bool               `json:"-"`
	// gone: the host no longer has the session; the next prompt starts a
	// new one.
	gone bool

	host *hostguard.Host
	log  *slog.Logger
}

// Attach gives the session the host it runs on and the run's log.
func (m *Session) Attach(host *hostguard.Host, log *slog.Logger) { m.host, m.log = host, log }

// Gone reports whether the host no longer has the session: the next
// prompt starts a new one.
func (m *Session) Gone() bool { return m.gone }

// NeedsStart reports whether the next prompt starts the session id (""
// when none was chosen yet) rather than being sent to it.
func (m *Session) NeedsStart(ctx context.Context, id string) bool {
	if id == "" || m.gone {
		return true
	}
	if m.Asked != "" || m.At.Index != 0 {
		return false
	}
	// An id was stored but nothing was asked yet: the process may have
	// stopped between storing the id and starting the session. Start it
	// only when the host does not have it.
	_, err := m.host.Session(ctx, session.ID(id))
	return errors.Is(err, session.ErrNoSession)
}

// Start starts the session with opts (its chosen id in opts.ID) and
// returns its id. A start that failed although the host made the session
// counts as started. A session that replaces a gone one reads the run so
// far (soFar) first and counts its usage on top of the old one's.
func (m *Session) Start(ctx context.Context, opts session.StartOptions, soFar string) (session.ID, error) {
	if m.gone {
		opts.Message = soFar + opts.Message
		m.Cursor = transcript.Cursor{InputTokens: m.InputTokens, OutputTokens: m.OutputTokens, CostUSD: m.CostUSD,
			PricedUSD: m.PricedUSD, ShownUSD: m.ShownUSD}
	}
	id, err := m.host.Start(ctx, opts)
	if err != nil {
		if _, serr := m.host.Session(ctx, opts.ID); serr != nil {
			return "", err
		}
		m.log.Info("the main session exists although its start failed", "err", err)
		id = opts.ID
	}
	m.gone = false
	return id, nil
}

// Sent notes that the prompt for phase want was sent at now; its answer
// starts at cursor at.
func (m *Session) Sent(at session.Cursor, want protocol.Phase, now time.Time) {
	m.Reset(at)
	m.Asked = want
	m.Reprompts = 0
	m.AskedAt = now
}

// Again notes the re-prompt for the same answer, sent at cursor at.
func (m *Session) Again(at session.Cursor) {
	asked, n := m.Asked, m.Reprompts+1
	m.Reset(at)
	m.Asked, m.Reprompts = asked, n
}

// WentOn notes the message to go on, sent at cursor at and at now;
// reprompt counts it as a re-prompt.
func (m *Session) WentOn(at session.Cursor, reprompt bool, now time.Time) {
	asked, n := m.Asked, m.Reprompts
	if reprompt {
		n++
	}
	m.Reset(at)
	m.Asked, m.Reprompts, m.AskedAt = asked, n, now
}

// RetryNote says in the run's message (msg now) that the main session's
// CLI retries a request to the model (event: the event's message), or no
// longer does (say ""); changed is false when nothing changed.
func (m *Session) RetryNote(msg string) (event, say string, changed bool) {
	if rt := m.Retrying(); rt != nil {
		text := "the main session is " + rt.Text()
		if msg == text {
			return "", "", false
		}
		return rt.Text(), text, true
	}
	if strings.HasPrefix(msg, "the main session is waiting for the model") {
		return "", "", true
	}
	return "", "", false
}

// Answered notes that the answer came (or nothing waits for one).
func (m *Session) Answered() { m.Asked = "" }

// Lost marks the session id gone when the host says it does not have it;
// the phase's prompt is asked again, of a new session, by the next step.
// It reports whether the session is gone.
func (m *Session) Lost(ctx context.Context, id string) bool {
	if m.gone || id == "" {
		return false
	}
	if _, err := m.host.Session(ctx, session.ID(id)); !errors.Is(err, session.ErrNoSession) {
		return false
	}
	m.log.Warn("the host no longer has the main session; the next prompt starts a new one", "session", id)
	m.gone = true
	m.Asked = ""
	return true
}

// Leave gives the session up: the run moved to another host, which does not
// have it. The next prompt starts a new one that reads the run so far.
func (m *Session) Leave() {
	m.gone = true
	m.Asked = ""
}

// Restored takes the session up on a restore: when look, whether the host
// still has the session id of a run past its first prompt (lost), and what
// may answer the last prompt is read again from it.
func (m *Session) Restored(ctx context.Context, id string, look bool, now time.Time) {
	if look && (m.Asked != "" || m.At.Index != 0) {
		m.Lost(ctx, id)
	}
	if m.Asked != "" {
		m.Replay()
		m.AskedAt = now
	}
}

// Took notes what a read of the session said: its latest action goes out
// with the next progress.
func (m *Session) Took(d transcript.Digest) {
	if d.LastAction != "" || d.InputTokens > 0 {
		if d.LastAction != "" {
			m.Action = d.LastAction
		}
		m.Progressed = true
	}
	if t := m.Running(); !store.SameTool(t, m.Tool) {
		m.Tool = t
		m.Progressed = true
	}
}

// Hold keeps the session waiting for a limit: what it wrote up to the
// limit is read, and the continue message is answered after it.
func (m *Session) Hold() {
	asked, n := m.Asked, m.Reprompts
	m.Reset(m.At)
	m.Asked, m.Reprompts = asked, n
}

// Refresh restarts the answer's clock at now (a resume, a host that came
// back): the time in between is nobody's fault.
func (m *Session) Refresh(now time.Time) {
	if m.Asked != "" {
		m.AskedAt = now
	}
}

// Overdue reports how long the answer may take (seconds of the phase's
// timeout) and whether it is late at now.
func (m *Session) Overdue(p template.Phases, now time.Time) (int, bool) {
	var secs int
	switch m.Asked {
	case protocol.PhaseAnalysis:
		secs = p.Analysis.Timeout
	case protocol.PhaseTaskList:
		secs = p.TaskPlanning.Timeout
	case protocol.PhaseAggregation:
		secs = p.Aggregation.Timeout
	case protocol.PhaseVerification:
		secs = p.Verification.Timeout
	}
	if secs <= 0 || m.AskedAt.IsZero() {
		return secs, false
	}
	return secs, now.Sub(m.AskedAt) > template.Seconds(secs)
}
