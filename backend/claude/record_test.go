package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/recording"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/simulator"
)

// "baton probe" records the simulator (in the real app's shapes), the
// simulator replays the file, and the adapter reads the same from both.
func TestProbeRecordAndReplay(t *testing.T) {
	t.Parallel()
	shapes := simulator.Shapes{ISODates: true, WrappedResults: true, NoTurnRunning: true, TranscriptTail: true, RawEvents: true}
	a := newEnv(t, simulator.Options{Shapes: shapes})
	ctx := testCtx(t)
	id, err := a.host.Start(ctx, session.StartOptions{Cwd: a.dir, Message: `answer with "phase": "analysis"`, Title: "first"})
	if err != nil {
		t.Fatal(err)
	}
	a.waitResult(t, id)

	// A session that asks a permission while the probe listens.
	type startResult struct {
		id  session.ID
		err error
	}
	started := make(chan startResult, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		sid, err := a.host.Start(ctx, session.StartOptions{Cwd: a.dir, PermissionMode: "default",
			Message: "[[sim:scenario=needs-permission]] analysis please"})
		started <- startResult{sid, err}
	}()
	rec, err := Record(ctx, a.host, RecordOptions{For: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	sr := <-started
	if sr.err != nil {
		t.Fatal(sr.err)
	}
	second := sr.id
	path := filepath.Join(t.TempDir(), "probe.json")
	if err := rec.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := recording.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	perm := false
	for _, ev := range loaded.Events {
		perm = perm || ev.Kind == "permission"
	}
	if !perm || len(loaded.Sessions) != 1 || loaded.Sessions[0].ID != string(id) || loaded.Sessions[0].GetTranscriptTail == nil {
		t.Fatalf("recording: %d sessions, %d events (a permission request: %v), tail %v", len(loaded.Sessions), len(loaded.Events), perm, loaded.Sessions[0].GetTranscriptTail)
	}
	arity := map[string]int{}
	for _, m := range loaded.Methods {
		arity[m.Name] = m.Arity
	}
	if arity["sendMessage"] != 2 || arity["getTranscriptTail"] != 2 || arity["getAll"] != 0 {
		t.Errorf("method arities: %v", arity)
	}

	b := newEnv(t, simulator.Options{Replay: loaded})
	if !reflect.DeepEqual(a.host.Probe().Methods, b.host.Probe().Methods) {
		t.Errorf("methods: recorded %v, replayed %v", a.host.Probe().Methods, b.host.Probe().Methods)
	}
	sa, err := a.host.Session(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := b.host.Session(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sa, sb) {
		t.Errorf("session: live %+v, replayed %+v", sa, sb)
	}
	ea, eb := a.readAll(t, id), b.readAll(t, id)
	if len(ea) == 0 || !reflect.DeepEqual(ea, eb) {
		t.Errorf("transcript: live %d entries, replayed %d, equal %v", len(ea), len(eb), reflect.DeepEqual(ea, eb))
	}
	// The recorded events are replayed: the permission request of the
	// session started while recording reaches the adapter.
	for {
		select {
		case n := <-b.host.Notices():
			if n.SessionID == second && n.Kind == session.NoticePermission {
				return
			}
		case <-ctx.Done():
			t.Fatal("the replayed permission request never came")
		}
	}
}

// A redacted recording keeps the shapes but none of the texts.
func TestProbeRedacts(t *testing.T) {
	t.Parallel()
	a := newEnv(t, simulator.Options{Shapes: simulator.Shapes{WrappedResults: true}})
	ctx := testCtx(t)
	secret := "the secret plan for tomorrow"
	id, err := a.host.Start(ctx, session.StartOptions{Cwd: a.dir, Message: secret, Title: "secret title"})
	if err != nil {
		t.Fatal(err)
	}
	a.waitResult(t, id)
	rec, err := Record(ctx, a.host, RecordOptions{For: 100 * time.Millisecond, Redact: true})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "probe.json")
	if err := rec.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	for _, s := range []string{"secret", a.dir, "README"} {
		if strings.Contains(string(b), s) {
			t.Errorf("the redacted recording holds %q", s)
		}
	}
	var probe struct {
		Sessions []struct {
			GetTranscript []map[string]any `json:"getTranscript"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal(b, &probe); err != nil || len(probe.Sessions) != 1 {
		t.Fatal(err)
	}
	first := probe.Sessions[0].GetTranscript[0]
	if first["type"] != "user" || first["uuid"] == "" || first["message"].(map[string]any)["content"] != "[redacted 28 chars]" {
		t.Errorf("first entry: %v", first)
	}
}
