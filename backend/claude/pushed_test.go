package claude

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/simulator"
)

// follow reads session id as the engine does: from the start, then from its
// cursor after every notice about it (and every 200 ms, the poll), until
// its turn ended with a result. It returns the uuids read, in order.
func (e *env) follow(t *testing.T, id session.ID) []string {
	t.Helper()
	ctx := testCtx(t)
	var cur session.Cursor
	var uuids []string
	var last string
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		for {
			b, err := e.host.Read(ctx, id, cur)
			if err != nil {
				t.Fatalf("read %s: %v", id, err)
			}
			if b.Reset {
				uuids, last = nil, ""
			}
			for _, raw := range b.Entries {
				var en struct {
					Type string `json:"type"`
					UUID string `json:"uuid"`
				}
				if err := json.Unmarshal(raw, &en); err != nil {
					t.Fatalf("entry: %v: %s", err, raw)
				}
				uuids = append(uuids, en.UUID)
				last = en.Type
			}
			cur = b.Next
			if cur.Index >= b.Total {
				break
			}
		}
		if si, err := e.host.Session(ctx, id); err == nil && !si.TurnRunning && last == "result" {
			return uuids
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s did not end its turn (read %d entries)", id, len(uuids))
		case <-e.host.Notices():
		case <-tick.C:
		}
	}
}

// uuidsOf lists the uuids of the whole transcript as the page has it.
func (e *env) uuidsOf(t *testing.T, id session.ID) []string {
	var out []string
	for _, en := range e.readAll(t, id) {
		u, _ := en["uuid"].(string)
		out = append(out, u)
	}
	return out
}

// TestPushedEntries: the notices carry the new entries, so most reads of a
// followed session need no round trip to the page; an entry too big to
// carry and notices lost on the way fall back to reading the page, and the
// session is read whole and in order in every case (real Chromium, the
// simulator page).
func TestPushedEntries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		max      int
		lose     bool // the page drops every third notice
		fromPush int  // 1: some reads are served from the push, -1: none, 0: either
	}{
		{"carried", 0, false, 1},
		{"too big to carry", 64, false, -1},
		// Whether a read falls between two notices that both arrived
		// depends on timing: what holds is that the session is read whole.
		{"notices lost", 0, true, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// Slow enough that a turn outlasts the first read under load.
			e := newEnvWith(t, simulator.Options{Speed: 3}, Options{MaxPushedEntry: tc.max})
			ctx := testCtx(t)
			if tc.lose {
				// Every third call of the binding never reaches Go.
				_, err := e.host.link.call.Call(ctx, `function (b) {
					const f = globalThis[b]; let n = 0;
					globalThis[b] = (s) => { if (++n % 3 !== 0) f(s); };
				}`, e.host.link.binding)
				if err != nil {
					t.Fatal(err)
				}
			}
			id, err := engine.WorkerSessionID("run1", "task_001")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.host.Start(ctx, session.StartOptions{Cwd: e.dir, ID: id,
				Message: `Analyze this project and answer with {"phase": "analysis", "data": {...}} between the delimiters.`}); err != nil {
				t.Fatal(err)
			}
			pushed0, page0 := e.host.Reads()
			got := e.follow(t, id)
			pushed, page := e.host.Reads()
			t.Logf("reads from the push %d, from the page %d", pushed-pushed0, page-page0)
			want := e.uuidsOf(t, id)
			if !slices.Equal(got, want) || len(want) < 4 {
				t.Fatalf("followed %v\nthe page has %v", got, want)
			}
			if served := pushed - pushed0; tc.fromPush != 0 && (served > 0) != (tc.fromPush > 0) {
				t.Errorf("%d reads served from the push; want some: %v", served, tc.fromPush > 0)
			}
			if page-page0 == 0 {
				t.Error("no read went to the page (the first one has no cursor to follow)")
			}
		})
	}
}

// The chain of pushed entries: served only when it reaches the newest
// entry pushed without a gap.
func TestPushedChain(t *testing.T) {
	t.Parallel()
	raw := func(u string) json.RawMessage { return json.RawMessage(fmt.Sprintf(`{"uuid":%q}`, u)) }
	var p pushed
	id := session.ID("local_x")
	p.add(id, pushedEntry{prev: "a", uuid: "b", raw: raw("b")})
	p.add(id, pushedEntry{prev: "b", uuid: "c", raw: raw("c")})
	if got, last, ok := p.after(id, "a", 10); !ok || len(got) != 2 || last != "c" {
		t.Errorf("after a = %s, %q, %v", got, last, ok)
	}
	if _, _, ok := p.after(id, "b", 1); !ok {
		t.Error("after b: not served")
	}
	if _, _, ok := p.after(id, "a", 1); ok {
		t.Error("served more than the limit")
	}
	for _, from := range []string{"c", "", "z"} {
		if _, _, ok := p.after(id, from, 10); ok {
			t.Errorf("after %q: served", from)
		}
	}
	p.add(id, pushedEntry{prev: "c", uuid: "d"}) // too big: no entry
	if _, _, ok := p.after(id, "a", 10); ok {
		t.Error("served across an entry that was not carried")
	}
	p.add(id, pushedEntry{prev: "x", uuid: "y", raw: raw("y")}) // the one before was lost
	if _, _, ok := p.after(id, "d", 10); ok {
		t.Error("served across a lost notice")
	}
	p.forget()
	if _, _, ok := p.after(id, "x", 10); ok {
		t.Error("served after forget")
	}
}
