package template

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/baton-app/baton/templates"
)

// TestBuiltinsMatchTheSchema keeps the schema's reserved variable names and
// the Go list in step.
func TestBuiltinsMatchTheSchema(t *testing.T) {
	t.Parallel()
	var schema struct {
		Properties struct {
			Variables struct {
				Properties map[string]bool `json:"properties"`
			} `json:"variables"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(templates.Schema(), &schema); err != nil {
		t.Fatal(err)
	}
	var reserved, builtins []string
	for name, allowed := range schema.Properties.Variables.Properties {
		if !allowed {
			reserved = append(reserved, name)
		}
	}
	for _, b := range Builtins() {
		builtins = append(builtins, b.Name)
		if b.Description == "" || len(b.Phases) == 0 {
			t.Errorf("builtin %s lacks a description or phases", b.Name)
		}
	}
	slices.Sort(reserved)
	slices.Sort(builtins)
	if !slices.Equal(reserved, builtins) {
		t.Errorf("the schema reserves %v, but Builtins lists %v", reserved, builtins)
	}
}
