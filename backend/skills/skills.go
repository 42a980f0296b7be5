// Package skills loads the skill library of seed 004 and matches skills to
// tasks.
//
// A skill is a markdown file with YAML front matter:
//
//	---
//	id: go-testing
//	name: Go testing
//	domain: [go, backend]
//	category: testing
//	task_types: [testing, implementation, bugfix]
//	keywords: [test, table-driven, race]
//	complexity: [easy, normal, complex]
//	pairs_with: [refactoring-safely]
//	---
//	Guidance text for the worker…
//
// Skills are discovered in order from a user-chosen folder, <cwd>/skills,
// <cwd>/.claude/skills, <home>/.claude/skills and the skills shipped with
// Baton (builtin/). Every folder is scanned recursively for *.md files, in
// lexical order. Seed 004 picks the first of these folders that exists;
// Baton merges them all in that order instead (the first definition of an
// id wins), so a project that adds one skill keeps the shipped ones.
// A file that cannot be used is skipped with a Warning (path and reason)
// that the UI shows; when two files define the same id, the first in
// discovery order wins and the later one is reported.
//
// Match scores skills for one task exactly as seed 004's matchSkills does;
// PromptSection renders the matched skills for a worker prompt.
package skills

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

//go:embed builtin/*.md
var builtinFS embed.FS

// Complexity levels of seed 004.
const (
	Easy    = "easy"
	Normal  = "normal"
	Complex = "complex"
)

// MaxSkills returns how many skills a task of the given complexity gets
// (seed 004: easy 3, normal 7, complex 15), and false for an unknown level.
func MaxSkills(complexity string) (int, bool) {
	switch complexity {
	case Easy:
		return 3, true
	case Normal:
		return 7, true
	case Complex:
		return 15, true
	}
	return 0, false
}

// NormalizeComplexity maps the complexity words of the other seeds (low,
// medium, high, as task lists write them) onto seed 004's easy, normal and
// complex; a seed 004 word is returned as is (lower-cased). Anything else
// returns "".
func NormalizeComplexity(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case Easy, "low", "simple", "trivial":
		return Easy
	case Normal, "medium", "moderate":
		return Normal
	case Complex, "high", "hard":
		return Complex
	}
	return ""
}

// Source kinds, in discovery order.
const (
	SourceUser    = "user"    // the folder the user chose
	SourceProject = "project" // <cwd>/skills or <cwd>/.claude/skills
	SourceHome    = "home"    // <home>/.claude/skills
	SourceBuiltin = "builtin" // shipped with Baton
)

// Skill is one skill of the library.
type Skill struct {
	ID         string   `json:"id"`
	Name       string   `json:"name"`
	Domain     []string `json:"domain"`
	Category   string   `json:"category,omitempty"`
	TaskTypes  []string `json:"task_types"`
	Keywords   []string `json:"keywords"`
	Complexity []string `json:"complexity"`
	PairsWith  []string `json:"pairs_with,omitempty"`
	// Body is the markdown after the front matter: the guidance the
	// worker reads.
	Body string `json:"body"`
	// Path is the file the skill was read from ("builtin/<file>" for a
	// shipped skill).
	Path string `json:"path"`
	// Source is SourceUser, SourceProject, SourceHome or SourceBuiltin.
	Source string `json:"source"`
}

// Warning says why a file was skipped.
type Warning struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

func (w Warning) String() string { return w.Path + ": " + w.Reason }

// Dir is one folder that was searched.
type Dir struct {
	Path   string `json:"path"`
	Source string `json:"source"`
	// Found is false when the folder does not exist.
	Found bool `json:"found"`
	// Skills counts the skills taken from this folder.
	Skills int `json:"skills"`
}

// Library is the loaded skill library.
type Library struct {
	// Skills in discovery order; ids are unique.
	Skills   []Skill   `json:"skills"`
	Warnings []Warning `json:"warnings,omitempty"`
	Dirs     []Dir     `json:"dirs"`
}

// Summary is seed 004's report to the user: "Loaded N skills from …"
// with the skills of each category, then one line per warning.
func (l *Library) Summary() string {
	var b strings.Builder
	var from []string
	for _, d := range l.Dirs {
		if d.Skills > 0 {
			from = append(from, d.Path)
		}
	}
	fmt.Fprintf(&b, "Loaded %d skills", len(l.Skills))
	if len(from) > 0 {
		fmt.Fprintf(&b, " from %s", strings.Join(from, ", "))
	}
	b.WriteString(":\n")
	var cats []string
	byCat := map[string][]string{}
	for _, s := range l.Skills {
		c := s.Category
		if c == "" {
			c = "(no category)"
		}
		if _, ok := byCat[c]; !ok {
			cats = append(cats, c)
		}
		byCat[c] = append(byCat[c], s.ID)
	}
	slices.Sort(cats)
	for _, c := range cats {
		fmt.Fprintf(&b, " - %s: %s\n", c, strings.Join(byCat[c], ", "))
	}
	for _, w := range l.Warnings {
		fmt.Fprintf(&b, "Skipped %s\n", w)
	}
	return b.String()
}

// Get returns the skill with the given id.
func (l *Library) Get(id string) (Skill, bool) {
	for _, s := range l.Skills {
		if s.ID == id {
			return s, true
		}
	}
	return Skill{}, false
}

// LoadOptions say where to look for skills.
type LoadOptions struct {
	// UserDir is a folder the user chose; searched first when set. A chosen
	// folder that does not exist is a warning.
	UserDir string
	// Cwd is the project folder; <Cwd>/skills and <Cwd>/.claude/skills are
	// searched when set.
	Cwd string
	// Home is the user's home folder; <Home>/.claude/skills is searched when
	// set (callers pass os.UserHomeDir()).
	Home string
	// NoBuiltin leaves out the skills shipped with Baton.
	NoBuiltin bool
}

// Load discovers the skills of every folder in order. It never fails: what
// cannot be read is reported in Library.Warnings.
func Load(opts LoadOptions) *Library {
	lib := &Library{Skills: []Skill{}}
	seen := map[string]string{} // id → path of the first definition
	type dir struct{ path, source string }
	var dirs []dir
	if opts.UserDir != "" {
		dirs = append(dirs, dir{opts.UserDir, SourceUser})
	}
	if opts.Cwd != "" {
		dirs = append(dirs, dir{filepath.Join(opts.Cwd, "skills"), SourceProject}, dir{filepath.Join(opts.Cwd, ".claude", "skills"), SourceProject})
	}
	if opts.Home != "" {
		dirs = append(dirs, dir{filepath.Join(opts.Home, ".claude", "skills"), SourceHome})
	}
	for _, d := range dirs {
		info := Dir{Path: d.path, Source: d.source}
		st, err := os.Stat(d.path)
		switch {
		case err == nil && st.IsDir():
			info.Found = true
			info.Skills = lib.scan(os.DirFS(d.path), ".", func(p string) string { return filepath.Join(d.path, filepath.FromSlash(p)) }, d.source, seen)
		case err == nil:
			lib.warn(d.path, "is not a folder")
		case errors.Is(err, fs.ErrNotExist):
			if d.source == SourceUser {
				lib.warn(d.path, "the chosen skills folder does not exist")
			}
		default:
			lib.warn(d.path, "cannot be read: "+err.Error())
		}
		lib.Dirs = append(lib.Dirs, info)
	}
	if !opts.NoBuiltin {
		info := Dir{Path: "builtin", Source: SourceBuiltin, Found: true}
		info.Skills = lib.scan(builtinFS, "builtin", func(p string) string { return p }, SourceBuiltin, seen)
		lib.Dirs = append(lib.Dirs, info)
	}
	return lib
}

func (l *Library) warn(path, reason string) {
	l.Warnings = append(l.Warnings, Warning{Path: path, Reason: reason})
}

// scan reads every file under root of fsys, in lexical order, and returns
// how many skills it added.
func (l *Library) scan(fsys fs.FS, root string, name func(string) string, source string, seen map[string]string) int {
	n := 0
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			l.warn(name(p), "cannot be read: "+err.Error())
			if d != nil && d.IsDir() && p != root {
				return fs.SkipDir
			}
			return nil
		}
		base := path.Base(p)
		if p != root && strings.HasPrefix(base, ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil // hidden files such as .DS_Store
		}
		if d.IsDir() {
			return nil
		}
		full := name(p)
		if !strings.EqualFold(path.Ext(base), ".md") {
			l.warn(full, "is not a markdown (.md) file")
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			l.warn(full, "cannot be read: "+err.Error())
			return nil
		}
		s, err := Parse(data)
		if err != nil {
			l.warn(full, err.Error())
			return nil
		}
		if first, dup := seen[s.ID]; dup {
			l.warn(full, fmt.Sprintf("skill id %q is already defined by %s, which takes precedence", s.ID, first))
			return nil
		}
		s.Path, s.Source = full, source
		seen[s.ID] = full
		l.Skills = append(l.Skills, s)
		n++
		return nil
	})
	if err != nil {
		l.warn(name(root), "cannot be read: "+err.Error())
	}
	return n
}

// frontMatter is the YAML header of a skill file.
type frontMatter struct {
	ID         string     `yaml:"id"`
	Name       string     `yaml:"name"`
	Domain     stringList `yaml:"domain"`
	Category   string     `yaml:"category"`
	TaskTypes  stringList `yaml:"task_types"`
	Keywords   stringList `yaml:"keywords"`
	Complexity stringList `yaml:"complexity"`
	PairsWith  stringList `yaml:"pairs_with"`
}

// stringList reads a YAML list of strings or a single string.
type stringList []string

func (s *stringList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			*s = nil
			return nil
		}
		*s = []string{n.Value}
		return nil
	case yaml.SequenceNode:
		out := make([]string, 0, len(n.Content))
		for _, e := range n.Content {
			if e.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: list items must be plain values", e.Line)
			}
			out = append(out, e.Value)
		}
		*s = out
		return nil
	}
	return fmt.Errorf("line %d: must be a string or a list of strings", n.Line)
}

// Parse reads one skill file: YAML front matter between two "---" lines,
// then the markdown body. id, name, domain, task_types, keywords and
// complexity are required (seed 004); complexity values must be easy,
// normal or complex. Values are trimmed; keywords, domains, task types and
// complexities are lower-cased, since matching ignores case. A skill
// without a category is its own category: it never displaces another
// skill in category deduplication.
func Parse(data []byte) (Skill, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return Skill{}, errors.New("has no YAML front matter (the file must start with a --- line)")
	}
	rest := text[len("---\n"):]
	end := strings.Index(rest, "\n---\n")
	var head, body string
	switch {
	case end >= 0:
		head, body = rest[:end], rest[end+len("\n---\n"):]
	case strings.HasSuffix(rest, "\n---"):
		head = strings.TrimSuffix(rest, "\n---")
	case strings.HasPrefix(rest, "---\n") || rest == "---":
		head, body = "", strings.TrimPrefix(strings.TrimPrefix(rest, "---"), "\n")
	default:
		return Skill{}, errors.New("the YAML front matter is not closed by a --- line")
	}
	var fm frontMatter
	if err := yaml.Unmarshal([]byte(head), &fm); err != nil {
		return Skill{}, fmt.Errorf("invalid YAML front matter: %w", err)
	}
	s := Skill{
		ID:         strings.TrimSpace(fm.ID),
		Name:       strings.TrimSpace(fm.Name),
		Domain:     clean(fm.Domain),
		Category:   strings.ToLower(strings.TrimSpace(fm.Category)),
		TaskTypes:  clean(fm.TaskTypes),
		Keywords:   clean(fm.Keywords),
		Complexity: clean(fm.Complexity),
		PairsWith:  trimAll(fm.PairsWith),
		Body:       strings.TrimSpace(body),
	}
	var missing []string
	for _, f := range []struct {
		name  string
		empty bool
	}{
		{"id", s.ID == ""}, {"name", s.Name == ""}, {"domain", len(s.Domain) == 0},
		{"task_types", len(s.TaskTypes) == 0}, {"keywords", len(s.Keywords) == 0}, {"complexity", len(s.Complexity) == 0},
	} {
		if f.empty {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return Skill{}, fmt.Errorf("missing required field(s) in the front matter: %s", strings.Join(missing, ", "))
	}
	if strings.ContainsAny(s.ID, " \t\n") {
		return Skill{}, fmt.Errorf("id %q must not contain spaces", s.ID)
	}
	for _, c := range s.Complexity {
		if _, ok := MaxSkills(c); !ok {
			return Skill{}, fmt.Errorf("complexity %q is not one of easy, normal, complex", c)
		}
	}
	return s, nil
}

func trimAll(in []string) []string {
	var out []string
	for _, v := range in {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func clean(in []string) []string {
	low := make([]string, len(in))
	for i, v := range in {
		low[i] = strings.ToLower(v)
	}
	return trimAll(low)
}
