package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/permgate"
	"github.com/baton-app/baton/backend/permrules"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/transcript"
)

// Permission prompts of a run: those its rules cover are answered here at
// once, for workers and the main session alike and on every host, before
// anything shows them to the user; the user's answers come through
// RespondPermission, RespondMainPermission and AllowForRun. Every answer is
// a row of the run's permission log, stored through the ledger.

// Who decided a permission prompt (permgate).
const (
	DecidedByUser = permgate.DecidedByUser
	DecidedByRule = permgate.DecidedByRule
	DecidedByMode = permgate.DecidedByMode
)

func newGate(e *Engine, tmpl permrules.Lists, log *slog.Logger) *permgate.Gate {
	home := e.home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return permgate.New(e.userRules, tmpl, home, log)
}

// byRules answers the requests of pending (of worker ws; nil: the main
// session) working in root that the run's rules cover and returns the others, with the
// change that logs the answers.
func (r *runner) byRules(ctx context.Context, ws *workerState, root string, pending []session.PermissionRequest) ([]session.PermissionRequest, change) {
	left, done := r.gate.Answer(ctx, r.e.host.Browser(), pending, root)
	var c change
	for _, a := range done {
		c = c.and(logged(r.gate, r.run.MainSessionID, ws, a.Req, permgate.Row(r.e.now(), "", a.Req.ToolName, a.Req.Input, a.Verdict.String(), DecidedByRule, a.Rule, a.Source)))
	}
	if len(c.Decisions) > 0 {
		id := r.run.MainSessionID
		if ws != nil {
			id = ws.w.SessionID
		}
		r.follow.Mark(session.ID(id), session.NoticePermission)
	}
	return left, c
}

// party is whose prompt or call it is: worker ws's, or (nil) the main
// session mainID's: its session, who in a sentence, its task.
func party(mainID string, ws *workerState) (session.ID, string, string) {
	if ws == nil {
		return session.ID(mainID), "the main session", ""
	}
	return session.ID(ws.w.SessionID), ws.w.TaskID, ws.w.TaskID
}

// byMode is the change that logs the tool calls of worker ws (nil: the
// main session) that d shows the permission mode decided (permgate.ByMode).
func byMode(g *permgate.Gate, mainID, mode string, ws *workerState, d transcript.Digest, at time.Time) change {
	id, who, task := party(mainID, ws)
	rows := g.ByMode(id, task, d, permgate.Mode(mode), at)
	if len(rows) == 0 {
		return change{}
	}
	msg := fmt.Sprintf("%s: %d tool call(s) decided without a prompt by the permission mode %s", who, len(rows), permgate.Mode(mode))
	return change{Change: store.Change{Decisions: rows}}.with(nil, event{Name: EventPermissionDecided, P: Payload{TaskID: task, Message: msg}})
}

// logged is the change that adds the answer d (its row but the task) to
// req of worker ws (nil: the main session mainID) to the log of g, with its
// event.
func logged(g *permgate.Gate, mainID string, ws *workerState, req session.PermissionRequest, d store.PermissionDecision) change {
	id, who, task := party(mainID, ws)
	d.TaskID = task
	g.Prompted(id, req)
	msg := fmt.Sprintf("%s: %s %s %s", who, d.Decision, d.Tool, d.Summary)
	if d.Rule != "" {
		msg += " by the rule " + d.Rule
	}
	ev := event{Name: EventPermissionDecided, P: Payload{TaskID: task, Message: strings.TrimSpace(msg)}}
	return change{Change: store.Change{Decisions: []store.PermissionDecision{d}}, events: []event{ev}}
}

// checkMainPermissions answers the main session's prompts the rules cover.
func (r *runner) checkMainPermissions(ctx context.Context) error {
	if r.run.MainSessionID == "" {
		return nil
	}
	info, err := r.e.host.Session(ctx, session.ID(r.run.MainSessionID))
	if err != nil || len(info.Pending) == 0 {
		return nil
	}
	for _, req := range info.Pending {
		r.gate.Prompted(session.ID(r.run.MainSessionID), req)
	}
	_, c := r.byRules(ctx, nil, r.run.Cwd, info.Pending)
	if len(c.Decisions) == 0 {
		return nil
	}
	return r.apply(ctx, c)
}

// RespondMainPermission answers the permission request requestID of run
// runID's main session, as the user decided, and logs it.
func (e *Engine) RespondMainPermission(ctx context.Context, runID, requestID string, decision session.PermissionDecision, updatedInput json.RawMessage) error {
	return e.do(ctx, runID, func(ctx context.Context, r *runner) error {
		if !decision.Valid() {
			return fmt.Errorf("permission decision %q is not once, always or deny: %w", decision, ErrBadRequest)
		}
		b := r.e.host.Browser()
		if b == nil || r.run.MainSessionID == "" {
			return fmt.Errorf("this session host cannot answer permission requests: %w", ErrBadRequest)
		}
		info, err := r.e.host.Session(ctx, session.ID(r.run.MainSessionID))
		if err != nil {
			return fmt.Errorf("read the main session: %w", err)
		}
		var req *session.PermissionRequest
		for i := range info.Pending {
			if info.Pending[i].RequestID == requestID {
				req = &info.Pending[i]
			}
		}
		if req == nil {
			return fmt.Errorf("the main session is not waiting for %s: %w", requestID, ErrBadRequest)
		}
		if err := b.RespondPermission(ctx, requestID, decision, updatedInput); err != nil {
			return fmt.Errorf("answer the permission request of the main session: %w", err)
		}
		r.follow.Mark(session.ID(r.run.MainSessionID), session.NoticePermission)
		return r.apply(ctx, logged(r.gate, r.run.MainSessionID, nil, *req, permgate.User(r.e.now(), *req, decision)))
	})
}

// AllowForRun adds rule as an allow rule of run runID and answers at once
// every pending prompt of the run it covers (the workers' and the main
// session's); later prompts it covers are answered as they come. A rule
// that does not parse is an ErrBadRequest naming it.
func (e *Engine) AllowForRun(ctx context.Context, runID, rule string) error {
	parsed, err := permrules.Parse(rule)
	if err != nil {
		return fmt.Errorf("%w: %w", err, ErrBadRequest)
	}
	return e.do(ctx, runID, func(ctx context.Context, r *runner) error {
		if pr, added := r.gate.Allow(parsed.String(), r.e.now()); added {
			if err := r.apply(ctx, change{Change: store.Change{Rules: []store.PermissionRule{pr}}}.
				with(nil, event{Name: EventPermissionDecided, P: Payload{Message: "allowed for this run: " + pr.Rule}})); err != nil {
				return err
			}
		}
		return r.answerPending(ctx)
	})
}

// answerPending answers what the rules now cover of the prompts the run's
// workers and main session wait on.
func (r *runner) answerPending(ctx context.Context) error {
	var all change
	for _, ws := range r.plan.inOrder() {
		if ws.w.Waiting == nil {
			continue
		}
		p := ws.w.Waiting
		left, c := r.byRules(ctx, ws, r.prompts.Folder(ws.w.TaskID), []session.PermissionRequest{{RequestID: p.RequestID, ToolName: p.ToolName, Input: p.Input}})
		if len(left) == 0 && len(c.Decisions) > 0 {
			answer := session.AllowOnce
			if c.Decisions[0].Decision == "deny" {
				answer = session.Deny
			}
			all = all.and(c).and(ws.permitted(answer, r.e.now()))
		}
	}
	if len(all.Decisions) > 0 {
		if err := r.apply(ctx, all); err != nil {
			return err
		}
	}
	return r.checkMainPermissions(ctx)
}
