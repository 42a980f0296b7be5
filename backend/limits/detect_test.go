package limits

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// recordedLimit returns the limits detected in a recording's file.
func recordedLimits(t *testing.T, name, file string) []Limit {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "claudecodetest", "testdata", "recordings", name, file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Limit
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		if l, ok := Detect(json.RawMessage(sc.Bytes())); ok {
			out = append(out, l)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// The real CLI's error results and transcript entries, as recorded.
func TestDetectLimitRecordings(t *testing.T) {
	reset := time.Unix(1795536000, 0).UTC()
	for _, c := range []struct {
		name, file string
		kind       Kind
		n          int
		reset      bool
	}{
		{"fault-usage-limit", "stream.jsonl", Usage, 2, true},
		{"fault-usage-limit", "transcript.jsonl", Usage, 1, true},
		{"fault-overloaded", "stream.jsonl", Overload, 2, false},
		{"fault-overloaded", "transcript.jsonl", Overload, 1, false},
		{"fault-rate-limit-api-key", "stream.jsonl", Rate, 2, false},
		{"fault-rate-limit-api-key", "transcript.jsonl", Rate, 1, false},
		// The CLI retried by itself and the turn went on: no limit.
		{"fault-rate-limited-once", "stream.jsonl", "", 0, false},
		{"fault-overloaded-once", "stream.jsonl", "", 0, false},
		{"orchestrator-worker", "stream.jsonl", "", 0, false},
		{"fault-worker-fails", "stream.jsonl", "", 0, false},
	} {
		t.Run(c.name+"/"+c.file, func(t *testing.T) {
			ls := recordedLimits(t, c.name, c.file)
			if len(ls) != c.n {
				t.Fatalf("%d limits detected, want %d: %+v", len(ls), c.n, ls)
			}
			for _, l := range ls {
				if l.Kind != c.kind {
					t.Errorf("kind %s, want %s (%q)", l.Kind, c.kind, l.Message)
				}
				if c.reset && l.Kind == Usage && !strings.Contains(l.Message, "resets 4pm (UTC)") {
					t.Errorf("message %q", l.Message)
				}
			}
			if c.reset {
				// The assistant entry carries the reset as a timestamp; the
				// result has only the text, read relative to the clock.
				var withStamp int
				for _, l := range ls {
					if l.ResetAt.Equal(reset) {
						withStamp++
					}
				}
				if withStamp != 1 {
					t.Errorf("%d entries with the reset time %v: %+v", withStamp, reset, ls)
				}
				now := reset.Add(-90 * time.Minute)
				for _, l := range ls {
					if got := l.ResumeAt(now, 1, 1); !got.Equal(reset) {
						t.Errorf("resume at %v, want %v (%+v)", got, reset, l)
					}
				}
			}
		})
	}
}

func TestDetectLimitOnlyOnErrors(t *testing.T) {
	for _, raw := range []string{
		// An agent writing about limits is not a limit.
		`{"type":"assistant","message":{"content":[{"type":"text","text":"You've hit your 5-hour limit · resets 4pm (UTC); a 429 rate limit"}]}}`,
		`{"type":"result","is_error":false,"result":"API Error: 529 Overloaded"}`,
		`{"type":"result","is_error":true,"result":"Error: the build failed"}`,
		`{"type":"user","message":{"content":"rate limit 429"}}`,
	} {
		if l, ok := Detect(json.RawMessage(raw)); ok {
			t.Errorf("%s: detected %+v", raw, l)
		}
	}
	l, ok := Detect(json.RawMessage(`{"type":"result","is_error":true,"api_error_status":429,"result":"API Error: 429 rate_limit_error; retry-after: 120"}`))
	if !ok || l.Kind != Rate || l.RetryAfter != 120*time.Second || l.Status != 429 {
		t.Errorf("retry-after in the text: %+v %v", l, ok)
	}
	l, ok = Detect(json.RawMessage(`{"type":"result","is_error":true,"result":"Claude AI usage limit reached|1795536000"}`))
	if !ok || l.Kind != Usage || !l.ResetAt.Equal(time.Unix(1795536000, 0)) {
		t.Errorf("older CLI usage limit text: %+v %v", l, ok)
	}
	l, ok = Detect(json.RawMessage(`{"type":"assistant","isApiErrorMessage":true,"error":"rate_limit","retryAfter":7,"message":{"content":[{"type":"text","text":"API Error: Request rejected (429)"}]}}`))
	if !ok || l.Kind != Rate || l.RetryAfter != 7*time.Second {
		t.Errorf("a Desktop transcript error entry with retryAfter: %+v %v", l, ok)
	}
}

func TestParseResetTime(t *testing.T) {
	now := time.Date(2026, 11, 22, 14, 30, 0, 0, time.UTC)
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		text string
		want time.Time
	}{
		{"You've hit your 5-hour limit · resets 4pm (UTC)", time.Date(2026, 11, 22, 16, 0, 0, 0, time.UTC)},
		{"You've hit your 5-hour limit · resets 2pm (UTC)", time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC)},
		{"limit reached · resets 4:30pm (Europe/Berlin)", time.Date(2026, 11, 22, 16, 30, 0, 0, berlin)},
		{"limit reached ∙ resets 12am (UTC)", time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)},
		{"You've hit your weekly limit · resets Nov 25, 5pm (UTC)", time.Date(2026, 11, 25, 17, 0, 0, 0, time.UTC)},
		{"Usage limit reached, resets at 16:45", time.Date(2026, 11, 22, 16, 45, 0, 0, time.UTC)},
		{"resets 9am (UTC+2)", time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)},
	} {
		got, ok := ParseResetTime(c.text, now)
		if !ok || !got.Equal(c.want) {
			t.Errorf("%q: %v %v, want %v", c.text, got, ok, c.want)
		}
	}
	if _, ok := ParseResetTime("the limit was reached", now); ok {
		t.Error("a text without a reset time gave one")
	}
}

func TestLimitBackoff(t *testing.T) {
	for n, want := range map[int]time.Duration{1: 30 * time.Second, 2: time.Minute, 3: 2 * time.Minute, 4: 4 * time.Minute, 5: 5 * time.Minute, 40: 5 * time.Minute} {
		if got := Backoff(n, 1); got != want {
			t.Errorf("backoff %d: %v, want %v", n, got, want)
		}
	}
	if got := Backoff(1, 0.8); got != 24*time.Second {
		t.Errorf("jitter: %v", got)
	}
	for range 100 {
		if j := Jitter(); j < 0.8 || j >= 1.2 {
			t.Fatalf("jitter %v outside [0.8, 1.2)", j)
		}
	}
}
