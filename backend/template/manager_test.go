package template

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestCreateGetUpdateDuplicateDelete(t *testing.T) {
	t.Parallel()
	m, rec := newManager(t, false)

	created, err := m.Create([]byte(`{"name": "Release notes", "extends": "documentation", "config": {"maxWorkers": 2}}`))
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if created.ID != "release-notes" || created.Config.MaxWorkers != 2 || created.Icon != "book" {
		t.Errorf("created = id %q, maxWorkers %d, icon %q; want release-notes, 2, book (inherited)", created.ID, created.Config.MaxWorkers, created.Icon)
	}
	raw, err := m.Raw("release-notes")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(raw), "{\n  \"id\": \"release-notes\",\n  \"name\": \"Release notes\"") {
		t.Errorf("stored document does not start with the generated id and keep the author's order:\n%s", raw)
	}

	// File and directory modes.
	fi, err := os.Stat(filepath.Join(m.Dir(), "release-notes.json"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode = %v, want 0600", fi.Mode().Perm())
	}
	di, err := os.Stat(m.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Errorf("directory mode = %v, want 0700", di.Mode().Perm())
	}

	list, err := m.List()
	if err != nil {
		t.Fatal(err)
	}
	last := list[len(list)-1]
	if last.ID != "release-notes" || last.IsSystem || last.Extends != "documentation" || last.Error != "" {
		t.Errorf("last list entry = %+v, want the custom release-notes extending documentation", last)
	}
	if !list[0].IsSystem || list[0].ID != "_default" {
		t.Errorf("first list entry = %+v, want the system template _default", list[0])
	}

	updated, err := m.Update("release-notes", []byte(`{"name": "Release notes", "extends": "documentation", "config": {"maxWorkers": 3}}`))
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if updated.Config.MaxWorkers != 3 {
		t.Errorf("updated maxWorkers = %d, want 3", updated.Config.MaxWorkers)
	}

	dup, err := m.Duplicate("release-notes", "")
	if err != nil {
		t.Fatalf("Duplicate: %v", err)
	}
	if dup.ID != "copy-of-release-notes" || dup.Extends != "release-notes" || dup.Name != "Copy of Release notes" || dup.Config.MaxWorkers != 3 {
		t.Errorf("duplicate = id %q extends %q name %q maxWorkers %d", dup.ID, dup.Extends, dup.Name, dup.Config.MaxWorkers)
	}
	dup2, err := m.Duplicate("documentation", "Release notes")
	if err != nil {
		t.Fatalf("Duplicate of a system template: %v", err)
	}
	if dup2.ID != "release-notes-2" || dup2.Extends != "documentation" {
		t.Errorf("second duplicate = id %q extends %q, want release-notes-2 extending documentation", dup2.ID, dup2.Extends)
	}

	if err := m.Delete("release-notes"); !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), `"copy-of-release-notes"`) {
		t.Errorf("Delete of a parent = %v, want ErrInUse naming copy-of-release-notes", err)
	}
	for _, id := range []string{"copy-of-release-notes", "release-notes", "release-notes-2"} {
		if err := m.Delete(id); err != nil {
			t.Fatalf("Delete %s: %v", id, err)
		}
	}
	if left, err := os.ReadDir(m.Dir()); err != nil || len(left) != 0 {
		t.Errorf("after deleting every template the directory holds %v (%v); want nothing, not even a temporary file", left, err)
	}
	if _, err := m.Get("release-notes"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after Delete = %v, want ErrNotFound", err)
	}
	want := []string{EventCreated, EventUpdated, EventCreated, EventCreated, EventDeleted, EventDeleted, EventDeleted}
	if got := rec.names(); !slices.Equal(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
	rec.mu.Lock()
	info, ok := rec.events[0].payload.(TemplateInfo)
	del, _ := rec.events[len(rec.events)-1].payload.(string)
	rec.mu.Unlock()
	if !ok || info.ID != "release-notes" || del != "release-notes-2" {
		t.Errorf("payloads = %#v and %#v, want the created TemplateInfo and the deleted id", info, del)
	}
}

// TestBadInputLeavesFilesAsTheyWere runs every refused operation against a
// store and checks the error and that no file changed.
func TestBadInputLeavesFilesAsTheyWere(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		op   func(m *Manager) error
		want []error
		says []string // substrings of the message
	}{
		{"invalid JSON", create(`{"id": "x", "name": "X",}`), []error{ErrInvalid}, []string{"line 1, column 26"}},
		{"not an object", create(`[1, 2]`), []error{ErrInvalid}, []string{"JSON object"}},
		{"schema violation", create(`{"id": "x", "name": "X", "extends": "_default", "config": {"maxWorkers": 99}}`), []error{ErrInvalid}, []string{`template "x" is invalid`, "/config/maxWorkers"}},
		{"several violations", create(`{"id": "x", "name": "X", "extends": "_default", "config": {"maxWorkers": 99, "maxRetries": 99}}`), []error{ErrInvalid}, []string{"(and 1 more problem)"}},
		{"incomplete root", create(`{"id": "x", "name": "X"}`), []error{ErrInvalid}, []string{"missing properties"}},
		{"circular extends", create(`{"id": "x", "name": "X", "extends": "loop-a"}`), []error{ErrInvalid, ErrCycle}, []string{"x -> loop-a -> loop-b -> loop-a"}},
		{"update into a cycle", update_("my-docs", `{"name": "My docs", "extends": "my-docs-fr"}`), []error{ErrInvalid, ErrCycle}, []string{"my-docs -> my-docs-fr -> my-docs"}},
		{"missing parent", create(`{"id": "x", "name": "X", "extends": "nowhere"}`), []error{ErrInvalid, ErrMissingParent}, []string{`"nowhere"`, "x -> nowhere"}},
		{"id with ../", create(`{"id": "../x", "name": "X", "extends": "_default"}`), []error{ErrBadID}, []string{`"../x"`}},
		{"update id with ../", update_("../my-docs", `{"name": "X", "extends": "_default"}`), []error{ErrBadID}, nil},
		{"delete id with ../", del("../store/my-docs"), []error{ErrBadID}, nil},
		{"overwrite a system template", create(`{"id": "documentation", "name": "Mine", "extends": "_default"}`), []error{ErrReadOnly}, []string{`"documentation" is a system template`}},
		{"update a system template", update_("_default", `{"name": "Mine"}`), []error{ErrReadOnly}, nil},
		{"delete a system template", del("sparc"), []error{ErrReadOnly}, nil},
		{"delete a parent", del("my-docs"), []error{ErrInUse}, []string{`"my-docs-fr" extends it`}},
		{"create an existing id", create(`{"id": "my-docs", "name": "X", "extends": "_default"}`), []error{ErrExists}, nil},
		{"update a missing template", update_("ghost", `{"name": "X", "extends": "_default"}`), []error{ErrNotFound}, nil},
		{"delete a missing template", del("ghost"), []error{ErrNotFound}, nil},
		{"update that changes the id", update_("my-docs", `{"id": "other", "name": "X", "extends": "_default"}`), []error{ErrInvalid}, []string{`from "my-docs" to "other"`}},
		{"update that breaks a child", update_("my-docs", `{"name": "My docs", "extends": "_default", "variables": {"OUTPUT_DIR": {"type": "number", "label": "Output", "default": 1}}}`), []error{ErrInvalid}, []string{`"my-docs-fr"`}},
		{"import an invalid file", func(m *Manager) error {
			_, err := m.Import("testdata/invalid/max-workers.json")
			return err
		}, []error{ErrInvalid}, []string{"maxWorkers"}},
		{"import a missing file", func(m *Manager) error {
			_, err := m.Import("testdata/does-not-exist.json")
			return err
		}, []error{os.ErrNotExist}, nil},
		{"duplicate a missing template", func(m *Manager) error {
			_, err := m.Duplicate("ghost", "X")
			return err
		}, []error{ErrNotFound}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, rec := newManager(t, true)
			before := snapshot(t, filepath.Dir(m.Dir()))
			err := tc.op(m)
			if err == nil {
				t.Fatal("the operation succeeded; want an error")
			}
			for _, w := range tc.want {
				if !errors.Is(err, w) {
					t.Errorf("error %q is not %v", err, w)
				}
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || msg == "" {
				t.Errorf("error is not one sentence: %q", msg)
			}
			for _, s := range tc.says {
				if !strings.Contains(msg, s) {
					t.Errorf("error %q does not say %q", msg, s)
				}
			}
			sameSnapshot(t, before, snapshot(t, filepath.Dir(m.Dir())))
			if ev := rec.names(); len(ev) > 0 {
				t.Errorf("a refused operation sent events %v", ev)
			}
		})
	}
}

func create(doc string) func(*Manager) error {
	return func(m *Manager) error { _, err := m.Create([]byte(doc)); return err }
}

func update_(id, doc string) func(*Manager) error {
	return func(m *Manager) error { _, err := m.Update(id, []byte(doc)); return err }
}

func del(id string) func(*Manager) error {
	return func(m *Manager) error { return m.Delete(id) }
}

func TestResolveInheritance(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t, true)
	r, err := m.Resolve("my-docs-fr")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"my-docs-fr", "my-docs", "documentation", "_default"}; !slices.Equal(r.Chain, want) {
		t.Errorf("chain = %v, want %v", r.Chain, want)
	}
	tpl := r.Template
	tests := []struct {
		what      string
		got, want any
	}{
		{"scalar from the child", tpl.Name, "My docs in French"},
		{"scalar from the parent", tpl.Config.MaxWorkers, 2},
		{"scalar from the grandparent", tpl.Icon, "book"},
		{"scalar from the root", tpl.Config.InactivityTimeout, 300},
		{"object merged across levels", tpl.Config.Models, Models{Main: "sonnet", Easy: "haiku", Normal: "sonnet", Complex: "sonnet"}},
		{"array replaced, not appended", fmt.Sprint(tpl.Tags), "[mine]"},
		{"child enables a phase", tpl.Phases.Verification.Enabled, true},
		{"phase fields kept from the root", tpl.Phases.Verification.MaxRemediationRounds, 1},
		{"variable overridden in part", tpl.Variables["OUTPUT_DIR"].Default, "docs-fr"},
		{"variable label from the parent", tpl.Variables["OUTPUT_DIR"].Label, "Output folder"},
		{"variable keeps inherited fields", tpl.Variables["OUTPUT_DIR"].Required, true},
		{"variable added by the child", tpl.Variables["LANGUAGE"].Options, []string{"French", "English"}},
		{"extends names the direct parent", tpl.Extends, "my-docs"},
	}
	for _, tc := range tests {
		if fmt.Sprint(tc.got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: got %v, want %v", tc.what, tc.got, tc.want)
		}
	}
	sources := []struct {
		pointer, from string
		inherited     bool
	}{
		{"/name", "my-docs-fr", false},
		{"/config/maxWorkers", "my-docs", true},
		{"/config/models/complex", "my-docs", true},
		{"/config/models/easy", "_default", true},
		{"/icon", "documentation", true},
		{"/tags", "my-docs", true},
		{"/phases/verification/enabled", "my-docs-fr", false},
		{"/phases/verification/timeout", "_default", true},
		{"/variables/OUTPUT_DIR/default", "my-docs-fr", false},
		{"/variables/OUTPUT_DIR/label", "my-docs", true},
		{"/variables/OUTPUT_DIR/description", "documentation", true},
		{"/variables/LANGUAGE/default", "my-docs-fr", false},
		{"/config", "_default", true}, // an object with inherited values below it
	}
	for _, s := range sources {
		from, inh := r.Source(s.pointer)
		if from != s.from || inh != s.inherited {
			t.Errorf("Source(%s) = %q, %v; want %q, %v", s.pointer, from, inh, s.from, s.inherited)
		}
	}
	if _, ok := r.Sources["/extends"]; ok {
		t.Error("the resolved template lists /extends as a value; it is removed by resolution")
	}
}

func TestMergeObjects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, parent, child, want string
	}{
		{"objects merge", `{"a": {"x": 1, "y": 2}}`, `{"a": {"y": 3, "z": 4}}`, `{"a": {"x": 1, "y": 3, "z": 4}}`},
		{"arrays replace", `{"a": [1, 2, 3]}`, `{"a": [4]}`, `{"a": [4]}`},
		{"empty array replaces", `{"a": [1]}`, `{"a": []}`, `{"a": []}`},
		{"scalar replaces object", `{"a": {"x": 1}}`, `{"a": 5}`, `{"a": 5}`},
		{"object replaces scalar", `{"a": 5}`, `{"a": {"x": 1}}`, `{"a": {"x": 1}}`},
		{"false and zero replace", `{"a": true, "b": 7}`, `{"a": false, "b": 0}`, `{"a": false, "b": 0}`},
		{"null replaces", `{"a": 1}`, `{"a": null}`, `{"a": null}`},
		{"deep merge", `{"a": {"b": {"c": 1, "d": 2}}}`, `{"a": {"b": {"d": 3}}}`, `{"a": {"b": {"c": 1, "d": 3}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var p, c, w map[string]any
			for _, x := range []struct {
				s string
				v *map[string]any
			}{{tc.parent, &p}, {tc.child, &c}, {tc.want, &w}} {
				if err := json.Unmarshal([]byte(x.s), x.v); err != nil {
					t.Fatal(err)
				}
			}
			got, _ := json.Marshal(mergeObjects(p, c))
			want, _ := json.Marshal(w)
			if string(got) != string(want) {
				t.Errorf("merge = %s, want %s", got, want)
			}
		})
	}
}

func TestGenerateIDAndSlug(t *testing.T) {
	t.Parallel()
	slugs := []struct{ name, want string }{
		{"Release notes", "release-notes"},
		{"  API / REST docs!! ", "api-rest-docs"},
		{"Café Überprüfung", "cafe-uberprufung"},
		{"../../etc/passwd", "etc-passwd"},
		{"___", "template"},
		{"", "template"},
		{"日本語", "template"},
		{strings.Repeat("ab ", 40), strings.TrimRight(strings.Repeat("ab-", 22)[:64], "-")},
	}
	for _, s := range slugs {
		got := Slug(s.name)
		if got != s.want {
			t.Errorf("Slug(%q) = %q, want %q", s.name, got, s.want)
		}
		if !IDPattern.MatchString(got) {
			t.Errorf("Slug(%q) = %q does not match the id pattern", s.name, got)
		}
	}
	m, _ := newManager(t, true)
	ids := []struct{ name, want string }{
		{"Fresh", "fresh"},
		{"Documentation", "documentation-2"}, // a system id
		{"My docs", "my-docs-2"},             // a custom id
		{strings.Repeat("x", 70), strings.Repeat("x", 64)},
	}
	for _, tc := range ids {
		got, err := m.GenerateID(tc.name)
		if err != nil || got != tc.want {
			t.Errorf("GenerateID(%q) = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	if _, err := m.Create([]byte(`{"id": "` + strings.Repeat("x", 64) + `", "name": "X", "extends": "_default"}`)); err != nil {
		t.Fatal(err)
	}
	got, _ := m.GenerateID(strings.Repeat("x", 70))
	if got != strings.Repeat("x", 62)+"-2" {
		t.Errorf("GenerateID of a taken 64-character id = %q, want it shortened to fit the suffix", got)
	}
}

func TestDefaultDir(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, env, config, want string
		configErr               error
	}{
		{"env wins", "/tmp/cfg", "/home/u/.config", filepath.Join("/tmp/cfg", "templates"), nil},
		{"user config dir", "", "/home/u/.config", filepath.Join("/home/u/.config", "baton", "templates"), nil},
		{"no config dir", "", "", "", errors.New("$HOME is not defined")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := defaultDir(func(string) string { return tc.env }, func() (string, error) { return tc.config, tc.configErr })
			if got != tc.want || (err != nil) != (tc.configErr != nil) {
				t.Errorf("defaultDir = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestImportExport(t *testing.T) {
	t.Parallel()
	src, _ := newManager(t, true)
	out := t.TempDir()
	raw := filepath.Join(out, "raw.json")
	full := filepath.Join(out, "full.json")
	if err := src.Export("my-docs-fr", raw, false); err != nil {
		t.Fatal(err)
	}
	if err := src.Export("my-docs-fr", full, true); err != nil {
		t.Fatal(err)
	}
	stored, _ := src.Raw("my-docs-fr")
	if got, _ := os.ReadFile(raw); string(got) != string(stored) {
		t.Errorf("raw export differs from the stored document")
	}
	if _, err := src.Import(raw); !errors.Is(err, ErrExists) {
		t.Errorf("Import over an existing id = %v, want ErrExists", err)
	}

	dst, _ := newManager(t, false)
	if _, err := dst.Import(raw); !errors.Is(err, ErrMissingParent) {
		t.Errorf("Import of a child without its parent = %v, want ErrMissingParent", err)
	}
	got, err := dst.Import(full)
	if err != nil {
		t.Fatalf("Import of a resolved export: %v", err)
	}
	want, _ := src.Get("my-docs-fr")
	want.Extends = ""
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(want)
	if string(a) != string(b) {
		t.Errorf("imported resolved template differs from the original:\n got %s\nwant %s", a, b)
	}
	if err := src.Export("ghost", filepath.Join(out, "ghost.json"), false); !errors.Is(err, ErrNotFound) {
		t.Errorf("Export of a missing template = %v, want ErrNotFound", err)
	}
}

func TestListShowsBrokenCustomTemplates(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t, true)
	if err := os.WriteFile(filepath.Join(m.Dir(), "bad.json"), []byte(`{"id": "bad", "name": "Bad",`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(m.Dir(), "wrong-name.json"), []byte(`{"id": "other", "name": "W", "extends": "_default"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"notes.txt", ".hidden.json", "Upper.json", "documentation.json"} {
		if err := os.WriteFile(filepath.Join(m.Dir(), f), []byte(`{}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	list, err := m.List()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]TemplateInfo{}
	for _, i := range list {
		if _, dup := byID[i.ID]; dup {
			t.Errorf("%s is listed twice", i.ID)
		}
		byID[i.ID] = i
	}
	wantErr := map[string]string{
		"bad":        "not valid JSON",
		"wrong-name": "does not match the file name",
		"loop-a":     "circular",
		"loop-b":     "circular",
		"my-docs":    "",
		"my-docs-fr": "",
	}
	for id, sub := range wantErr {
		info, ok := byID[id]
		switch {
		case !ok:
			t.Errorf("%s is not listed", id)
		case sub == "" && info.Error != "":
			t.Errorf("%s has error %q, want none", id, info.Error)
		case !strings.Contains(info.Error, sub):
			t.Errorf("%s has error %q, want one saying %q", id, info.Error, sub)
		}
	}
	if len(byID) != len(systemIDs)+len(wantErr) {
		t.Errorf("listed %d templates, want %d (files with bad names ignored)", len(byID), len(systemIDs)+len(wantErr))
	}
	if byID["documentation"].IsSystem != true {
		t.Error("a custom file named like a system template replaced the system template")
	}
}

func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	m, rec := newManager(t, true)
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 10 {
		wg.Add(4)
		go func() {
			defer wg.Done()
			_, err := m.Create([]byte(fmt.Sprintf(`{"name": "Parallel %d", "extends": "my-docs"}`, i)))
			errs <- err
		}()
		go func() {
			defer wg.Done()
			_, err := m.List()
			errs <- err
		}()
		go func() {
			defer wg.Done()
			_, err := m.Get("my-docs-fr")
			errs <- err
		}()
		go func() {
			defer wg.Done()
			_, err := m.Duplicate("sparc", "Same name")
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	list, _ := m.List()
	if len(list) != len(systemIDs)+4+20 {
		t.Errorf("listed %d templates after 20 concurrent creates, want %d", len(list), len(systemIDs)+4+20)
	}
	if n := len(rec.names()); n != 20 {
		t.Errorf("%d events, want 20", n)
	}
}

func TestResolveDocumentOverStoredTemplates(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t, true)
	tests := []struct {
		name    string
		doc     string
		want    func(Resolved) string // "" when right
		wantErr error
	}{
		{"unsaved child of a custom template", `{"id": "draft", "name": "Draft", "extends": "my-docs", "config": {"maxRetries": 5}}`, func(r Resolved) string {
			if from, inh := r.Source("/config/maxRetries"); from != "draft" || inh {
				return fmt.Sprintf("maxRetries from %q inherited %v", from, inh)
			}
			if from, inh := r.Source("/config/maxWorkers"); from != "my-docs" || !inh {
				return fmt.Sprintf("maxWorkers from %q inherited %v", from, inh)
			}
			if !slices.Equal(r.Chain, []string{"draft", "my-docs", "documentation", "_default"}) {
				return fmt.Sprintf("chain %v", r.Chain)
			}
			return ""
		}, nil},
		{"unsaved edit of a stored template", `{"id": "my-docs", "name": "My docs, edited", "extends": "code-review"}`, func(r Resolved) string {
			if r.Template.Name != "My docs, edited" || r.Template.Config.PermissionMode != "plan" {
				return fmt.Sprintf("name %q, permission mode %q: the draft, not the stored file, must be resolved", r.Template.Name, r.Template.Config.PermissionMode)
			}
			return ""
		}, nil},
		{"edit that closes a loop", `{"id": "my-docs", "name": "My docs", "extends": "my-docs-fr"}`, nil, ErrCycle},
		{"schema violation", `{"id": "draft", "name": "Draft", "extends": "_default", "icon": "rocket"}`, nil, ErrInvalid},
		{"broken JSON", `{"id": `, nil, ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			before := snapshot(t, m.Dir())
			r, err := m.ResolveDocument([]byte(tc.doc))
			sameSnapshot(t, before, snapshot(t, m.Dir()))
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || len(Problems(err)) == 0 {
					t.Fatalf("error = %v with problems %v, want %v with problems", err, Problems(err), tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if msg := tc.want(r); msg != "" {
				t.Error(msg)
			}
		})
	}
}
