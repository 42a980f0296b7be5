package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/template"
)

func newTemplateApp(t *testing.T) (*App, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "templates")
	m, err := template.New(dir, template.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return NewApp(Services{Templates: m}), dir
}

func TestTemplateBindingsCheckInput(t *testing.T) {
	t.Parallel()
	a, dir := newTemplateApp(t)
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"source without id", func() error { _, err := a.TemplateSource(" "); return err }, "No template is selected"},
		{"resolve without id", func() error { _, err := a.ResolveTemplate(""); return err }, "No template is selected"},
		{"delete without id", func() error { return a.DeleteTemplate("") }, "No template is selected"},
		{"export without id", func() error { _, err := a.ExportTemplate("", false); return err }, "No template is selected"},
		{"create empty", func() error { _, err := a.CreateTemplate("  \n"); return err }, "The template is empty"},
		{"update empty", func() error { _, err := a.UpdateTemplate("mine", ""); return err }, "The template is empty"},
		{"draft too large", func() error { _, err := a.ResolveTemplateDraft(strings.Repeat("x", template.MaxSize+1)); return err }, "larger than"},
		{"duplicate with a long name", func() error { _, err := a.DuplicateTemplate("documentation", strings.Repeat("n", 81)); return err }, "too long"},
		{"path in id", func() error { return a.DeleteTemplate("../etc") }, "is not a valid template id"},
		{"delete a system template", func() error { return a.DeleteTemplate("_default") }, "is a system template"},
		{"update a system template", func() error { _, err := a.UpdateTemplate("sparc", `{"name":"x"}`); return err }, "is a system template"},
		{"create invalid", func() error {
			_, err := a.CreateTemplate(`{"name":"X","extends":"_default","config":{"maxWorkers":99}}`)
			return err
		}, "/config/maxWorkers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.call()
			if err == nil {
				t.Fatalf("no error, want one containing %q", tt.want)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.want) {
				t.Errorf("error %q does not contain %q", msg, tt.want)
			}
			if msg != sentence(msg) {
				t.Errorf("error %q is not one sentence with a capital and a full stop", msg)
			}
		})
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("refused calls wrote into %s (stat: %v)", dir, err)
	}
}

func TestTemplateBindingsRoundTrip(t *testing.T) {
	t.Parallel()
	a, _ := newTemplateApp(t)
	if problems := a.ValidateTemplate(`{"id":"mine","name":"Mine","extends":"_default"}`); problems == nil || len(problems) != 0 {
		t.Fatalf("valid draft: problems = %#v, want an empty list", problems)
	}
	problems := a.ValidateTemplate(`{"id":"mine","name":"Mine","extends":"_default","config":{"maxWorkers":0}}`)
	if len(problems) != 1 || problems[0].Pointer != "/config/maxWorkers" {
		t.Fatalf("problems = %#v, want one at /config/maxWorkers", problems)
	}
	dup, err := a.DuplicateTemplate("documentation", "")
	if err != nil {
		t.Fatal(err)
	}
	if dup.Extends != "documentation" || dup.Name != "Copy of Documentation" {
		t.Errorf("duplicate = %q extends %q, want \"Copy of Documentation\" extends documentation", dup.Name, dup.Extends)
	}
	src, err := a.TemplateSource(dup.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.UpdateTemplate(dup.ID, strings.Replace(src, `"1.0.0"`, `"1.1.0"`, 1)); err != nil {
		t.Fatal(err)
	}
	r, err := a.ResolveTemplate(dup.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Template.Version != "1.1.0" || r.Sources["/config/maxWorkers"] != "documentation" {
		t.Errorf("resolved version %q, maxWorkers from %q; want 1.1.0 and documentation", r.Template.Version, r.Sources["/config/maxWorkers"])
	}
	if err := a.DeleteTemplate(dup.ID); err != nil {
		t.Fatal(err)
	}
	list, err := a.ListTemplates()
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range list {
		if info.ID == dup.ID {
			t.Errorf("%s is still listed after delete", dup.ID)
		}
	}
}

func TestSentence(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"there is no template \"x\"": "There is no template \"x\".",
		"Done.":                      "Done.",
		"":                           "",
		"élan?":                      "Élan?",
	} {
		if got := sentence(in); got != want {
			t.Errorf("sentence(%q) = %q, want %q", in, got, want)
		}
	}
}
