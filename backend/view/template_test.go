package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/templates"
)

// The template views keep every JSON field of the template package's
// types, with the same names.
func TestTemplateViewsKeepTheJSON(t *testing.T) {
	t.Parallel()
	tpl := filled[template.Template](t)
	sameJSON(t, "template", tpl, TemplateOf(tpl))
	sameJSON(t, "empty template", template.Template{}, TemplateOf(template.Template{}))
	info := filled[template.TemplateInfo](t)
	sameJSON(t, "template list", []template.TemplateInfo{info}, TemplateInfosOf([]template.TemplateInfo{info}))
	r := filled[template.Resolved](t)
	sameJSON(t, "resolved template", r, ResolvedTemplateOf(r))
	problem := filled[template.ValidationError](t)
	sameJSON(t, "problems", []template.ValidationError{problem}, TemplateProblemsOf([]template.ValidationError{problem}))
	if got := TemplateProblemsOf(nil); got == nil || len(got) != 0 {
		t.Errorf("a valid template's problems = %#v, want an empty list", got)
	}
}

// templates/schema.json is the contract: every system template, resolved,
// makes the very same JSON as a view and after the way back, and that JSON
// passes the schema check that saving uses.
func TestSystemTemplatesKeepTheirJSON(t *testing.T) {
	t.Parallel()
	m, err := template.New(t.TempDir(), template.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ids := templates.SystemIDs()
	if len(ids) < 3 {
		t.Fatalf("system templates %v", ids)
	}
	for _, id := range ids {
		r, err := m.Resolve(id)
		if err != nil {
			t.Fatalf("resolve %s: %v", id, err)
		}
		want := marshal(t, r)
		got := marshal(t, ResolvedTemplateOf(r))
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the view's JSON differs from the template's %s", id, where(want, got))
			continue
		}
		var back template.Resolved
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatal(err)
		}
		if again := marshal(t, back); !bytes.Equal(again, want) {
			t.Errorf("%s: the JSON differs after the way back %s", id, where(want, again))
		}
		if problems := m.Validate(marshal(t, TemplateOf(r.Template))); len(problems) > 0 {
			t.Errorf("%s: the view's JSON fails the schema: %v", id, problems)
		}
	}
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// where shows a little of a and b around the first byte where they differ.
func where(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	cut := func(s []byte) []byte { return s[max(0, i-60):min(len(s), i+60)] }
	return fmt.Sprintf("at byte %d:\nwant …%s…\ngot  …%s…", i, cut(a), cut(b))
}
