package limits

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// The model's API seen through the Claude Code CLI: it retries a request
// that failed by itself (a system event of subtype api_retry before each
// wait) and, when it gives up, ends the turn with an error result. A retry
// is activity, not silence; a rate limit or an overload it gives up on is a
// Limit (Detect), whose wait starts with the delay of the CLI's last retry
// (WithRetry); a model it cannot reach (the connection refused or reset, a
// name that does not resolve, a 5xx other than 529, no answer in time) is an
// Outage, which is neither a limit nor a bad reply.

// Retry is one system/api_retry event of the CLI:
//
//	{"type":"system","subtype":"api_retry","attempt":2,"max_retries":10,
//	 "retry_delay_ms":2268,"error_status":429,"error":"rate_limit",…}
//
// error_status is null when no HTTP answer came (the connection failed);
// error is "rate_limit", "overloaded", "server_error" or "unknown".
type Retry struct {
	Attempt int `json:"attempt"`
	Max     int `json:"maxRetries"`
	// Delay is how long the CLI waits before this attempt: the retry-after
	// the API asked for, else its own backoff, with jitter.
	Delay time.Duration `json:"delay"`
	// Status is the HTTP status of the failed request, 0 when none came.
	Status int    `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
}

type retryEntry struct {
	Type        string `json:"type"`
	Subtype     string `json:"subtype"`
	Attempt     int    `json:"attempt"`
	MaxRetries  int    `json:"max_retries"`
	DelayMS     *int64 `json:"retry_delay_ms"`
	ErrorStatus *int   `json:"error_status"`
	Error       string `json:"error"`
}

// DetectRetry reads one raw transcript entry for a retry of the CLI.
func DetectRetry(raw json.RawMessage) (Retry, bool) {
	if !strings.Contains(string(raw), `"api_retry"`) {
		return Retry{}, false
	}
	var e retryEntry
	if json.Unmarshal(raw, &e) != nil || e.Type != "system" || e.Subtype != "api_retry" {
		return Retry{}, false
	}
	r := Retry{Attempt: e.Attempt, Max: e.MaxRetries, Error: e.Error}
	if e.DelayMS != nil && *e.DelayMS > 0 {
		r.Delay = time.Duration(*e.DelayMS) * time.Millisecond
	}
	if e.ErrorStatus != nil {
		r.Status = *e.ErrorStatus
	}
	return r, true
}

// Kind is the limit the retry is about (Rate or Overload), "" for any
// other failure.
func (r Retry) Kind() Kind {
	switch {
	case r.Status == 529 || r.Error == "overloaded":
		return Overload
	case r.Status == 429 || r.Error == "rate_limit":
		return Rate
	}
	return ""
}

// Outage reports whether the retry is about a model the CLI cannot reach:
// no HTTP answer, or a server error other than an overload.
func (r Retry) Outage() bool {
	if r.Kind() != "" {
		return false
	}
	return r.Status == 0 || r.Status >= 500
}

// Text is what a session that retries shows: "waiting for the model (rate
// limited), attempt 2 of 10".
func (r Retry) Text() string {
	why := "unreachable"
	switch r.Kind() {
	case Rate:
		why = "rate limited"
	case Overload:
		why = "overloaded"
	default:
		if r.Status >= 500 {
			why = fmt.Sprintf("server error %d", r.Status)
		}
	}
	s := "waiting for the model (" + why + ")"
	if a := r.Attempts(); a != "" {
		s += ", " + a
	}
	return s
}

// Attempts is "attempt 2 of 10" ("" when the CLI did not say).
func (r Retry) Attempts() string {
	if r.Attempt <= 0 {
		return ""
	}
	s := fmt.Sprintf("attempt %d", r.Attempt)
	if r.Max > 0 {
		s += fmt.Sprintf(" of %d", r.Max)
	}
	return s
}

// WithRetry is limit l as the CLI left it after retrying (last: its last
// retry of the turn): when l names no reset time and no retry-after, as the
// CLI's error result does not, the wait starts with the delay the CLI
// waited last (the API's retry-after, kept as it was, never doubled).
func (l Limit) WithRetry(last *Retry) Limit {
	if last == nil || last.Delay <= 0 || l.RetryAfter > 0 || !l.ResetAt.IsZero() || l.Kind == Usage {
		return l
	}
	if k := last.Kind(); k != "" && k != l.Kind {
		return l
	}
	l.RetryAfter = last.Delay
	return l
}

// Outage is a turn the CLI ended because it could not reach the model.
type Outage struct {
	// Message is the CLI's sentence, such as "API Error: Connection
	// refused — a firewall or proxy may be blocking it (ECONNREFUSED)".
	Message string `json:"message"`
	Status  int    `json:"status,omitempty"`
}

type outageEntry struct {
	Type            string `json:"type"`
	IsError         bool   `json:"is_error"`
	Result          string `json:"result"`
	APIErrorStatus  *int   `json:"api_error_status"`
	APIErrorStatus2 *int   `json:"apiErrorStatus"`
	APIError        string `json:"api_error"`
	APIError2       string `json:"apiError"`
}

// DetectOutage reads one raw transcript entry for the end of a turn the
// CLI gave up on because the model could not be reached: an error result
// whose api_error is connection_failed, whose status is a 5xx other than
// 529, or whose text says the request timed out.
func DetectOutage(raw json.RawMessage) (Outage, bool) {
	var e outageEntry
	if json.Unmarshal(raw, &e) != nil || e.Type != "result" || !e.IsError {
		return Outage{}, false
	}
	status := 0
	for _, p := range []*int{e.APIErrorStatus, e.APIErrorStatus2} {
		if p != nil && *p != 0 {
			status = *p
		}
	}
	text := strings.TrimSpace(e.Result)
	switch {
	case first(e.APIError, e.APIError2) == "connection_failed",
		status >= 500 && status != 529,
		status == 0 && strings.HasPrefix(text, "Request timed out"):
		return Outage{Message: text, Status: status}, true
	}
	return Outage{}, false
}
