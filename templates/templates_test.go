package templates

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestSystemTemplatesAreEmbedded(t *testing.T) {
	t.Parallel()
	want := []string{"_default", "bug-hunt", "code-review", "documentation", "exploration", "refactor", "sparc", "team-review", "test-coverage"}
	if got := SystemIDs(); !slices.Equal(got, want) {
		t.Fatalf("SystemIDs() = %v, want %v", got, want)
	}
	for _, id := range want {
		b, ok := System(id)
		if !ok {
			t.Errorf("System(%q) is missing", id)
			continue
		}
		var doc struct{ ID string }
		if err := json.Unmarshal(b, &doc); err != nil || doc.ID != id {
			t.Errorf("System(%q) has id %q (%v)", id, doc.ID, err)
		}
	}
}

func TestSystemRejectsOtherNames(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"", "schema", "../templates/schema", "_default.json", "missing", "sub/dir"} {
		if _, ok := System(id); ok {
			t.Errorf("System(%q) returned a template", id)
		}
	}
}

func TestSchemaIsJSONWithItsID(t *testing.T) {
	t.Parallel()
	var s struct {
		Schema string `json:"$schema"`
		ID     string `json:"$id"`
	}
	if err := json.Unmarshal(Schema(), &s); err != nil {
		t.Fatal(err)
	}
	if s.ID != SchemaURL || s.Schema != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("schema $id %q, $schema %q", s.ID, s.Schema)
	}
}
