package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/simulator"
)

// readCost builds a transcript of about size entries, then measures the
// bytes that cross CDP (both directions) for one Read of the entries of a
// small new turn, and returns bytes per new entry.
func readCost(t testing.TB, e *env, size int) (perEntry float64, newEntries int, total int) {
	t.Helper()
	ctx := testCtx(t)
	id, err := e.host.Start(ctx, session.StartOptions{Cwd: e.dir, Message: fmt.Sprintf("[[sim:scenario=flood entries=%d]] hello", size)})
	if err != nil {
		t.Fatal(err)
	}
	e.waitIdle(t, id)
	_, cursor := e.readFrom(t, id, session.Cursor{})
	if err := e.host.Send(ctx, id, "[[sim:scenario=happy]] one more"); err != nil {
		t.Fatal(err)
	}
	e.waitIdle(t, id)
	before := e.host.Conn().Traffic()
	b, err := e.host.Read(ctx, id, cursor)
	if err != nil {
		t.Fatal(err)
	}
	after := e.host.Conn().Traffic()
	if len(b.Entries) == 0 || b.Next.Index != b.Total {
		t.Fatalf("read after the cursor returned %d entries, next %d of %d", len(b.Entries), b.Next.Index, b.Total)
	}
	var payload int
	for _, en := range b.Entries {
		payload += len(en)
	}
	bytesMoved := (after.In - before.In) + (after.Out - before.Out)
	if bytesMoved < int64(payload) {
		t.Fatalf("counted %d bytes but the entries alone are %d: the counter is broken", bytesMoved, payload)
	}
	return float64(bytesMoved) / float64(len(b.Entries)), len(b.Entries), b.Total
}

// TestReadBytesDoNotGrowWithTranscript checks that a Read moves only the new
// entries over CDP: the bytes per new entry with a 10k-entry transcript stay
// within a small factor of those with a 1k-entry one (a read that moved the
// whole transcript would cost ten times more).
func TestReadBytesDoNotGrowWithTranscript(t *testing.T) {
	t.Parallel()
	// No entries in the notices: every Read goes to the page (the
	// fallback when a notice is lost or an entry too big), whose cost this
	// measures.
	e := newEnvWith(t, simulator.Options{Speed: 1000}, Options{MaxPushedEntry: -1})
	small, n1, total1 := readCost(t, e, 1000)
	large, n2, total2 := readCost(t, e, 10000)
	t.Logf("bytes crossing CDP per new entry: %.0f with %d entries in the transcript (%d new), %.0f with %d entries (%d new)", small, total1, n1, large, total2, n2)
	if large > 2*small {
		t.Fatalf("bytes per new entry grew with the transcript: %.0f at %d entries vs %.0f at %d", large, total2, small, total1)
	}
}

// noticeLatencies sends n messages straight to the simulator server (not
// through CDP) into a session whose turn hangs, and measures the time from
// the moment the server publishes each new entry to the moment its notice
// reaches Go through the page listener and the CDP binding.
func noticeLatencies(t testing.TB, n int) []time.Duration {
	t.Helper()
	published := make(chan time.Time, n+64)
	var watch string
	var mu = make(chan struct{}, 1)
	mu <- struct{}{}
	e := newEnv(t, simulator.Options{Speed: 1000, OnEntry: func(id string, at time.Time) {
		<-mu
		w := watch
		mu <- struct{}{}
		if id == w {
			select {
			case published <- at:
			default:
			}
		}
	}})
	ctx := testCtx(t)
	id, err := e.host.Start(ctx, session.StartOptions{Cwd: e.dir, Message: "[[sim:scenario=worker-hangs]] task_001"})
	if err != nil {
		t.Fatal(err)
	}
	e.waitSession(t, id, "hanging", func(si session.Info) bool {
		return si.TurnRunning && len(e.readAll(t, id)) >= 4
	})
	// Let the notices of the start drain.
	for quiet := false; !quiet; {
		select {
		case <-e.host.Notices():
		case <-time.After(200 * time.Millisecond):
			quiet = true
		}
	}
	<-mu
	watch = string(id)
	mu <- struct{}{}
	base := strings.TrimSuffix(e.sim.PageURL(), "/baton-simulator/")
	var out []time.Duration
	for i := range n {
		body, _ := json.Marshal(map[string]string{"sessionId": string(id), "message": fmt.Sprintf("ping %d", i)})
		req, _ := http.NewRequest(http.MethodPost, base+"/api/send", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(simulator.TokenHeader, e.sim.Token())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		var at time.Time
		select {
		case at = <-published:
		case <-ctx.Done():
			t.Fatal("the simulator never published the entry")
		}
		for {
			select {
			case nt := <-e.host.Notices():
				if nt.SessionID != id || nt.Kind != session.NoticeMessage {
					continue
				}
				out = append(out, time.Since(at))
			case <-ctx.Done():
				t.Fatalf("notice %d never arrived", i)
			}
			break
		}
	}
	return out
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// TestNoticesArrive checks that every new entry produces a push notice; the
// latency figures it logs are measurements, not assertions.
func TestNoticesArrive(t *testing.T) {
	t.Parallel()
	lat := noticeLatencies(t, 100)
	if len(lat) != 100 {
		t.Fatalf("got %d notices for 100 entries", len(lat))
	}
	t.Logf("push notice latency over %d entries: p50 %v, p99 %v", len(lat), percentile(lat, 0.50), percentile(lat, 0.99))
}

func BenchmarkNoticeLatency(b *testing.B) {
	lat := noticeLatencies(b, max(b.N, 200))
	b.ReportMetric(float64(percentile(lat, 0.50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(lat, 0.99).Microseconds())/1000, "p99-ms")
}

func BenchmarkReadNewEntryBytes(b *testing.B) {
	for _, size := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("transcript-%d", size), func(b *testing.B) {
			e := newEnv(b, simulator.Options{Speed: 1000})
			var per float64
			for range b.N {
				per, _, _ = readCost(b, e, size)
			}
			b.ReportMetric(per, "bytes/entry")
		})
	}
}
