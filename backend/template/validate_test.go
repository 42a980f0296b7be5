package template

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/templates"
)

// TestInvalidFixtures checks every file in testdata/invalid against the
// problems listed in the .err file beside it (one "pointer: message" a line).
func TestInvalidFixtures(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t, true)
	files, err := filepath.Glob("testdata/invalid/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("found %d fixtures in testdata/invalid, want at least 20", len(files))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			problems := m.Validate(data)
			if len(problems) == 0 {
				t.Fatalf("%s is accepted, but it is a fixture of an invalid template", file)
			}
			var sb strings.Builder
			for _, p := range problems {
				if strings.Contains(p.Message, "\n") {
					t.Errorf("problem message spans several lines: %q", p.Message)
				}
				sb.WriteString(p.String())
				sb.WriteByte('\n')
			}
			golden(t, strings.TrimSuffix(file, ".json")+".err", []byte(sb.String()))
		})
	}
}

func TestValidateAcceptsChildThatOmitsWhatItInherits(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t, true)
	tests := []struct {
		name string
		doc  string
	}{
		{"minimal child", `{"id": "mini", "name": "Mini", "extends": "_default"}`},
		{"child with checks", `{"id": "mini", "name": "Mini", "extends": "_default", "config": {"checks": ["go build ./...", "./scripts/check.sh --fast", "python3 -m pytest -q"], "checkTimeout": 120, "strictScope": true}}`},
		{"child of a child", `{"id": "mini", "name": "Mini", "extends": "my-docs-fr", "config": {"maxWorkers": 20}}`},
		{"child that starts its journal afresh", `{"id": "mini", "name": "Mini", "extends": "_default", "config": {"journal": {"enabled": true, "fresh": true}}}`},
		{"child overriding one prompt half", `{"id": "mini", "name": "Mini", "extends": "documentation", "prompts": {"workerExecution": {"system": "Be brief."}}}`},
		{"child overriding one field of a variable", `{"id": "mini", "name": "Mini", "extends": "documentation", "variables": {"AUDIENCE": {"default": "users"}, "DOC_STYLE": {"options": ["reference", "guide"]}}}`},
		{"child with typed variables", `{"id": "mini", "name": "Mini", "extends": "_default", "variables": {
			"A": {"type": "string", "label": "A", "default": "x"},
			"B": {"type": "text", "label": "B"},
			"C": {"type": "number", "label": "C", "default": 2.5},
			"D": {"type": "boolean", "label": "D", "default": false},
			"E": {"type": "select", "label": "E", "options": ["p", "q"], "default": "q"},
			"F": {"type": "list", "label": "F", "default": ["x", "y"]}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if problems := m.Validate([]byte(tc.doc)); problems != nil {
				t.Errorf("Validate: %v", problems)
			}
		})
	}
}

// The schema's permission modes are the one list of backend/session (the
// CLI's own): the validator takes each of them and refuses any other.
func TestSchemaPermissionModesAreTheSessionContracts(t *testing.T) {
	t.Parallel()
	var schema struct {
		Defs struct {
			Config struct {
				Properties struct {
					PermissionMode struct{ Enum []string }
				}
			}
		} `json:"$defs"`
	}
	if err := json.Unmarshal(templates.Schema(), &schema); err != nil {
		t.Fatal(err)
	}
	if got := schema.Defs.Config.Properties.PermissionMode.Enum; !slices.Equal(got, session.PermissionModes) {
		t.Errorf("templates/schema.json lists the permission modes %v, the session contract %v", got, session.PermissionModes)
	}
	m, _ := newManager(t, true)
	for _, mode := range append(slices.Clone(session.PermissionModes), "allowAll") {
		doc := `{"id": "mini", "name": "Mini", "extends": "_default", "config": {"permissionMode": "` + mode + `"}}`
		problems := m.Validate([]byte(doc))
		if valid := session.ValidPermissionMode(mode); valid != (problems == nil) {
			t.Errorf("permission mode %q: problems %v", mode, problems)
		}
	}
}
