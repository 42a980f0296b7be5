package engine

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/outputs"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/store"
)

func TestModifications(t *testing.T) {
	t.Parallel()
	base := []store.Task{{ID: "a", Title: "A", Description: "a", Priority: 5}, {ID: "b", Title: "B", Description: "b", Priority: 5}}
	deps := []string{"a"}
	p := 8
	out, err := Modifications{Skip: []string{"a"}, Edit: []TaskEdit{{ID: "b", Dependencies: &deps, Priority: &p}},
		Add: []NewTask{{ID: "c", Title: "C", Description: "c"}}}.Apply("r", base)
	if err != nil {
		t.Fatal(err)
	}
	if !out[0].Skipped || out[1].Priority != 8 || out[1].Dependencies[0] != "a" || out[2].Priority != DefaultPriority {
		t.Errorf("Apply = %+v", out)
	}
	if base[0].Skipped || base[1].Priority != 5 {
		t.Error("Apply changed its input")
	}
	_, err = Modifications{Skip: []string{"zz"}, Add: []NewTask{{ID: "a"}}}.Apply("r", base)
	if !errors.Is(err, ErrInvalidTasks) || !strings.Contains(err.Error(), "cannot skip zz") || !strings.Contains(err.Error(), "cannot add a") {
		t.Errorf("Apply of bad modifications = %v", err)
	}
}

func TestClipCutsByCharacter(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("ü", 10)
	if got := clip(s, 10); got != s {
		t.Errorf("clip at its length = %q", got)
	}
	if got := clip(s, 8); got != "üüüüü..." {
		t.Errorf("clip = %q", got)
	}
	if got := lastRunes("aéb€", 2); got != "b€" {
		t.Errorf("lastRunes = %q", got)
	}
	if got := clip("aéb€xyz", 5); got != "aé..." {
		t.Errorf("clip = %q", got)
	}
}

// A task the user rewrote keeps none of the planner's outputs for the old
// task, so Baton never asks its worker for them; a new title alone keeps
// them.
func TestEditedTaskDropsThePlannersOutputs(t *testing.T) {
	t.Parallel()
	def := `{"id":"a","title":"Write the overview","description":"Write docs/overview.md","scope":["."],"expected_outputs":["docs/overview.md"],"acceptance_criteria":["docs/overview.md exists"],"complexity":"low"}`
	base := []store.Task{{ID: "a", Title: "Write the overview", Description: "Write docs/overview.md", Scope: []string{"."}, Definition: json.RawMessage(def)}}
	desc, scope, title := "Write docs/store.md", []string{"store"}, "Document the store"
	out, err := Modifications{Edit: []TaskEdit{{ID: "a", Title: &title, Description: &desc, Scope: &scope}}}.Apply("r", base)
	if err != nil {
		t.Fatal(err)
	}
	if got := outputs.Planned(&out[0]); len(got) != 0 {
		t.Errorf("planned outputs after the rewrite = %v, want none", got)
	}
	var d protocol.Task
	if err := json.Unmarshal(out[0].Definition, &d); err != nil || d.Description != desc || d.Title != title || d.Scope[0] != "store" ||
		d.Complexity != "low" || len(d.AcceptanceCriteria) != 0 {
		t.Errorf("definition after the rewrite = %s (%v)", out[0].Definition, err)
	}
	out, err = Modifications{Edit: []TaskEdit{{ID: "a", Title: &title}}}.Apply("r", base)
	if err != nil {
		t.Fatal(err)
	}
	if got := outputs.Planned(&out[0]); len(got) != 1 || got[0] != "docs/overview.md" {
		t.Errorf("planned outputs after a new title = %v, want docs/overview.md", got)
	}
	if string(base[0].Definition) != def {
		t.Error("Apply changed its input")
	}
}
