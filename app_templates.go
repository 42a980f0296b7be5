package main

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	wailsruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/view"
)

var jsonFilter = []wailsruntime.FileFilter{{DisplayName: "Baton template (*.json)", Pattern: "*.json"}}

// ListTemplates returns every template, system ones first.
func (a *App) ListTemplates() ([]view.TemplateInfo, error) {
	list, err := a.Templates.List()
	if err != nil {
		return nil, templateError("list the templates", err)
	}
	return view.TemplateInfosOf(list), nil
}

// TemplateSource returns the JSON document of template id as stored, before
// inheritance: what the editor edits.
func (a *App) TemplateSource(id string) (string, error) {
	if err := needID(id); err != nil {
		return "", err
	}
	raw, err := a.Templates.Raw(id)
	if err != nil {
		return "", templateError("read the template", err)
	}
	return string(raw), nil
}

// ResolveTemplate returns template id with its inheritance applied and the
// template each value comes from.
func (a *App) ResolveTemplate(id string) (view.ResolvedTemplate, error) {
	if err := needID(id); err != nil {
		return view.ResolvedTemplate{}, err
	}
	r, err := a.Templates.Resolve(id)
	if err != nil {
		return view.ResolvedTemplate{}, templateError("resolve the template", err)
	}
	return view.ResolvedTemplateOf(r), nil
}

// ResolveTemplateDraft resolves a document as the editor holds it, before it
// is saved.
func (a *App) ResolveTemplateDraft(doc string) (view.ResolvedTemplate, error) {
	if err := needDocument(doc); err != nil {
		return view.ResolvedTemplate{}, err
	}
	r, err := a.Templates.ResolveDocument([]byte(doc))
	if err != nil {
		return view.ResolvedTemplate{}, templateError("resolve the template", err)
	}
	return view.ResolvedTemplateOf(r), nil
}

// ValidateTemplate checks a document as the editor holds it, with the same
// validator that saving uses. An empty list means it is valid.
func (a *App) ValidateTemplate(doc string) []view.TemplateProblem {
	return view.TemplateProblemsOf(a.Templates.Validate([]byte(doc)))
}

// CreateTemplate stores a new custom template; without an id, one is made
// from its name.
func (a *App) CreateTemplate(doc string) (view.Template, error) {
	if err := needDocument(doc); err != nil {
		return view.Template{}, err
	}
	t, err := a.Templates.Create([]byte(doc))
	if err != nil {
		return view.Template{}, templateError("save the template", err)
	}
	return view.TemplateOf(t), nil
}

// UpdateTemplate replaces custom template id with doc.
func (a *App) UpdateTemplate(id, doc string) (view.Template, error) {
	if err := needID(id); err != nil {
		return view.Template{}, err
	}
	if err := needDocument(doc); err != nil {
		return view.Template{}, err
	}
	t, err := a.Templates.Update(id, []byte(doc))
	if err != nil {
		return view.Template{}, templateError("save the template", err)
	}
	return view.TemplateOf(t), nil
}

// DeleteTemplate removes custom template id.
func (a *App) DeleteTemplate(id string) error {
	if err := needID(id); err != nil {
		return err
	}
	if err := a.Templates.Delete(id); err != nil {
		return templateError("delete the template", err)
	}
	return nil
}

// DuplicateTemplate makes a custom template that extends id, named name
// ("Copy of …" when empty).
func (a *App) DuplicateTemplate(id, name string) (view.Template, error) {
	if err := needID(id); err != nil {
		return view.Template{}, err
	}
	if utf8.RuneCountInString(strings.TrimSpace(name)) > 80 {
		return view.Template{}, errors.New("The name is too long: use at most 80 characters.")
	}
	t, err := a.Templates.Duplicate(id, name)
	if err != nil {
		return view.Template{}, templateError("duplicate the template", err)
	}
	return view.TemplateOf(t), nil
}

// GenerateTemplateID returns an unused id made from name.
func (a *App) GenerateTemplateID(name string) (string, error) {
	id, err := a.Templates.GenerateID(name)
	if err != nil {
		return "", templateError("choose an id for the template", err)
	}
	return id, nil
}

// ImportTemplate asks for a template file and stores it as a new template.
func (a *App) ImportTemplate() (view.TemplateImport, error) {
	if a.ctx == nil {
		return view.TemplateImport{}, errNeedsWindow("Importing a template file")
	}
	path, err := wailsruntime.OpenFileDialog(a.ctx, wailsruntime.OpenDialogOptions{
		Title:   "Import a template",
		Filters: jsonFilter,
	})
	if err != nil {
		return view.TemplateImport{}, templateError("open the file picker", err)
	}
	if path == "" {
		return view.TemplateImport{Cancelled: true}, nil
	}
	t, err := a.Templates.Import(path)
	if err != nil {
		return view.TemplateImport{}, templateError("import "+filepath.Base(path), err)
	}
	return view.TemplateImport{Template: view.TemplateOf(t)}, nil
}

// ExportTemplate asks where to save template id and writes it there: as
// stored, or with resolved, complete with everything it inherits.
func (a *App) ExportTemplate(id string, resolved bool) (view.TemplateExport, error) {
	if err := needID(id); err != nil {
		return view.TemplateExport{}, err
	}
	if a.ctx == nil {
		return view.TemplateExport{}, errNeedsWindow("Saving the template to a file")
	}
	name := id
	if resolved {
		name += "-resolved"
	}
	path, err := wailsruntime.SaveFileDialog(a.ctx, wailsruntime.SaveDialogOptions{
		Title:           "Export the template",
		DefaultFilename: name + ".json",
		Filters:         jsonFilter,
	})
	if err != nil {
		return view.TemplateExport{}, templateError("open the file picker", err)
	}
	if path == "" {
		return view.TemplateExport{Cancelled: true}, nil
	}
	if filepath.Ext(path) == "" {
		path += ".json"
	}
	if err := a.Templates.Export(id, path, resolved); err != nil {
		return view.TemplateExport{}, templateError("export the template", err)
	}
	return view.TemplateExport{Path: path}, nil
}

// needID checks that a binding was given a template id at all; the manager
// checks its form.
func needID(id string) error {
	if strings.TrimSpace(id) == "" {
		return errors.New("No template is selected: choose one from the list first.")
	}
	return nil
}

// needDocument checks that a binding was given a document at all.
func needDocument(doc string) error {
	if strings.TrimSpace(doc) == "" {
		return errors.New("The template is empty: a template is a JSON object with at least a name.")
	}
	if len(doc) > template.MaxSize {
		return fmt.Errorf("The template is larger than %d bytes: shorten its prompts.", template.MaxSize)
	}
	return nil
}

// templateError turns an error from the template manager into one sentence
// for the user. The manager's own errors already read as sentences; anything
// else (a disk error) is logged in full and named briefly.
func templateError(action string, err error) error {
	var te *template.Error
	if errors.As(err, &te) {
		return errors.New(sentence(te.Message))
	}
	slog.Error("template binding failed", "component", "app", "action", action, "err", err)
	return errors.New(sentence(fmt.Sprintf("Baton could not %s: %v", action, err)))
}

// sentence starts s with a capital letter and ends it with a full stop.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[n:]
	if !strings.ContainsAny(s[len(s)-1:], ".!?") {
		s += "."
	}
	return s
}
