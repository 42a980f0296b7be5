package transcript

import (
	"encoding/json"
	"testing"

	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/limits"
)

// A session read line by line, as the CLI host hands out its events: while
// the CLI waits to retry, the cursor says so (and every line is activity);
// an answer or the turn's result ends the retry; a turn the CLI gave up on
// says why: a limit with the CLI's last delay, or an outage.
func TestRetriesReadLineByLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		retried int // lines read while the cursor said it retries
		limit   limits.Kind
		outage  bool
	}{
		{name: "fault-rate-limited-retries", retried: 2},
		{name: "fault-server-error-once", retried: 1},
		{name: "fault-rate-limited-gives-up", retried: 2, limit: limits.Rate},
		{name: "fault-unreachable", retried: 2, outage: true},
		{name: "fault-cut-stream", outage: true},
		{name: "orchestrator-analysis"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rec := claudecodetest.LoadRecording(t, c.name)
			var cur Cursor
			retried := 0
			var last *limits.Retry
			for _, line := range claudecodetest.Lines(rec.Stream) {
				d := digest([]json.RawMessage{line}, cur.usageSeen())
				if !d.Activity {
					t.Fatalf("a line is not activity: %s", line)
				}
				cur.take(d)
				if r := cur.Retrying(); r != nil {
					retried++
					last = r
				}
			}
			if retried != c.retried {
				t.Errorf("%d lines read while retrying, want %d", retried, c.retried)
			}
			if cur.Retrying() != nil {
				t.Error("still retrying after the turn's result")
			}
			switch l := cur.Limit(); {
			case c.limit == "" && l != nil:
				t.Errorf("limit %+v", *l)
			case c.limit != "" && (l == nil || l.Kind != c.limit || l.RetryAfter != last.Delay):
				t.Errorf("limit %+v, want %s after the CLI's last delay %s", l, c.limit, last.Delay)
			}
			if o := cur.Outage(); (o != nil) != c.outage {
				t.Errorf("outage %+v, want one: %v", o, c.outage)
			}
			cur.Reset(cur.At)
			if cur.Retrying() != nil || cur.Outage() != nil || cur.Limit() != nil {
				t.Error("a new prompt keeps what the last turn said")
			}
		})
	}
}
