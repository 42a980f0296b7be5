package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
)

// Limits are waits, not failures. A session whose host reports a rate limit
// (HTTP 429), an overload (529) or a subscription's usage limit ("You've hit
// your 5-hour limit · resets 4pm (UTC)") does not use up a retry or a
// re-prompt: the worker waits, keeping its session, until the reset time
// (else the retry-after the host gave, else an exponential backoff with
// jitter, capped at limitBackoffCap) and is then sent limitContinue in the
// same session, so nothing it did is done again. While the run waits nothing
// new starts, and the number of workers that run at once is halved at each
// limit and raised by one after each completed task, never above the
// template's maxWorkers.
//
// The waits are stored (the run's state and each worker's book), so a Baton
// restarted while a run waits goes on waiting and resumes at the same time.

// LimitKind is what kind of limit a session hit.
type LimitKind string

// The limits Baton recognises. LimitBudget is the run's own budget: a
// worker whose turn ended while the budget was used up waits for it.
const (
	LimitRate     LimitKind = "rate_limit"
	LimitOverload LimitKind = "overloaded"
	LimitUsage    LimitKind = "usage_limit"
	LimitBudget   LimitKind = "budget"
)

// Limit is what a transcript entry says about a limit the session hit.
type Limit struct {
	Kind LimitKind `json:"kind"`
	// Status is the HTTP status the host reported (429, 529), if any.
	Status int `json:"status,omitempty"`
	// Message is the host's own text, such as "You've hit your 5-hour limit
	// · resets 4pm (UTC)".
	Message string `json:"message,omitempty"`
	// ResetAt is the reset time the host gave as a timestamp.
	ResetAt time.Time `json:"resetAt,omitzero"`
	// RetryAfter is the wait the host asked for (retry-after).
	RetryAfter time.Duration `json:"retryAfter,omitempty"`
}

const (
	limitBackoffBase = 30 * time.Second
	limitBackoffCap  = 5 * time.Minute
)

// limitContinue is the message that resumes a session after a limit.
const limitContinue = "The limit that stopped you has reset. Continue the task exactly where you left off " +
	"(do not redo what is already done) and finish with your completion report."

// limitContinueMain resumes the main session after a limit.
const limitContinueMain = "The limit that stopped you has reset. Continue where you left off and give the answer you were asked for."

// limitJitter returns a factor in [0.8, 1.2) for the backoff (tests fix it).
var limitJitter = func() float64 { return 0.8 + 0.4*rand.Float64() }

// limitEntry is what detectLimit reads of an entry: the CLI's stream-json
// result and assistant error lines (snake case) and the same assistant
// lines in a Claude Code / Claude Desktop transcript (camel case).
type limitEntry struct {
	Type    string `json:"type"`
	IsError bool   `json:"is_error"`
	Result  string `json:"result"`
	Error   any    `json:"error"`

	APIErrorStatus  *int   `json:"api_error_status"`
	APIErrorStatus2 *int   `json:"apiErrorStatus"`
	APIError        string `json:"api_error"`
	APIError2       string `json:"apiError"`
	APIErrorType    string `json:"api_error_type"`
	APIErrorType2   string `json:"apiErrorType"`
	IsAPIError      bool   `json:"is_api_error_message"`
	IsAPIError2     bool   `json:"isApiErrorMessage"`

	APIErrorParams  *limitParams `json:"api_error_params"`
	APIErrorParams2 *limitParams `json:"apiErrorParams"`
	QuotaLimits     *struct {
		ResetsAt int64 `json:"resetsAt"`
	} `json:"quotaLimits"`
	RetryAfter  *float64 `json:"retry_after"`
	RetryAfter2 *float64 `json:"retryAfter"`

	Message *struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type limitParams struct {
	RateLimitInfo *struct {
		ResetsAt int64 `json:"resetsAt"`
	} `json:"rate_limit_info"`
}

var (
	// "resets 4pm (UTC)", "resets 4:30pm (Europe/Berlin)", "resets at 16:00",
	// "resets Nov 25, 4pm (UTC)", "resets Nov 25 at 4pm".
	resetRe = regexp.MustCompile(`(?i)\bresets?\s+(?:at\s+)?(?:([a-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(?:at\s+)?)?(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?(?:\s*\(([^)]+)\))?`)
	// Older CLIs: "Claude AI usage limit reached|1750000000".
	epochRe      = regexp.MustCompile(`(?i)limit reached\|(\d{9,11})`)
	retryAfterRe = regexp.MustCompile(`(?i)(?:retry[- ]after|try again in)[:\s]+(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|sec|secs|seconds?|m|min|mins|minutes?)?\b`)
	usageTextRe  = regexp.MustCompile(`(?i)(hit your .*limit|usage limit|limit reached|out of (extra )?usage)`)
)

// detectLimit reads one raw transcript entry for a limit: a result that
// ended the turn with an API error (the CLI host), or an assistant entry
// the CLI made of an API error (its stream and the transcripts Claude Code
// and Claude Desktop write). Text alone counts only on an entry marked as
// an error, so an agent that writes about rate limits is not stopped.
func detectLimit(raw json.RawMessage) (Limit, bool) {
	var e limitEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return Limit{}, false
	}
	status := 0
	for _, p := range []*int{e.APIErrorStatus, e.APIErrorStatus2} {
		if p != nil && *p != 0 {
			status = *p
		}
	}
	apiErr := first(e.APIError, e.APIError2)
	errType := first(e.APIErrorType, e.APIErrorType2)
	errField, _ := e.Error.(string)
	var text string
	switch e.Type {
	case "result":
		if !e.IsError {
			return Limit{}, false
		}
		text = e.Result
	case "assistant":
		if !e.IsAPIError && !e.IsAPIError2 && status == 0 && apiErr == "" && errField == "" {
			return Limit{}, false
		}
		if e.Message != nil {
			text = contentText(e.Message.Content)
		}
	default:
		return Limit{}, false
	}
	l := Limit{Status: status, Message: strings.TrimSpace(text)}
	switch {
	case apiErr == "usage_limit_reached" || epochRe.MatchString(text) ||
		(usageTextRe.MatchString(text) && resetRe.MatchString(text)):
		l.Kind = LimitUsage
	case status == 529 || errType == "overloaded_error" || errField == "overloaded" ||
		strings.Contains(strings.ToLower(text), "overloaded"):
		l.Kind = LimitOverload
	case status == 429 || errType == "rate_limit_error" || errField == "rate_limit" ||
		strings.Contains(text, "429") || strings.Contains(strings.ToLower(text), "rate limit"):
		l.Kind = LimitRate
	default:
		return Limit{}, false
	}
	var at int64
	for _, p := range []*limitParams{e.APIErrorParams, e.APIErrorParams2} {
		if p != nil && p.RateLimitInfo != nil && p.RateLimitInfo.ResetsAt > 0 {
			at = p.RateLimitInfo.ResetsAt
		}
	}
	if at == 0 && e.QuotaLimits != nil {
		at = e.QuotaLimits.ResetsAt
	}
	if m := epochRe.FindStringSubmatch(text); at == 0 && m != nil {
		at, _ = strconv.ParseInt(m[1], 10, 64)
	}
	if at > 0 {
		l.ResetAt = time.Unix(at, 0).UTC()
	}
	for _, p := range []*float64{e.RetryAfter, e.RetryAfter2} {
		if p != nil && *p > 0 {
			l.RetryAfter = time.Duration(*p * float64(time.Second))
		}
	}
	if m := retryAfterRe.FindStringSubmatch(text); l.RetryAfter == 0 && m != nil {
		n, _ := strconv.ParseFloat(m[1], 64)
		unit := time.Second
		switch u := strings.ToLower(m[2]); {
		case strings.HasPrefix(u, "ms"), strings.HasPrefix(u, "milli"):
			unit = time.Millisecond
		case strings.HasPrefix(u, "m"):
			unit = time.Minute
		}
		l.RetryAfter = time.Duration(n * float64(unit))
	}
	return l, true
}

func first(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// contentText is the text of a message's content (a string or blocks).
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, x := range blocks {
		if x.Type == "text" {
			b.WriteString(x.Text)
		}
	}
	return b.String()
}

// ParseResetTime reads the reset time of a limit message ("resets 4pm
// (UTC)", "resets 4:30pm (Europe/Berlin)", "resets Nov 25, 4pm"): the first
// such time after now, in the time zone named in parentheses (else now's).
func ParseResetTime(text string, now time.Time) (time.Time, bool) {
	m := resetRe.FindStringSubmatch(text)
	if m == nil {
		return time.Time{}, false
	}
	hour, _ := strconv.Atoi(m[3])
	minute := 0
	if m[4] != "" {
		minute, _ = strconv.Atoi(m[4])
	}
	switch ampm := strings.ToLower(strings.ReplaceAll(m[5], ".", "")); ampm {
	case "am":
		if hour == 12 {
			hour = 0
		}
	case "pm":
		if hour != 12 {
			hour += 12
		}
	}
	if hour > 23 || minute > 59 {
		return time.Time{}, false
	}
	loc := now.Location()
	if tz := strings.TrimSpace(m[6]); tz != "" {
		if l, err := time.LoadLocation(tz); err == nil {
			loc = l
		} else if l, ok := zoneAbbrev(tz); ok {
			loc = l
		}
	}
	local := now.In(loc)
	if m[1] != "" {
		mon, ok := monthOf(m[1])
		day, _ := strconv.Atoi(m[2])
		if !ok || day < 1 || day > 31 {
			return time.Time{}, false
		}
		t := time.Date(local.Year(), mon, day, hour, minute, 0, 0, loc)
		if t.Before(now.Add(-24 * time.Hour)) {
			t = t.AddDate(1, 0, 0)
		}
		return t, true
	}
	t := time.Date(local.Year(), local.Month(), local.Day(), hour, minute, 0, 0, loc)
	if !t.After(now) {
		t = t.AddDate(0, 0, 1)
	}
	return t, true
}

func monthOf(s string) (time.Month, bool) {
	s = strings.ToLower(s)
	for m := time.January; m <= time.December; m++ {
		if strings.HasPrefix(strings.ToLower(m.String()), s[:min(3, len(s))]) && len(s) >= 3 {
			return m, true
		}
	}
	return 0, false
}

// zoneAbbrev knows the fixed-offset abbreviations the CLI may print.
func zoneAbbrev(s string) (*time.Location, bool) {
	switch strings.ToUpper(s) {
	case "UTC", "GMT", "Z":
		return time.UTC, true
	}
	if m := regexp.MustCompile(`^(?i)(?:UTC|GMT)([+-])(\d{1,2})(?::?(\d{2}))?$`).FindStringSubmatch(s); m != nil {
		h, _ := strconv.Atoi(m[2])
		mi, _ := strconv.Atoi(m[3])
		off := h*3600 + mi*60
		if m[1] == "-" {
			off = -off
		}
		return time.FixedZone(s, off), true
	}
	return nil, false
}

// resumeAt is when a run that hit l (its streak-th limit in a row) goes on:
// the reset time, else retry-after, else an exponential backoff with
// jitter, capped at limitBackoffCap.
func (l Limit) resumeAt(now time.Time, streak int) time.Time {
	if !l.ResetAt.IsZero() && l.ResetAt.After(now) {
		return l.ResetAt
	}
	if t, ok := ParseResetTime(l.Message, now); ok && l.Kind == LimitUsage {
		return t
	}
	if l.RetryAfter > 0 {
		return now.Add(l.RetryAfter)
	}
	return now.Add(limitBackoff(streak))
}

// limitBackoff is the wait after the n-th limit in a row without a reset
// time: limitBackoffBase doubled each time, with jitter, capped.
func limitBackoff(n int) time.Duration {
	if n < 1 {
		n = 1
	}
	d := float64(limitBackoffBase) * math.Pow(2, float64(min(n-1, 16)))
	d *= limitJitter()
	if d > float64(limitBackoffCap) {
		d = float64(limitBackoffCap)
	}
	return time.Duration(d)
}

// limitWait is a worker waiting for a limit, stored in its book.
type limitWait struct {
	Kind    LimitKind `json:"kind"`
	Message string    `json:"message,omitempty"`
	Until   time.Time `json:"until,omitzero"`
	Since   time.Time `json:"since"`
}

// limitBook is the part of a worker's book about limits.
type limitBook struct {
	Wait *limitWait `json:"wait,omitempty"`
	// Limits counts the limits this task hit (none of them a retry).
	Limits int `json:"limits,omitempty"`
	// Waited is how long the worker waited for limits: it does not count
	// toward its worker timeout.
	Waited time.Duration `json:"waited,omitempty"`
}

// limitState is the run's state about limits and its budget, stored in
// runState.
type limitState struct {
	// WaitUntil is when the run goes on after a limit (nil: not waiting).
	WaitUntil *time.Time `json:"waitUntil,omitempty"`
	WaitKind  LimitKind  `json:"waitKind,omitempty"`
	// Due: the wait is over but the automatic resume is off; the run waits
	// for Engine.ResumeAfterLimit.
	Due bool `json:"limitDue,omitempty"`
	// Streak counts the limits since the last completed task (backoff).
	Streak int `json:"limitStreak,omitempty"`
	// MainWait: the main session waits for a limit.
	MainWait *limitWait `json:"mainWait,omitempty"`
	// Cap is how many workers may run at once after limits (0: maxWorkers).
	Cap    int         `json:"workerCap,omitempty"`
	Budget budgetState `json:"budget,omitzero"`
	// Simulated: the run's host is the simulator; its costs are simulated.
	Simulated bool `json:"simulated,omitempty"`
}

// simulatedHost is a host that says whether its costs are simulated
// (hosts.Manager).
type simulatedHost interface{ Simulated() bool }

// waitText is what the run and the waiting workers show.
func waitText(until time.Time, now time.Time) string {
	l := until.Local()
	at := l.Format("15:04")
	if y, m, d := l.Date(); y != now.Local().Year() || m != now.Local().Month() || d != now.Local().Day() {
		at = l.Format("Mon 2 Jan 15:04")
	}
	return "waiting for the limit, resumes at " + at
}

func (k LimitKind) describe() string {
	switch k {
	case LimitRate:
		return "rate limit (429)"
	case LimitOverload:
		return "API overloaded (529)"
	case LimitUsage:
		return "usage limit"
	case LimitBudget:
		return "budget"
	}
	return string(k)
}

// maxWorkers is how many workers may run at once now: the template's
// maxWorkers, lowered after limits.
func (r *runner) maxWorkers() int {
	max := r.tmpl.Config.MaxWorkers
	if max <= 0 {
		max = 1
	}
	if c := r.limits.Cap; c > 0 && c < max {
		return c
	}
	return max
}

// limitWaiting reports whether the run waits for a limit: nothing new
// starts.
func (r *runner) limitWaiting() bool { return r.limits.WaitUntil != nil }

// limitHit puts worker ws, whose turn ended on limit l, to wait in its
// session; the run waits with it.
func (r *runner) limitHit(ctx context.Context, ws *workerState, l Limit) error {
	now := r.e.now()
	r.limits.Streak++
	until := l.resumeAt(now, r.limits.Streak)
	if r.limits.WaitUntil == nil || until.After(*r.limits.WaitUntil) {
		r.limits.WaitUntil = &until
		r.limits.WaitKind = l.Kind
	}
	r.limits.Due = false
	r.limits.Cap = max(1, r.maxWorkers()/2)
	// What the session wrote up to the limit is read: the continue message
	// is answered after it (a restore reads again from here, not from the
	// entries that reported the limit).
	ws.book.reset(ws.book.Cursor)
	ws.book.Wait = &limitWait{Kind: l.Kind, Message: l.Message, Until: until, Since: now}
	ws.book.Limits++
	msg := waitText(*r.limits.WaitUntil, now)
	ws.w.CurrentAction = msg
	ws.dirty = true
	r.run.Message = msg
	detail := fmt.Sprintf("%s: %s (%s); workers at once lowered to %d", ws.w.TaskID, l.Kind.describe(), msg, r.limits.Cap)
	if l.Message != "" {
		detail += ": " + l.Message
	}
	r.log().Info("limit", "task", ws.w.TaskID, "kind", l.Kind, "until", until, "cap", r.limits.Cap)
	e := r.ev(EventLimitWaiting, ws, detail)
	e.p.ResumesAt = r.limits.WaitUntil
	e.p.Limit = string(l.Kind)
	return r.commit(ctx, store.Change{}, []*workerState{ws}, e)
}

// mainLimitHit puts the main session, whose turn ended on limit l, to wait;
// the run waits with it.
func (r *runner) mainLimitHit(ctx context.Context, l Limit) error {
	now := r.e.now()
	r.limits.Streak++
	until := l.resumeAt(now, r.limits.Streak)
	if r.limits.WaitUntil == nil || until.After(*r.limits.WaitUntil) {
		r.limits.WaitUntil = &until
		r.limits.WaitKind = l.Kind
	}
	r.limits.Due = false
	r.limits.MainWait = &limitWait{Kind: l.Kind, Message: l.Message, Until: until, Since: now}
	asked, n := r.main.Asked, r.main.Reprompts
	r.main.reset(r.main.Cursor)
	r.main.Asked, r.main.Reprompts = asked, n
	msg := waitText(*r.limits.WaitUntil, now)
	r.run.Message = msg
	detail := fmt.Sprintf("the main session: %s (%s)", l.Kind.describe(), msg)
	if l.Message != "" {
		detail += ": " + l.Message
	}
	e := r.ev(EventLimitWaiting, nil, detail)
	e.p.ResumesAt = r.limits.WaitUntil
	e.p.Limit = string(l.Kind)
	return r.commit(ctx, store.Change{}, nil, e)
}

// limitSuccess notes a completed task: one more worker may run at once.
func (r *runner) limitSuccess() {
	r.limits.Streak = 0
	if r.limits.Cap > 0 {
		r.limits.Cap++
		if r.limits.Cap >= r.tmpl.Config.MaxWorkers {
			r.limits.Cap = 0
		}
	}
}

// checkLimits resumes the waiting workers once the wait is over (and the
// user allows it, or the automatic resume is on), as many as the lowered
// worker count allows.
func (r *runner) checkLimits(ctx context.Context) error {
	if r.status.held() || r.status.Finished() {
		return nil
	}
	now := r.e.now()
	if r.limits.WaitUntil != nil {
		if now.Before(*r.limits.WaitUntil) {
			return nil
		}
		if !r.e.autoResume() {
			if r.limits.Due {
				return nil
			}
			r.limits.Due = true
			r.run.Message = "the limit has reset: resume the run (Resume now)"
			e := r.ev(EventLimitDue, nil, r.run.Message)
			e.p.Limit = string(r.limits.WaitKind)
			return r.commit(ctx, store.Change{}, nil, e)
		}
		return r.endLimitWait(ctx)
	}
	return r.resumeWaiting(ctx)
}

// endLimitWait ends the run's wait and resumes its workers.
func (r *runner) endLimitWait(ctx context.Context) error {
	kind := r.limits.WaitKind
	r.limits.WaitUntil, r.limits.WaitKind, r.limits.Due = nil, "", false
	if strings.HasPrefix(r.run.Message, "waiting for the limit") || strings.HasPrefix(r.run.Message, "the limit has reset") {
		r.run.Message = ""
	}
	e := r.ev(EventLimitResumed, nil, "the limit has reset and the run resumes")
	e.p.Limit = string(kind)
	if err := r.commit(ctx, store.Change{}, nil, e); err != nil {
		return err
	}
	return r.resumeWaiting(ctx)
}

// resumeWaiting sends the continue message to waiting workers, as many as
// the worker count allows (one at least when none runs).
func (r *runner) resumeWaiting(ctx context.Context) error {
	if w := r.limits.MainWait; w != nil {
		id := session.ID(r.run.MainSessionID)
		hctx, cancel := r.hostCtx(ctx)
		err := r.e.host.Send(hctx, id, limitContinueMain)
		cancel()
		r.limits.MainWait = nil
		if err != nil {
			return r.fail(ctx, fmt.Sprintf("resume the main session after the %s: %v", w.Kind.describe(), err))
		}
		r.markDirty(id, session.NoticeMessage)
		r.main.AskedAt = r.e.now()
		if err := r.commit(ctx, store.Change{}, nil); err != nil {
			return err
		}
	}
	var waiting []*workerState
	active := 0
	for _, ws := range r.plan.inOrder() {
		if ws.status != WorkerRunning || ws.book.Wait == nil {
			continue
		}
		if ws.book.Wait.Kind == LimitBudget && r.limits.Budget.Paused {
			continue
		}
		waiting = append(waiting, ws)
	}
	if len(waiting) == 0 {
		return nil
	}
	active = r.plan.busy() - len(waiting)
	free := r.maxWorkers() - active
	if free < 1 && active == 0 {
		free = 1
	}
	for i, ws := range waiting {
		if i >= free {
			break
		}
		if err := r.continueWorker(ctx, ws); r.halted(err) {
			return err
		}
	}
	return nil
}

// continueWorker sends the continue message to a waiting worker's session.
func (r *runner) continueWorker(ctx context.Context, ws *workerState) error {
	id := session.ID(ws.w.SessionID)
	kind := ws.book.Wait.Kind
	ws.book.Waited += max(0, r.e.now().Sub(ws.book.Wait.Since))
	hctx, cancel := r.hostCtx(ctx)
	err := r.e.host.Send(hctx, id, limitContinue)
	cancel()
	ws.book.Wait = nil
	if err != nil {
		return r.workerFailed(ctx, ws, fmt.Sprintf("resume after the %s: %v", kind.describe(), err), true)
	}
	now := r.e.now()
	r.markDirty(id, session.NoticeMessage)
	ws.book.reset(ws.book.Cursor)
	ws.activity = now
	ws.w.LastActivityAt = &now
	ws.w.CurrentAction = ""
	return r.commit(ctx, store.Change{}, []*workerState{ws},
		r.ev(EventWorkerResumed, ws, "goes on in the same session after the "+kind.describe()))
}

// ResumeAfterLimit ends a run's wait for a limit now: its waiting workers
// go on in their sessions (the Inbox's Resume now, and the way on when the
// automatic resume is off).
func (e *Engine) ResumeAfterLimit(ctx context.Context, runID string) error {
	return e.do(ctx, runID, func(ctx context.Context, r *runner) error {
		if r.limits.WaitUntil == nil {
			return fmt.Errorf("run %s is not waiting for a limit: %w", runID, ErrIllegalTransition)
		}
		return r.endLimitWait(ctx)
	})
}

// autoResume reports whether runs resume by themselves after a limit.
func (e *Engine) autoResume() bool {
	return e.autoResumeFn == nil || e.autoResumeFn()
}

// runLimits is what the run row shows of the limits and the budget.
func (r *runner) runLimits() store.RunLimits {
	b := r.budget()
	l := store.RunLimits{WaitingUntil: r.limits.WaitUntil, WaitingFor: string(r.limits.WaitKind), ResumeDue: r.limits.Due,
		WorkerCap: r.limits.Cap, BudgetUSD: b.MaxCostUSD, BudgetTokens: b.MaxTokens,
		BudgetWarned: r.limits.Budget.Warned, BudgetPaused: r.limits.Budget.Paused, CostSimulated: r.limits.Simulated}
	_, l.CostEstimated = r.main.costUSD()
	for _, ws := range r.plan.workers {
		_, est := ws.book.costUSD()
		l.CostEstimated = l.CostEstimated || est
	}
	return l
}
