// Package permgate is the permission gate of a run: the rules it answers
// prompts by (the user's, the template's and the run's own), what they
// decide of a prompt, the prompts already answered, the call log of each
// session that tells the calls the permission mode decided without a
// prompt, and the rows of the run's permission log. It decides; the engine
// answers the host and stores the rows.
package permgate

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"time"

	"github.com/baton-app/baton/backend/permrules"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/transcript"
)

// Who decided a permission prompt.
const (
	DecidedByUser = "user"
	DecidedByRule = "rule"
	DecidedByMode = "mode"
)

// question is the tool of a question to the user: never a rule's.
const question = "AskUserQuestion"

// Gate holds the rules a run answers prompts by: the user's (asked each
// time, so a changed setting counts), the template's (the run's copy), and
// the run's own (given when it was created or added by "Allow for this
// run", stored as its permission rules).
type Gate struct {
	user     func() permrules.Lists
	template permrules.Lists
	// Run are the run's own rules.
	Run  []store.PermissionRule
	home string
	log  *slog.Logger
	// answered holds the requests answered by a rule, so a host that still
	// lists one for a moment does not get a second answer.
	answered map[string]bool
	// calls follows each session's tool calls for the log (ByMode).
	calls map[session.ID]*callLog
}

// callLog is what the log knows of one session's tool calls: the prompts
// it showed (by request id) and its calls not yet finished.
type callLog struct {
	prompted map[string]prompt
	open     map[string]transcript.ToolCall
	// failed are calls that ended in an error and asked nothing: the
	// turn's result says whether the mode denied them.
	failed map[string]transcript.ToolCall
}

// New is the gate of a run: user gives the user's rules when asked, tmpl
// are the template's, home the user's home folder.
func New(user func() permrules.Lists, tmpl permrules.Lists, home string, log *slog.Logger) *Gate {
	return &Gate{user: user, template: tmpl, home: home, log: log, answered: map[string]bool{}, calls: map[session.ID]*callLog{}}
}

// prompt is a prompt a session showed: the key of its tool and input, and
// the id of its tool call when the host names it.
type prompt struct{ key, toolUse string }

// session is the call log of session id.
func (g *Gate) session(id session.ID) *callLog {
	l := g.calls[id]
	if l == nil {
		l = &callLog{prompted: map[string]prompt{}, open: map[string]transcript.ToolCall{}, failed: map[string]transcript.ToolCall{}}
		g.calls[id] = l
	}
	return l
}

// Prompted notes that session id showed the prompt req (answered by
// anyone), so its call is not counted as the mode's.
func (g *Gate) Prompted(id session.ID, req session.PermissionRequest) {
	if req.RequestID != "" && req.ToolName != question {
		g.session(id).prompted[req.RequestID] = prompt{key: permrules.Key(req.ToolName, req.Input), toolUse: req.ToolUseID}
	}
}

// unprompted says whether call of session id ran without a prompt; a
// prompt it matches is used up. A prompt that names its tool call (the
// CLI's) matches that call only; one that does not (Claude Desktop's)
// matches the first finished call with the same tool and input.
func (l *callLog) unprompted(call transcript.ToolCall) bool {
	key := permrules.Key(call.Name, call.Raw)
	byKey := ""
	for req, p := range l.prompted {
		if p.toolUse != "" && p.toolUse == call.ID {
			delete(l.prompted, req)
			return false
		}
		if p.toolUse == "" && p.key == key {
			byKey = req
		}
	}
	if byKey != "" {
		delete(l.prompted, byKey)
		return false
	}
	return true
}

// Responder answers a prompt on the host (session.Browser).
type Responder interface {
	RespondPermission(ctx context.Context, requestID string, decision session.PermissionDecision, updatedInput json.RawMessage) error
}

// Answered is a prompt a rule answered, and the rule's decision.
type Answered struct {
	Req session.PermissionRequest
	permrules.Decision
}

// Answer answers through b (nil: the host cannot) the requests of pending,
// of a session working in root, that the rules cover, each once, and
// returns the others and those it answered.
func (g *Gate) Answer(ctx context.Context, b Responder, pending []session.PermissionRequest, root string) (left []session.PermissionRequest, done []Answered) {
	for _, req := range pending {
		if g.answered[req.RequestID] {
			continue
		}
		d := g.Decide(req, root)
		if d.Verdict == permrules.Ask || b == nil {
			left = append(left, req)
			continue
		}
		answer := session.AllowOnce
		if d.Verdict == permrules.Deny {
			answer = session.Deny
		}
		if err := b.RespondPermission(ctx, req.RequestID, answer, nil); err != nil {
			g.log.Warn("answer a permission prompt by rule", "rule", d.Rule, "err", err)
			left = append(left, req)
			continue
		}
		g.answered[req.RequestID] = true
		done = append(done, Answered{req, d})
	}
	return left, done
}

// Allow adds rule (parsed already) to the run's allow rules at at, unless
// it is one already (false).
func (g *Gate) Allow(rule string, at time.Time) (store.PermissionRule, bool) {
	pr := store.PermissionRule{Rule: rule, AddedAt: at}
	for _, have := range g.Run {
		if have.Rule == rule && !have.Deny {
			return pr, false
		}
	}
	g.Run = append(g.Run, pr)
	return pr, true
}

// RunRules are a new run's own rules, given with it (checked already).
func RunRules(allow, deny []string, at time.Time) []store.PermissionRule {
	var rules []store.PermissionRule
	for i, list := range [][]string{allow, deny} {
		for _, s := range list {
			p, _ := permrules.Parse(s)
			rules = append(rules, store.PermissionRule{Rule: p.String(), Deny: i == 1, AddedAt: at})
		}
	}
	return rules
}

// rules is the rule set in force now. A list that does not parse (checked
// when it was saved) is left out with a warning.
func (g *Gate) rules() permrules.Set {
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
	for _, r := range g.Run {
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
func (g *Gate) call(req session.PermissionRequest, root string) permrules.Call {
	return permrules.Call{Tool: req.ToolName, Input: req.Input, Root: root, Home: g.home}
}

// Decide says what the rules do with req (a question is always the user's).
func (g *Gate) Decide(req session.PermissionRequest, root string) permrules.Decision {
	if req.ToolName == question {
		return permrules.Decision{}
	}
	return g.rules().Decide(g.call(req, root))
}

// Describe completes the prompt p that session id (working in root) waits
// on with its summary, its key and the rules Baton suggests for it.
func (g *Gate) Describe(id session.ID, p *store.Permission, root string) {
	g.Prompted(id, session.PermissionRequest{RequestID: p.RequestID, ToolName: p.ToolName, Input: p.Input, ToolUseID: p.ToolUseID})
	p.Summary = permrules.Summary(p.ToolName, p.Input)
	p.Key = permrules.Key(p.ToolName, p.Input)
	p.Suggestions = nil
	if p.ToolName == question {
		return
	}
	for _, s := range permrules.Suggest(g.call(session.PermissionRequest{ToolName: p.ToolName, Input: p.Input}, root)) {
		p.Suggestions = append(p.Suggestions, store.Suggestion(s))
	}
}

// Mode is the permission mode a template's sessions run in.
func Mode(configured string) string {
	if configured != "" {
		return configured
	}
	return session.ModeDefault
}

// ByMode returns the rows of the log for the tool calls of session id (of
// task; "": the main session) that d shows finished without a prompt: the
// host let them run (or denied them) by the session's permission mode and
// its own settings. A call is logged when its result comes; one that ended
// in an error waits for the turn's result, which lists the calls denied.
func (g *Gate) ByMode(id session.ID, task string, d transcript.Digest, mode string, at time.Time) []store.PermissionDecision {
	if len(d.Calls)+len(d.Done) == 0 && !d.Result {
		return nil
	}
	l := g.session(id)
	for _, call := range d.Calls {
		if call.Name != question {
			l.open[call.ID] = call
		}
	}
	var ran, denied []transcript.ToolCall
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
	var rows []store.PermissionDecision
	for i, calls := range [][]transcript.ToolCall{ran, denied} {
		for _, call := range calls {
			row := Row(at, task, call.Name, call.Raw, "allow", DecidedByMode, "", mode)
			if i == 1 {
				row.Decision = "deny"
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// Row is a row of the permission log for a call of task ("": the main
// session).
func Row(at time.Time, task, tool string, input json.RawMessage, decision, by, rule, source string) store.PermissionDecision {
	return store.PermissionDecision{At: at, TaskID: task, Tool: tool, Summary: permrules.Summary(tool, input),
		Decision: decision, DecidedBy: by, Rule: rule, Source: source}
}

// User is the row of the log for the user's answer d to req.
func User(at time.Time, req session.PermissionRequest, d session.PermissionDecision) store.PermissionDecision {
	word := "allow"
	if d == session.Deny {
		word = "deny"
	}
	return Row(at, "", req.ToolName, req.Input, word, DecidedByUser, "", "")
}
