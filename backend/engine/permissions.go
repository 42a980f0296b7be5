package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"

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

// Who decided a permission prompt.
const (
	DecidedByUser = "user"
	DecidedByRule = "rule"
	DecidedByMode = "mode"
)

// gate holds the rules a run answers prompts by: the user's (asked each
// time, so a changed setting counts), the template's (the run's copy), and
// the run's own (given when it was created or added by "Allow for this
// run", stored as its permission rules).
type gate struct {
	user     func() permrules.Lists
	template permrules.Lists
	run      []store.PermissionRule
	home     string
	log      *slog.Logger
	// answered holds the requests answered by a rule, so a host that still
	// lists one for a moment does not get a second answer.
	answered map[string]bool
	// calls follows each session's tool calls for the log (byMode).
	calls map[session.ID]*callLog
}

// callLog is what the log knows of one session's tool calls: the prompts
// it showed (request id → key) and its calls not yet finished.
type callLog struct {
	prompted map[string]string
	open     map[string]transcript.ToolCall
	// failed are calls that ended in an error and asked nothing: the
	// turn's result says whether the mode denied them.
	failed map[string]transcript.ToolCall
}

// session is the call log of session id.
func (g *gate) session(id session.ID) *callLog {
	l := g.calls[id]
	if l == nil {
		l = &callLog{prompted: map[string]string{}, open: map[string]transcript.ToolCall{}, failed: map[string]transcript.ToolCall{}}
		g.calls[id] = l
	}
	return l
}

// prompted notes that session id showed the prompt req (answered by
// anyone), so its call is not counted as the mode's.
func (g *gate) prompted(id session.ID, req session.PermissionRequest) {
	if req.RequestID != "" && req.ToolName != "AskUserQuestion" {
		g.session(id).prompted[req.RequestID] = permrules.Key(req.ToolName, req.Input)
	}
}

// unprompted says whether call of session id ran without a prompt; a
// prompt it matches is used up.
func (l *callLog) unprompted(call transcript.ToolCall) bool {
	key := permrules.Key(call.Name, call.Raw)
	for req, k := range l.prompted {
		if k == key {
			delete(l.prompted, req)
			return false
		}
	}
	return true
}

func newGate(e *Engine, tmpl permrules.Lists, log *slog.Logger) *gate {
	home := e.home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return &gate{user: e.userRules, template: tmpl, home: home, log: log, answered: map[string]bool{}, calls: map[session.ID]*callLog{}}
}

// rules is the rule set in force now. A list that does not parse (checked
// when it was saved) is left out with a warning.
func (g *gate) rules() permrules.Set {
	var s permrules.Set
	add := func(l permrules.Lists, source string) {
		if err := s.Add(l, source); err != nil {
			g.log.Warn("permission rules left out", "err", err)
		}
	}
	if g.user != nil {
		add(g.user(), "settings")
	}
	add(g.template, "template")
	var run permrules.Lists
	for _, r := range g.run {
		if r.Deny {
			run.Deny = append(run.Deny, r.Rule)
		} else {
			run.Allow = append(run.Allow, r.Rule)
		}
	}
	add(run, "run")
	return s
}

// call is the permrules form of request req of a session working in root.
func (g *gate) call(req session.PermissionRequest, root string) permrules.Call {
	return permrules.Call{Tool: req.ToolName, Input: req.Input, Root: root, Home: g.home}
}

// decide says what the rules do with req (a question is always the user's).
func (g *gate) decide(req session.PermissionRequest, root string) permrules.Decision {
	if req.ToolName == "AskUserQuestion" {
		return permrules.Decision{}
	}
	return g.rules().Decide(g.call(req, root))
}

// folder is where worker ws (nil: the main session) works.
func (r *runner) folder(ws *workerState) string {
	if ws == nil {
		return r.run.Cwd
	}
	return r.prompts.Folder(ws.w.TaskID)
}

// byRules answers the requests of pending (of worker ws; nil: the main
// session) that the run's rules cover and returns the others, with the
// change that logs the answers.
func (r *runner) byRules(ctx context.Context, ws *workerState, pending []session.PermissionRequest) ([]session.PermissionRequest, change) {
	var (
		left []session.PermissionRequest
		c    change
	)
	b := r.e.host.Browser()
	for _, req := range pending {
		if r.gate.answered[req.RequestID] {
			continue
		}
		d := r.gate.decide(req, r.folder(ws))
		if d.Verdict == permrules.Ask || b == nil {
			left = append(left, req)
			continue
		}
		answer := session.AllowOnce
		if d.Verdict == permrules.Deny {
			answer = session.Deny
		}
		if err := b.RespondPermission(ctx, req.RequestID, answer, nil); err != nil {
			r.log.Warn("answer a permission prompt by rule", "rule", d.Rule, "err", err)
			left = append(left, req)
			continue
		}
		r.gate.answered[req.RequestID] = true
		c = c.and(r.logged(ws, req, d.Verdict.String(), DecidedByRule, d.Rule, d.Source))
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

// mode is the permission mode the run's sessions run in.
func (r *runner) mode() string {
	if m := r.tmpl.Config.PermissionMode; m != "" {
		return m
	}
	return session.ModeDefault
}

// byMode is the change that logs the tool calls of worker ws (nil: the
// main session) that d shows finished without a prompt: the host let them
// run (or denied them) by the session's permission mode and its own
// settings. A call is logged when its result comes; one that ended in an
// error waits for the turn's result, which lists the calls denied.
func (r *runner) byMode(ws *workerState, d transcript.Digest) change {
	id := session.ID(r.run.MainSessionID)
	if ws != nil {
		id = session.ID(ws.w.SessionID)
	}
	if len(d.Calls)+len(d.Done) == 0 && !d.Result {
		return change{}
	}
	l := r.gate.session(id)
	for _, call := range d.Calls {
		if call.Name != "AskUserQuestion" {
			l.open[call.ID] = call
		}
	}
	var (
		ran    []transcript.ToolCall
		denied []transcript.ToolCall
	)
	for _, cid := range d.Done {
		call, ok := l.open[cid]
		delete(l.open, cid)
		if !ok || !l.unprompted(call) {
			continue
		}
		if slices.Contains(d.Failed, cid) {
			l.failed[cid] = call
		} else {
			ran = append(ran, call)
		}
	}
	if d.Result {
		for cid, call := range l.failed {
			if slices.Contains(d.Denied, cid) {
				denied = append(denied, call)
			} else {
				ran = append(ran, call)
			}
		}
		clear(l.failed)
		clear(l.open)
	}
	if len(ran)+len(denied) == 0 {
		return change{}
	}
	var c change
	mode := r.mode()
	for i, calls := range [][]transcript.ToolCall{ran, denied} {
		for _, call := range calls {
			row := r.row(ws, call.Name, call.Raw, "allow", DecidedByMode, "", mode)
			if i == 1 {
				row.Decision = "deny"
			}
			c.Decisions = append(c.Decisions, row)
		}
	}
	who := "the main session"
	if ws != nil {
		who = ws.w.TaskID
	}
	msg := fmt.Sprintf("%s: %d tool call(s) decided without a prompt by the permission mode %s", who, len(c.Decisions), mode)
	return c.with(nil, event{name: EventPermissionDecided, p: Payload{TaskID: c.Decisions[0].TaskID, Message: msg}})
}

// row is a row of the permission log for a call of worker ws (nil: the
// main session).
func (r *runner) row(ws *workerState, tool string, input json.RawMessage, decision, by, rule, source string) store.PermissionDecision {
	d := store.PermissionDecision{At: r.e.now(), Tool: tool, Summary: permrules.Summary(tool, input),
		Decision: decision, DecidedBy: by, Rule: rule, Source: source}
	if ws != nil {
		d.TaskID = ws.w.TaskID
	}
	return d
}

// logged is the change that adds an answer to req of worker ws (nil: the
// main session) to the permission log, with its event.
func (r *runner) logged(ws *workerState, req session.PermissionRequest, decision, by, rule, source string) change {
	d := r.row(ws, req.ToolName, req.Input, decision, by, rule, source)
	who := "the main session"
	id := session.ID(r.run.MainSessionID)
	if ws != nil {
		who, id = ws.w.TaskID, session.ID(ws.w.SessionID)
	}
	r.gate.prompted(id, req)
	msg := fmt.Sprintf("%s: %s %s %s", who, decision, d.Tool, d.Summary)
	if rule != "" {
		msg += " by the rule " + rule
	}
	ev := event{name: EventPermissionDecided, p: Payload{TaskID: d.TaskID, Message: strings.TrimSpace(msg)}}
	return change{Change: store.Change{Decisions: []store.PermissionDecision{d}}, events: []event{ev}}
}

// describe completes the prompt worker ws waits on with its summary, its
// key and the rules Baton suggests for it.
func (r *runner) describe(ws *workerState) {
	p := ws.w.Waiting
	if p == nil {
		return
	}
	r.gate.prompted(session.ID(ws.w.SessionID), session.PermissionRequest{RequestID: p.RequestID, ToolName: p.ToolName, Input: p.Input})
	p.Summary = permrules.Summary(p.ToolName, p.Input)
	p.Key = permrules.Key(p.ToolName, p.Input)
	p.Suggestions = nil
	if p.ToolName == "AskUserQuestion" {
		return
	}
	for _, s := range permrules.Suggest(r.gate.call(session.PermissionRequest{ToolName: p.ToolName, Input: p.Input}, r.folder(ws))) {
		p.Suggestions = append(p.Suggestions, store.Suggestion(s))
	}
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
		r.gate.prompted(session.ID(r.run.MainSessionID), req)
	}
	_, c := r.byRules(ctx, nil, info.Pending)
	if len(c.Decisions) == 0 {
		return nil
	}
	return r.apply(ctx, c)
}

// decisionWord is how the log says a user's answer.
func decisionWord(d session.PermissionDecision) string {
	if d == session.Deny {
		return "deny"
	}
	return "allow"
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
		return r.apply(ctx, r.logged(nil, *req, decisionWord(decision), DecidedByUser, "", ""))
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
		pr := store.PermissionRule{Rule: parsed.String(), AddedAt: r.e.now()}
		added := false
		for _, have := range r.gate.run {
			added = added || have.Rule == pr.Rule && !have.Deny
		}
		if !added {
			r.gate.run = append(r.gate.run, pr)
			if err := r.apply(ctx, change{Change: store.Change{Rules: []store.PermissionRule{pr}}}.
				with(nil, event{name: EventPermissionDecided, p: Payload{Message: "allowed for this run: " + pr.Rule}})); err != nil {
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
		left, c := r.byRules(ctx, ws, []session.PermissionRequest{{RequestID: p.RequestID, ToolName: p.ToolName, Input: p.Input}})
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
