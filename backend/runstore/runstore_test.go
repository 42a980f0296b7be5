package runstore

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/checkrounds"
	"github.com/baton-app/baton/backend/store"
)

// A run is read from a real store alone: its rows, its state's checks, no
// final report before it finishes, one built from its events after; an
// unknown run is ErrUnknownRun.
func TestLoad(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "baton.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := Load(ctx, st, "nope"); !errors.Is(err, ErrUnknownRun) {
		t.Fatalf("unknown run: %v", err)
	}
	state, err := json.Marshal(State{Resume: "running", Checks: checkrounds.New(nil)})
	if err != nil {
		t.Fatal(err)
	}
	run := store.Run{ID: "r1", TemplateID: "t", Cwd: "/p", Request: "do it", Status: "running", Template: []byte("{}"), State: state, CreatedAt: time.Now()}
	if err := st.CreateRun(ctx, run, store.Event{Name: "orchestrator:created", Payload: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	snap, err := LoadReport(ctx, st, "r1", nil)
	if err != nil || snap.Run.ID != "r1" || snap.FinalReport != nil || snap.Worktree != nil {
		t.Fatalf("snapshot %+v, %v", snap, err)
	}
	if rs, err := StateOf(snap.Run); err != nil || rs.Resume != "running" {
		t.Fatalf("state %+v, %v", rs, err)
	}
	if _, err := StateOf(store.Run{State: []byte("{")}); err == nil {
		t.Fatal("a state that does not parse is an error")
	}
	events, err := Events(ctx, st, "r1")
	if err != nil || len(events) != 1 {
		t.Fatalf("events %v, %v", events, err)
	}
	snap.Run.Status = "completed"
	if rep := BuildReport(snap, events, nil); rep.RunID != "r1" || rep.Status != "completed" {
		t.Fatalf("report %+v", rep)
	}
	b, err := ExportJSON(snap)
	if err != nil || !strings.HasSuffix(string(b), "}\n") || !strings.Contains(string(b), `"id": "r1"`) {
		t.Fatalf("export %s, %v", b, err)
	}
}
