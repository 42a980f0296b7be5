package report

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/runledger"
	"github.com/baton-app/baton/backend/store"
)

// History keeps the events kinds names, as facts: an approval only when a
// reviewer gave it, a rejection's reviewer and reason split, a QA round's
// tasks.
func TestHistory(t *testing.T) {
	at := time.Unix(50, 0)
	ev := func(name, task string, p runledger.Payload) store.Event {
		b, _ := json.Marshal(p)
		return store.Event{Name: name, TaskID: task, Payload: b, CreatedAt: at}
	}
	kinds := map[string]FactKind{"done": FactApproved, "no": FactRejected, "qa": FactRemediation, "ask": FactQuestion}
	facts := History([]store.Event{
		ev("done", "a", runledger.Payload{Message: "finished"}), // no reviewer: not a fact
		ev("done", "b", runledger.Payload{Message: "approved by the reviewer: looks good"}),
		ev("no", "", runledger.Payload{TaskID: "c", Message: "rejected by you: tests fail"}),
		ev("qa", "", runledger.Payload{Message: "round 1", Tasks: []store.Task{{ID: "q1"}, {ID: "q2"}}}),
		ev("other", "d", runledger.Payload{Message: "x"}),
		ev("ask", "e", runledger.Payload{Message: "which file?"}),
	}, kinds)
	if len(facts) != 4 {
		t.Fatalf("facts %+v, want 4", facts)
	}
	if f := facts[0]; f.Kind != FactApproved || f.TaskID != "b" || f.By != "the reviewer" || f.Text != "looks good" || !f.At.Equal(at) {
		t.Errorf("approval %+v", f)
	}
	if f := facts[1]; f.Kind != FactRejected || f.TaskID != "c" || f.By != "you" || f.Text != "tests fail" {
		t.Errorf("rejection %+v", f)
	}
	if f := facts[2]; f.Kind != FactRemediation || len(f.Tasks) != 2 || f.Tasks[1] != "q2" {
		t.Errorf("QA round %+v", f)
	}
	if f := facts[3]; f.Kind != FactQuestion || f.Text != "which file?" {
		t.Errorf("question %+v", f)
	}
}
