package template

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/baton-app/baton/backend/atomicfile"
	"github.com/baton-app/baton/backend/permrules"
	"github.com/baton-app/baton/templates"
)

// IDPattern is what a custom template id must match before it touches a
// path. System ids may also be "_default".
var IDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// MaxSize is the largest template document accepted, in bytes.
const MaxSize = 1 << 20

// Options are the optional dependencies of a Manager.
type Options struct {
	// Notify receives template:created, template:updated and template:deleted.
	Notify Notifier
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// Manager lists, resolves, checks and stores templates: the embedded system
// templates, read-only, and the user's templates in one directory. It is safe
// for concurrent use.
type Manager struct {
	dir       string
	notify    Notifier
	log       *slog.Logger
	v         *validator
	system    map[string]map[string]any
	systemRaw map[string][]byte
	mu        sync.RWMutex
}

// DefaultDir returns where custom templates live: $BATON_CONFIG_DIR/templates
// when that variable is set, else os.UserConfigDir()/baton/templates.
func DefaultDir() (string, error) {
	return defaultDir(os.Getenv, os.UserConfigDir)
}

func defaultDir(getenv func(string) string, userConfigDir func() (string, error)) (string, error) {
	if d := getenv("BATON_CONFIG_DIR"); d != "" {
		return filepath.Join(d, "templates"), nil
	}
	d, err := userConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the user config directory: %w", err)
	}
	return filepath.Join(d, "baton", "templates"), nil
}

// New returns a Manager that keeps custom templates in dir. The directory is
// created (mode 0700) on the first write. Every system template is checked;
// a broken one is an error.
func New(dir string, opts Options) (*Manager, error) {
	if dir == "" {
		return nil, errors.New("new template manager: no directory given")
	}
	v, err := newValidator()
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	m := &Manager{
		dir:       dir,
		notify:    opts.Notify,
		log:       log.With("component", "template"),
		v:         v,
		system:    map[string]map[string]any{},
		systemRaw: map[string][]byte{},
	}
	for _, id := range templates.SystemIDs() {
		raw, _ := templates.System(id)
		doc, perr := decodeJSON(raw)
		obj, ok := doc.(map[string]any)
		if perr != nil || !ok {
			return nil, fmt.Errorf("system template %q is not a JSON object", id)
		}
		m.system[id] = obj
		m.systemRaw[id] = raw
	}
	for id := range m.system {
		if problems := m.check(m.system[id], nil); len(problems) > 0 {
			return nil, fmt.Errorf("system template %q: %w", id, invalidError(id, problems))
		}
	}
	return m, nil
}

// Dir returns the directory of custom templates.
func (m *Manager) Dir() string { return m.dir }

// IsSystem reports whether id is a system template.
func (m *Manager) IsSystem(id string) bool {
	_, ok := m.system[id]
	return ok
}

// checkCustomID returns an ErrBadID error unless id may name a custom file.
func checkCustomID(id string) error {
	if !IDPattern.MatchString(id) {
		return newError(fmt.Sprintf("%q is not a valid template id: use 1 to 64 lowercase letters, digits, '-' or '_', starting with a letter or digit", id), ErrBadID)
	}
	return nil
}

func (m *Manager) path(id string) string { return filepath.Join(m.dir, id+".json") }

// readCustom returns the raw bytes of custom template id.
func (m *Manager) readCustom(id string) ([]byte, error) {
	if err := checkCustomID(id); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(m.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, newError(fmt.Sprintf("there is no template %q", id), ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read template %q: %w", id, err)
	}
	return b, nil
}

// load returns the raw document of template id, system or custom. A custom
// document that is not a JSON object, or whose id does not match its file
// name, is an ErrInvalid error.
func (m *Manager) load(id string) (map[string]any, error) {
	if doc, ok := m.system[id]; ok {
		return doc, nil
	}
	b, err := m.readCustom(id)
	if err != nil {
		return nil, err
	}
	return m.parseStored(id, b)
}

func (m *Manager) parseStored(id string, b []byte) (map[string]any, error) {
	v, perr := decodeJSON(b)
	if perr != nil {
		return nil, invalidError(id, []ValidationError{*perr})
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, invalidError(id, []ValidationError{{Message: "a template must be a JSON object"}})
	}
	if got, _ := doc["id"].(string); got != id {
		return nil, invalidError(id, []ValidationError{{Pointer: "/id", Message: fmt.Sprintf("the id %q does not match the file name %s.json", got, id)}})
	}
	return doc, nil
}

// lookup resolves ids through overlay (candidate documents not yet stored),
// then the system templates, then the custom directory.
func (m *Manager) lookup(overlay map[string]map[string]any) lookupFunc {
	return func(id string) (map[string]any, error) {
		if doc, ok := overlay[id]; ok {
			return doc, nil
		}
		return m.load(id)
	}
}

// check returns every problem of doc: schema errors of the raw document,
// then inheritance errors, then schema errors of the resolved document.
func (m *Manager) check(doc any, overlay map[string]map[string]any) []ValidationError {
	if problems := m.v.validate(doc); len(problems) > 0 {
		return problems
	}
	obj := doc.(map[string]any) // the schema requires an object
	id, _ := obj["id"].(string)
	res, err := resolveDoc(id, obj, m.lookup(overlay))
	if err != nil {
		var e *Error
		var kind error = ErrInvalid
		switch {
		case errors.Is(err, ErrCycle):
			kind = ErrCycle
		case errors.Is(err, ErrMissingParent):
			kind = ErrMissingParent
		}
		if errors.As(err, &e) && len(e.Problems) > 0 {
			// The parent itself is broken.
			return []ValidationError{{Pointer: "/extends", Message: err.Error(), kind: ErrInvalid}}
		}
		return []ValidationError{{Pointer: "/extends", Message: err.Error(), kind: kind}}
	}
	if problems := m.v.validate(res.merged); len(problems) > 0 {
		return problems
	}
	return ruleProblems(res.merged)
}

// ruleProblems names each permission rule of doc's config that does not
// parse, at its place.
func ruleProblems(doc map[string]any) []ValidationError {
	cfg, _ := doc["config"].(map[string]any)
	perms, _ := cfg["permissions"].(map[string]any)
	var out []ValidationError
	for _, list := range []string{"allow", "deny"} {
		rules, _ := perms[list].([]any)
		for i, r := range rules {
			s, _ := r.(string)
			if _, err := permrules.Parse(s); err != nil {
				out = append(out, ValidationError{Pointer: fmt.Sprintf("/config/permissions/%s/%d", list, i), Message: err.Error()})
			}
		}
	}
	return out
}

// resolve resolves and checks template id.
func (m *Manager) resolve(id string, overlay map[string]map[string]any) (Resolved, error) {
	doc, ok := overlay[id]
	if !ok {
		var err error
		if doc, err = m.load(id); err != nil {
			return Resolved{}, err
		}
	}
	res, err := resolveDoc(id, doc, m.lookup(overlay))
	if err != nil {
		return Resolved{}, err
	}
	if problems := append(m.v.validate(res.merged), ruleProblems(res.merged)...); len(problems) > 0 {
		return Resolved{}, invalidError(id, problems)
	}
	t, err := toTemplate(res.merged)
	if err != nil {
		return Resolved{}, err
	}
	t.Extends, _ = doc["extends"].(string)
	return Resolved{Template: t, Chain: res.chain, Sources: res.sources}, nil
}

// customIDs lists the ids of the custom template files, sorted.
func (m *Manager) customIDs() ([]string, error) {
	entries, err := os.ReadDir(m.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list custom templates in %s: %w", m.dir, err)
	}
	var ids []string
	for _, e := range entries {
		name := e.Name()
		id, ok := strings.CutSuffix(name, ".json")
		if e.IsDir() || !ok || !IDPattern.MatchString(id) {
			continue
		}
		if m.IsSystem(id) {
			m.log.Warn("ignoring a custom template named like a system template", "file", filepath.Join(m.dir, name))
			continue
		}
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids, nil
}

// List returns every template: system templates first in their display
// order, then custom ones by name. A custom template that is broken is
// listed with Error set.
func (m *Manager) List() ([]TemplateInfo, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var sys []TemplateInfo
	order := map[string]float64{}
	for id := range m.system {
		sys = append(sys, m.info(id))
		if ui, ok := m.system[id]["ui"].(map[string]any); ok {
			if n, ok := ui["order"].(json.Number); ok {
				order[id], _ = n.Float64()
			}
		}
	}
	sort.Slice(sys, func(i, j int) bool {
		a, b := sys[i], sys[j]
		if order[a.ID] != order[b.ID] {
			return order[a.ID] < order[b.ID]
		}
		return a.ID < b.ID
	})
	ids, err := m.customIDs()
	if err != nil {
		return nil, err
	}
	custom := make([]TemplateInfo, 0, len(ids))
	for _, id := range ids {
		custom = append(custom, m.info(id))
	}
	sort.SliceStable(custom, func(i, j int) bool {
		return strings.ToLower(custom[i].Name) < strings.ToLower(custom[j].Name)
	})
	return append(sys, custom...), nil
}

// info summarizes template id from its resolved form, or from its raw
// document with Error set when it does not resolve.
func (m *Manager) info(id string) TemplateInfo {
	info := TemplateInfo{ID: id, IsSystem: m.IsSystem(id), Tags: []string{}}
	r, err := m.resolve(id, nil)
	if err == nil {
		t := r.Template
		info.Name, info.Description, info.Icon, info.Version, info.Author, info.Extends = t.Name, t.Description, t.Icon, t.Version, t.Author, t.Extends
		if t.Tags != nil {
			info.Tags = t.Tags
		}
		return info
	}
	info.Error = err.Error()
	info.Name = id
	if doc, lerr := m.load(id); lerr == nil {
		str := func(k string) string { s, _ := doc[k].(string); return s }
		if n := str("name"); n != "" {
			info.Name = n
		}
		info.Description, info.Icon, info.Version, info.Author, info.Extends = str("description"), str("icon"), str("version"), str("author"), str("extends")
	}
	return info
}

// Get returns template id with its inheritance resolved.
func (m *Manager) Get(id string) (Template, error) {
	r, err := m.Resolve(id)
	return r.Template, err
}

// Resolve returns template id resolved, with the chain of templates it
// inherits from and the source of every value.
func (m *Manager) Resolve(id string) (Resolved, error) {
	if !m.IsSystem(id) {
		if err := checkCustomID(id); err != nil {
			return Resolved{}, err
		}
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.resolve(id, nil)
}

// Raw returns the document of template id as stored, before inheritance.
func (m *Manager) Raw(id string) ([]byte, error) {
	if raw, ok := m.systemRaw[id]; ok {
		return bytes.Clone(raw), nil
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.readCustom(id)
}

// Validate checks a template document as the editor holds it: JSON syntax,
// the schema, inheritance against the stored templates, and the schema again
// after inheritance. It returns nil when the document is valid.
func (m *Manager) Validate(data []byte) []ValidationError {
	if len(data) > MaxSize {
		return []ValidationError{{Message: fmt.Sprintf("the template is larger than %d bytes", MaxSize)}}
	}
	v, perr := decodeJSON(data)
	if perr != nil {
		return []ValidationError{*perr}
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.checkCandidate(v)
}

func (m *Manager) checkCandidate(v any) []ValidationError {
	obj, ok := v.(map[string]any)
	if !ok {
		return m.v.validate(v)
	}
	id, _ := obj["id"].(string)
	return m.check(obj, map[string]map[string]any{id: obj})
}

// parseCandidate decodes a document given to Create or Update.
func parseCandidate(data []byte) (map[string]any, error) {
	if len(data) > MaxSize {
		return nil, invalidError("", []ValidationError{{Message: fmt.Sprintf("the template is larger than %d bytes", MaxSize)}})
	}
	v, perr := decodeJSON(data)
	if perr != nil {
		return nil, invalidError("", []ValidationError{*perr})
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, invalidError("", []ValidationError{{Message: "a template must be a JSON object"}})
	}
	return obj, nil
}

// Create stores a new custom template from its JSON document. Without an
// id, one is generated from the name. It returns the resolved template.
func (m *Manager) Create(data []byte) (Template, error) {
	t, err := m.create(data)
	if err != nil {
		return Template{}, err
	}
	m.emit(EventCreated, m.infoLocked(t.ID))
	return t, nil
}

func (m *Manager) create(data []byte) (Template, error) {
	doc, err := parseCandidate(data)
	if err != nil {
		return Template{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	id, hasID := doc["id"].(string)
	if _, present := doc["id"]; !present {
		name, _ := doc["name"].(string)
		if strings.TrimSpace(name) == "" {
			return Template{}, invalidError("", []ValidationError{{Message: "the template needs a name or an id"}})
		}
		if id, err = m.generateID(name); err != nil {
			return Template{}, err
		}
		doc["id"] = id
		data = insertID(data, id)
	} else if !hasID {
		return Template{}, invalidError("", []ValidationError{{Pointer: "/id", Message: "the id must be a string"}})
	}
	if m.IsSystem(id) {
		return Template{}, newError(fmt.Sprintf("%q is a system template and cannot be overwritten; duplicate it to make your own version", id), ErrReadOnly)
	}
	if err := checkCustomID(id); err != nil {
		return Template{}, err
	}
	if _, err := os.Stat(m.path(id)); err == nil {
		return Template{}, newError(fmt.Sprintf("a template with the id %q already exists; choose another id or update that template", id), ErrExists)
	}
	overlay := map[string]map[string]any{id: doc}
	if problems := m.check(doc, overlay); len(problems) > 0 {
		return Template{}, invalidError(id, problems)
	}
	if err := m.write(id, data); err != nil {
		return Template{}, err
	}
	r, err := m.resolve(id, nil)
	return r.Template, err
}

// Update replaces custom template id with a new document. The document's id
// must be id (or absent). Templates that extend id must still be valid.
func (m *Manager) Update(id string, data []byte) (Template, error) {
	t, err := m.update(id, data)
	if err != nil {
		return Template{}, err
	}
	m.emit(EventUpdated, m.infoLocked(id))
	return t, nil
}

func (m *Manager) update(id string, data []byte) (Template, error) {
	if m.IsSystem(id) {
		return Template{}, newError(fmt.Sprintf("%q is a system template and cannot be changed; duplicate it to make your own version", id), ErrReadOnly)
	}
	if err := checkCustomID(id); err != nil {
		return Template{}, err
	}
	doc, err := parseCandidate(data)
	if err != nil {
		return Template{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := os.Stat(m.path(id)); errors.Is(err, fs.ErrNotExist) {
		return Template{}, newError(fmt.Sprintf("there is no template %q to update", id), ErrNotFound)
	}
	if got, present := doc["id"]; !present {
		doc["id"] = id
		data = insertID(data, id)
	} else if got != id {
		return Template{}, invalidError(id, []ValidationError{{Pointer: "/id", Message: fmt.Sprintf("the id cannot change from %q to %q; duplicate the template to give it a new id", id, formatValue(got))}})
	}
	overlay := map[string]map[string]any{id: doc}
	if problems := m.check(doc, overlay); len(problems) > 0 {
		return Template{}, invalidError(id, problems)
	}
	// Templates that inherit from this one must survive the change.
	ids, err := m.customIDs()
	if err != nil {
		return Template{}, err
	}
	for _, other := range ids {
		if other == id {
			continue
		}
		odoc, err := m.load(other)
		if err != nil {
			continue // already broken; not this update's doing
		}
		if _, err := resolveDoc(other, odoc, m.lookup(nil)); err != nil {
			continue // already broken
		}
		res, err := resolveDoc(other, odoc, m.lookup(overlay))
		if err != nil {
			if errors.Is(err, ErrCycle) {
				return Template{}, newError(fmt.Sprintf("updating %q would make the inheritance of %q circular: %v", id, other, err), ErrInvalid, ErrCycle)
			}
			continue
		}
		if !contains(res.chain, id) {
			continue
		}
		if problems := m.v.validate(res.merged); len(problems) > 0 {
			e := newError(fmt.Sprintf("updating %q would make template %q, which extends it, invalid: %s", id, other, problems[0]), ErrInvalid)
			e.Problems = problems
			return Template{}, e
		}
	}
	if err := m.write(id, data); err != nil {
		return Template{}, err
	}
	r, err := m.resolve(id, nil)
	return r.Template, err
}

// Delete removes custom template id. System templates and templates that
// others extend cannot be deleted; the error names those others.
func (m *Manager) Delete(id string) error {
	if m.IsSystem(id) {
		return newError(fmt.Sprintf("%q is a system template and cannot be deleted", id), ErrReadOnly)
	}
	if err := checkCustomID(id); err != nil {
		return err
	}
	m.mu.Lock()
	if _, err := os.Stat(m.path(id)); errors.Is(err, fs.ErrNotExist) {
		m.mu.Unlock()
		return newError(fmt.Sprintf("there is no template %q to delete", id), ErrNotFound)
	}
	children, err := m.children(id)
	if err != nil {
		m.mu.Unlock()
		return err
	}
	if len(children) > 0 {
		m.mu.Unlock()
		return newError(fmt.Sprintf("template %q cannot be deleted because %s %s it; change or delete %s first", id, quoteList(children), plural(len(children), "extends", "extend"), plural(len(children), "that template", "those templates")), ErrInUse)
	}
	err = os.Remove(m.path(id))
	m.mu.Unlock()
	if err != nil {
		return fmt.Errorf("delete template %q: %w", id, err)
	}
	m.log.Info("template deleted", "id", id)
	m.emit(EventDeleted, id)
	return nil
}

// children returns the custom templates whose extends is id.
func (m *Manager) children(id string) ([]string, error) {
	ids, err := m.customIDs()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, other := range ids {
		b, err := os.ReadFile(m.path(other))
		if err != nil {
			continue
		}
		var head struct {
			Extends string `json:"extends"`
		}
		if json.Unmarshal(b, &head) == nil && head.Extends == id {
			out = append(out, other)
		}
	}
	return out, nil
}

// Duplicate makes a custom template that extends template id, named name
// (or "Copy of <name>" when name is empty), with an id generated from it.
func (m *Manager) Duplicate(id, name string) (Template, error) {
	src, err := m.Get(id)
	if err != nil {
		return Template{}, err
	}
	if strings.TrimSpace(name) == "" {
		name = "Copy of " + src.Name
	}
	doc := struct {
		Schema      string `json:"$schema"`
		Name        string `json:"name"`
		Description string `json:"description"`
		Icon        string `json:"icon"`
		Version     string `json:"version"`
		Extends     string `json:"extends"`
	}{templates.SchemaURL, strings.TrimSpace(name), src.Description, src.Icon, "1.0.0", id}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return Template{}, fmt.Errorf("encode duplicate of %q: %w", id, err)
	}
	return m.Create(data)
}

// Import stores the template in the file at path as a new custom template.
func (m *Manager) Import(path string) (Template, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Template{}, fmt.Errorf("import template from %s: %w", path, err)
	}
	if fi.Size() > MaxSize {
		return Template{}, invalidError("", []ValidationError{{Message: fmt.Sprintf("the file %s is larger than %d bytes", path, MaxSize)}})
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Template{}, fmt.Errorf("import template from %s: %w", path, err)
	}
	return m.Create(data)
}

// Export writes template id to path: its document as stored, or with
// resolved, the complete template with inheritance applied (which imports
// anywhere without its parents).
func (m *Manager) Export(id, path string, resolved bool) error {
	var data []byte
	if resolved {
		r, err := m.Resolve(id)
		if err != nil {
			return err
		}
		t := r.Template
		t.Extends = ""
		b, err := json.MarshalIndent(t, "", "  ")
		if err != nil {
			return fmt.Errorf("encode template %q: %w", id, err)
		}
		data = append(b, '\n')
	} else {
		b, err := m.Raw(id)
		if err != nil {
			return err
		}
		data = b
	}
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return fmt.Errorf("export template %q to %s: %w", id, path, err)
	}
	return nil
}

// GenerateID returns an id made from name that no template uses yet.
func (m *Manager) GenerateID(name string) (string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.generateID(name)
}

func (m *Manager) generateID(name string) (string, error) {
	base := Slug(name)
	taken := map[string]bool{}
	for id := range m.system {
		taken[id] = true
	}
	ids, err := m.customIDs()
	if err != nil {
		return "", err
	}
	for _, id := range ids {
		taken[id] = true
	}
	if !taken[base] {
		return base, nil
	}
	for i := 2; ; i++ {
		suffix := fmt.Sprintf("-%d", i)
		cand := base
		if len(cand)+len(suffix) > 64 {
			cand = strings.TrimRight(cand[:64-len(suffix)], "-_")
		}
		cand += suffix
		if !taken[cand] {
			return cand, nil
		}
	}
}

// Slug turns a name into an id: lowercase ASCII letters and digits, other
// runs of characters become '-', at most 64 characters; "template" when
// nothing is left.
func Slug(name string) string {
	var sb strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			sb.WriteRune(r)
			dash = false
		default:
			if r2, ok := foldAccent(r); ok {
				sb.WriteRune(r2)
				dash = false
				continue
			}
			if !dash && sb.Len() > 0 {
				sb.WriteByte('-')
				dash = true
			}
		}
	}
	s := strings.Trim(sb.String(), "-")
	if len(s) > 64 {
		s = strings.TrimRight(s[:64], "-")
	}
	if s == "" {
		return "template"
	}
	return s
}

// foldAccent maps common accented Latin letters to their base letter.
func foldAccent(r rune) (rune, bool) {
	const from = "àáâãäåçèéêëìíîïñòóôõöøùúûüýÿ"
	const to = "aaaaaaceeeeiiiinoooooouuuuyy"
	i := 0
	for _, f := range from {
		if f == r {
			return rune(to[i]), true
		}
		i++
	}
	return 0, false
}

// write stores a custom template document atomically.
func (m *Manager) write(id string, data []byte) error {
	var buf bytes.Buffer
	if err := json.Indent(&buf, data, "", "  "); err != nil {
		return fmt.Errorf("format template %q: %w", id, err)
	}
	buf.WriteByte('\n')
	if err := os.MkdirAll(m.dir, 0o700); err != nil {
		return fmt.Errorf("create template directory %s: %w", m.dir, err)
	}
	if err := atomicfile.Write(filepath.Join(m.dir, id+".json"), buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("save template %q: %w", id, err)
	}
	m.log.Info("template saved", "id", id)
	return nil
}

// insertID adds "id" as the first member of the JSON object in data, keeping
// the author's order of the other members.
func insertID(data []byte, id string) []byte {
	i := bytes.IndexByte(data, '{')
	idJSON, _ := json.Marshal(id)
	member := append([]byte(`"id":`), idJSON...)
	rest := bytes.TrimSpace(data[i+1:])
	if len(rest) > 0 && rest[0] != '}' {
		member = append(member, ',')
	}
	out := append([]byte(nil), data[:i+1]...)
	out = append(out, member...)
	return append(out, data[i+1:]...)
}

func (m *Manager) infoLocked(id string) TemplateInfo {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.info(id)
}

func (m *Manager) emit(name string, payload any) {
	if m.notify != nil {
		m.notify(name, payload)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func quoteList(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = fmt.Sprintf("%q", id)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
