// Package limits reads the limits a session hits and keeps a run's waits
// for them and its budget. Limits are waits, not failures: a session whose
// host reports a rate limit (HTTP 429), an overload (529) or a
// subscription's usage limit ("You've hit your 5-hour limit · resets 4pm
// (UTC)") waits, keeping its session, until the reset time (else the
// retry-after the host gave, else an exponential backoff with jitter, capped
// at BackoffCap) and is then sent Continue in the same session, so nothing
// it did is done again. While the run waits nothing new starts, and the
// number of workers that run at once is halved at each limit and raised by
// one after each completed task, never above the template's maxWorkers.
//
// A run's budget caps its cost and its tokens: at WarnAt of either cap the
// run warns once, at the cap it pauses until the budget is raised.
//
// State, Wait and Book are stored with the run and its workers, so a Baton
// restarted while a run waits goes on waiting and resumes at the same time.
// Their methods change them and say what the run does next; the engine
// turns that into stored changes and events.
package limits

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Kind is what kind of limit a session hit.
type Kind string

// The limits Baton recognises. Budget is the run's own budget: a worker
// whose turn ended while the budget was used up waits for it.
const (
	Rate     Kind = "rate_limit"
	Overload Kind = "overloaded"
	Usage    Kind = "usage_limit"
	Budget   Kind = "budget"
)

// Describe names the kind for a person.
func (k Kind) Describe() string {
	switch k {
	case Rate:
		return "rate limit (429)"
	case Overload:
		return "API overloaded (529)"
	case Usage:
		return "usage limit"
	case Budget:
		return "budget"
	}
	return string(k)
}

// Limit is what a transcript entry says about a limit the session hit.
type Limit struct {
	Kind Kind `json:"kind"`
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

// The backoff after limits without a reset time or a retry-after.
const (
	BackoffBase = 30 * time.Second
	BackoffCap  = 5 * time.Minute
)

// Continue is the message that resumes a worker's session after a limit.
const Continue = "The limit that stopped you has reset. Continue the task exactly where you left off " +
	"(do not redo what is already done) and finish with your completion report."

// ContinueMain resumes the main session after a limit.
const ContinueMain = "The limit that stopped you has reset. Continue where you left off and give the answer you were asked for."

// Jitter returns a factor in [0.8, 1.2) for the backoff.
func Jitter() float64 { return 0.8 + 0.4*rand.Float64() }

// limitEntry is what Detect reads of an entry: the CLI's stream-json
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

// Detect reads one raw transcript entry for a limit: a result that
// ended the turn with an API error (the CLI host), or an assistant entry
// the CLI made of an API error (its stream and the transcripts Claude Code
// and Claude Desktop write). Text alone counts only on an entry marked as
// an error, so an agent that writes about rate limits is not stopped.
func Detect(raw json.RawMessage) (Limit, bool) {
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
		l.Kind = Usage
	case status == 529 || errType == "overloaded_error" || errField == "overloaded" ||
		strings.Contains(strings.ToLower(text), "overloaded"):
		l.Kind = Overload
	case status == 429 || errType == "rate_limit_error" || errField == "rate_limit" ||
		strings.Contains(text, "429") || strings.Contains(strings.ToLower(text), "rate limit"):
		l.Kind = Rate
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

// ResumeAt is when a run that hit l (its streak-th limit in a row) goes on:
// the reset time, else retry-after, else an exponential backoff with the
// jitter factor, capped at BackoffCap.
func (l Limit) ResumeAt(now time.Time, streak int, jitter float64) time.Time {
	if !l.ResetAt.IsZero() && l.ResetAt.After(now) {
		return l.ResetAt
	}
	if t, ok := ParseResetTime(l.Message, now); ok && l.Kind == Usage {
		return t
	}
	if l.RetryAfter > 0 {
		return now.Add(l.RetryAfter)
	}
	return now.Add(Backoff(streak, jitter))
}

// Backoff is the wait after the n-th limit in a row without a reset time:
// BackoffBase doubled each time, times the jitter factor, capped.
func Backoff(n int, jitter float64) time.Duration {
	if n < 1 {
		n = 1
	}
	d := float64(BackoffBase) * math.Pow(2, float64(min(n-1, 16)))
	d *= jitter
	if d > float64(BackoffCap) {
		d = float64(BackoffCap)
	}
	return time.Duration(d)
}
