package limits

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// recordedLines returns the lines of a recording's file.
func recordedLines(t *testing.T, name, file string) []json.RawMessage {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "claudecodetest", "testdata", "recordings", name, file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		out = append(out, json.RawMessage(append([]byte(nil), sc.Bytes()...)))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// The CLI's api_retry events and the turns it gave up on, as recorded.
func TestRetriesAndOutagesOfTheRealCLI(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		retries []string // Text of each retry
		kind    Kind     // of the retries
		outage  bool     // each retry is an outage
		limit   Kind     // the limit the turn ended on
		gaveUp  bool     // the turn ended on an outage
	}{
		{name: "fault-rate-limited-retries", retries: []string{
			"waiting for the model (rate limited), attempt 1 of 10", "waiting for the model (rate limited), attempt 2 of 10"}, kind: Rate},
		{name: "fault-rate-limited-gives-up", retries: []string{
			"waiting for the model (rate limited), attempt 1 of 2", "waiting for the model (rate limited), attempt 2 of 2"}, kind: Rate, limit: Rate},
		{name: "fault-overloaded-once", retries: []string{"waiting for the model (overloaded), attempt 1 of 10"}, kind: Overload},
		{name: "fault-server-error-once", retries: []string{"waiting for the model (server error 500), attempt 1 of 10"}, outage: true},
		{name: "fault-unreachable", retries: []string{
			"waiting for the model (unreachable), attempt 1 of 2", "waiting for the model (unreachable), attempt 2 of 2"}, outage: true, gaveUp: true},
		{name: "fault-cut-stream", gaveUp: true},
		{name: "fault-no-answer", gaveUp: true},
		{name: "fault-overloaded", limit: Overload},
		{name: "fault-garbage"},
		{name: "orchestrator-worker"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var texts []string
			var last *Retry
			var limit *Limit
			outages := 0
			for _, raw := range recordedLines(t, c.name, "stream.jsonl") {
				if r, ok := DetectRetry(raw); ok {
					texts = append(texts, r.Text())
					if r.Kind() != c.kind || r.Outage() != c.outage {
						t.Errorf("retry %+v: kind %q outage %v, want %q %v", r, r.Kind(), r.Outage(), c.kind, c.outage)
					}
					if r.Delay <= 0 {
						t.Errorf("retry %+v has no delay", r)
					}
					last = &r
				}
				if l, ok := Detect(raw); ok {
					l = l.WithRetry(last)
					limit = &l
				}
				if o, ok := DetectOutage(raw); ok {
					outages++
					if o.Message == "" {
						t.Error("an outage without the CLI's sentence")
					}
				}
			}
			if len(texts) != len(c.retries) {
				t.Fatalf("retries %q, want %q", texts, c.retries)
			}
			for i := range texts {
				if texts[i] != c.retries[i] {
					t.Errorf("retry %d: %q, want %q", i, texts[i], c.retries[i])
				}
			}
			if (outages > 0) != c.gaveUp {
				t.Errorf("%d outages, want one: %v", outages, c.gaveUp)
			}
			switch {
			case c.limit == "" && limit != nil:
				t.Errorf("limit %+v, want none", *limit)
			case c.limit != "" && (limit == nil || limit.Kind != c.limit):
				t.Errorf("limit %+v, want %s", limit, c.limit)
			case c.limit != "" && last != nil && limit.RetryAfter != last.Delay:
				// The CLI's last wait is the limit's retry-after: kept, not
				// doubled, not replaced by Baton's backoff.
				t.Errorf("the limit's retry-after is %s, the CLI's last retry waited %s", limit.RetryAfter, last.Delay)
			}
		})
	}
}

func TestWithRetryKeepsWhatTheLimitSays(t *testing.T) {
	t.Parallel()
	reset := time.Date(2026, 1, 1, 16, 0, 0, 0, time.UTC)
	rate := &Retry{Attempt: 3, Max: 3, Delay: 2100 * time.Millisecond, Status: 429, Error: "rate_limit"}
	for _, c := range []struct {
		name string
		l    Limit
		last *Retry
		want time.Duration
	}{
		{"no retry", Limit{Kind: Rate}, nil, 0},
		{"the CLI's last delay", Limit{Kind: Rate}, rate, 2100 * time.Millisecond},
		{"its own retry-after wins", Limit{Kind: Rate, RetryAfter: 5 * time.Second}, rate, 5 * time.Second},
		{"a reset time wins", Limit{Kind: Rate, ResetAt: reset}, rate, 0},
		{"a usage limit waits for its reset", Limit{Kind: Usage}, rate, 0},
		{"another kind's retry", Limit{Kind: Overload}, rate, 0},
	} {
		if got := c.l.WithRetry(c.last).RetryAfter; got != c.want {
			t.Errorf("%s: retry-after %s, want %s", c.name, got, c.want)
		}
	}
	now := time.Now()
	l := Limit{Kind: Rate}.WithRetry(rate)
	for streak := 1; streak <= 4; streak++ {
		if got := l.ResumeAt(now, streak, 1); !got.Equal(now.Add(2100 * time.Millisecond)) {
			t.Errorf("limit %d in a row resumes after %s, want the CLI's 2.1 s", streak, got.Sub(now))
		}
	}
}
