package runhost

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
)

// identifier is a host that says which it is, or fails to connect.
type identifier struct {
	id  session.Identity
	err error
}

func (f identifier) Current() session.Identity { return f.id }
func (f identifier) Identity(context.Context) (session.Identity, error) {
	return f.id, f.err
}

func TestIdentifyAndRefuse(t *testing.T) {
	cli := session.Identity{Kind: "claude-code", Label: "Claude Code CLI", Short: "claude-code", Path: "/usr/bin/claude", Version: "2.1.328",
		Description: "Claude Code CLI 2.1.328 (/usr/bin/claude)"}
	row, ok := Identify(context.Background(), identifier{id: cli})
	if !ok || row.Kind != "claude-code" || row.Version != "2.1.328" || row.Path != "/usr/bin/claude" || Name(row) != cli.Description {
		t.Fatalf("the CLI's row: %+v %v", row, ok)
	}
	if _, ok := Identify(context.Background(), identifier{err: errors.New("not connected")}); ok {
		t.Fatal("a host that cannot say which it is was identified")
	}
	if _, ok := Identify(context.Background(), nil); ok {
		t.Fatal("no identifier was identified")
	}
	if Name(store.RunHost{Kind: "simulator", Label: "Simulator"}) != "Simulator" || Name(store.RunHost{Kind: "desktop"}) != "desktop" {
		t.Fatal("a row without a description is named by its label, then its kind")
	}

	sim := session.Identity{Kind: "simulator", Label: "Simulator", Short: "simulator", Description: "the embedded simulator"}
	err := error(&OtherHostError{RunID: "r1", Ran: row, Now: sim})
	if !errors.Is(err, ErrOtherHost) {
		t.Fatal("the refusal is not ErrOtherHost")
	}
	for _, want := range []string{"run r1 ran on Claude Code CLI 2.1.328", "now uses the embedded simulator", "Choose Claude Code CLI in Settings",
		"baton run --resume r1 --host simulator"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not say %q: %s", want, err)
		}
	}
}

func TestMoveSaysWhatStaysAndWhatStartsAgain(t *testing.T) {
	from, to := store.RunHost{Kind: "simulator", Label: "Simulator"}, store.RunHost{Kind: "claude-code", Description: "Claude Code CLI 2.1.328"}
	m := Move{From: from, To: to, Kept: []string{"task_001"}, Restarted: []string{"task_002", "task_003"}, Main: true}
	want := "The run moved from Simulator to Claude Code CLI 2.1.328. 1 completed task (task_001) and its report stay. " +
		"Starting again there in new sessions: 2 tasks (task_002, task_003) and the main session (it first reads the run so far); " +
		"their conversations stay on Simulator."
	if got := m.Said(); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	m = Move{From: from, To: to, Kept: []string{"task_001", "task_002"}}
	if got := m.Said(); !strings.Contains(got, "2 completed tasks (task_001, task_002) and their reports stay. Nothing had started that must start again.") {
		t.Fatalf("nothing restarted: %s", got)
	}
}
