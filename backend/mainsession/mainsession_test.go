package mainsession

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/hostguard"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/template"
)

// host has the sessions in has; a start records its options and fails
// with startErr (after making the session when makes).
type host struct {
	session.Host
	has      map[session.ID]bool
	started  []session.StartOptions
	startErr error
	makes    bool
}

func (h *host) Start(_ context.Context, opts session.StartOptions) (session.ID, error) {
	h.started = append(h.started, opts)
	if h.startErr != nil {
		if h.makes {
			h.has[opts.ID] = true
		}
		return "", h.startErr
	}
	h.has[opts.ID] = true
	return opts.ID, nil
}

func (h *host) Session(_ context.Context, id session.ID) (session.Info, error) {
	if !h.has[id] {
		return session.Info{}, session.ErrNoSession
	}
	return session.Info{ID: id}, nil
}

func attached(h *host) *Session {
	m := &Session{}
	m.Attach(hostguard.New(h, time.Minute, time.Minute), slog.Default())
	return m
}

// A main session the host no longer has is gone: nothing waits for its
// answer, the next prompt starts a new one under the same id that first
// reads the run so far, and its usage counts on top of the old one's.
func TestALostMainSessionStartsAgainReadingTheRunSoFar(t *testing.T) {
	ctx := context.Background()
	h := &host{has: map[session.ID]bool{}}
	m := attached(h)
	if !m.NeedsStart(ctx, "") {
		t.Fatal("a run without a main session does not start one")
	}
	if _, err := m.Start(ctx, session.StartOptions{ID: "main-1", Message: "Analyse."}, "so far"); err != nil {
		t.Fatal(err)
	}
	m.Sent(session.Cursor{Index: 1}, protocol.PhaseAnalysis, time.Unix(100, 0))
	m.InputTokens, m.CostUSD = 1200, 0.5
	if m.NeedsStart(ctx, "main-1") || m.Lost(ctx, "main-1") {
		t.Fatal("a main session the host has was taken for lost")
	}

	delete(h.has, "main-1")
	if !m.Lost(ctx, "main-1") || !m.Gone() || m.Asked != "" || !m.NeedsStart(ctx, "main-1") {
		t.Fatalf("the host lost the main session: %+v", m)
	}
	if _, err := m.Start(ctx, session.StartOptions{ID: "main-1", Message: "Plan the tasks."}, "The run so far: two tasks completed.\n\n"); err != nil {
		t.Fatal(err)
	}
	last := h.started[len(h.started)-1]
	if !strings.HasPrefix(last.Message, "The run so far: two tasks completed.") || !strings.HasSuffix(last.Message, "Plan the tasks.") {
		t.Fatalf("the new main session's first message: %q", last.Message)
	}
	if m.Gone() || m.InputTokens != 1200 || m.CostUSD != 0.5 || m.At.Index != 0 {
		t.Fatalf("after the new start: %+v", m)
	}
}

// A start that failed although the host made the session counts as
// started; one that made nothing is an error.
func TestAStartThatFailedAfterMakingTheSessionCounts(t *testing.T) {
	ctx := context.Background()
	h := &host{has: map[session.ID]bool{}, startErr: errors.New("the reply was cut"), makes: true}
	if id, err := attached(h).Start(ctx, session.StartOptions{ID: "main-2", Message: "Analyse."}, ""); err != nil || id != "main-2" {
		t.Fatalf("start: %q %v", id, err)
	}
	h.makes = false
	if _, err := attached(h).Start(ctx, session.StartOptions{ID: "main-3", Message: "Analyse."}, ""); err == nil {
		t.Fatal("a start that made nothing counted as started")
	}
}

// The answer to a phase's prompt is late after the phase's timeout; a
// refresh (a resume, a host back) restarts its clock; Again keeps what was
// asked and counts the re-prompt.
func TestOverdueAndReprompts(t *testing.T) {
	var p template.Phases
	p.Analysis.Timeout = 60
	m := &Session{}
	at := time.Unix(1000, 0)
	m.Sent(session.Cursor{Index: 3}, protocol.PhaseAnalysis, at)
	if secs, late := m.Overdue(p, at.Add(59*time.Second)); secs != 60 || late {
		t.Fatalf("59 s in: %d %v", secs, late)
	}
	if _, late := m.Overdue(p, at.Add(61*time.Second)); !late {
		t.Fatal("61 s in, the answer is not late")
	}
	m.Refresh(at.Add(61 * time.Second))
	if _, late := m.Overdue(p, at.Add(90*time.Second)); late {
		t.Fatal("the clock did not restart on a refresh")
	}
	m.Again(session.Cursor{Index: 5})
	if m.Asked != protocol.PhaseAnalysis || m.Reprompts != 1 || m.At.Index != 5 {
		t.Fatalf("after a re-prompt: %+v", m)
	}
	m.Answered()
	if _, late := m.Overdue(p, at.Add(time.Hour)); late {
		t.Fatal("an answered prompt is late")
	}
}
