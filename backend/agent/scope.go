package agent

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// What the plan covers: the folder's listing without the files git does
// not track (a worktree run's workers start from the last commit, where
// those files are not), and, when the request names packages, folders or
// files of the project, only those.

// UntrackedCommand lists, one a line and relative to the working
// directory, the files of a git repository that git does not track (and
// does not ignore). Outside a repository it fails, and nothing is left out.
const UntrackedCommand = "git ls-files --others --exclude-standard"

// PlansWork reports whether phase is one the agent plans in (the analysis
// and the task list): the faces then ask git which files it does not
// track (UntrackedCommand) and give them to SetUntracked.
func PlansWork(phase string) bool { return phase == "analysis" || phase == "task_list" }

// SetUntracked gives the mind the output of UntrackedCommand.
func (m *Mind) SetUntracked(out string) {
	for line := range strings.SplitSeq(out, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "fatal:") {
			m.untracked[strings.TrimPrefix(line, "./")] = true
		}
	}
}

// untrackedFiles are the files of the listing git does not track.
func (m *Mind) untrackedFiles() []string {
	var out []string
	for _, f := range m.files {
		if m.untracked[f.Path] {
			out = append(out, f.Path)
		}
	}
	return out
}

var scopeWord = `(?:package|packages|folder|folders|directory|directories|dir|module|modules|component|components|crate|library)`

// requestScope is what the user's request names of the project: the
// files it names by path, the folders it names by path ("internal/",
// "backend/agent") or by name with a word such as "package" or "folder"
// ("the store package"). nil when it names none: the whole project. A
// folder ends with a slash.
func (m *Mind) requestScope() []string {
	r := requestPattern.FindStringSubmatch(m.initial)
	if r == nil {
		r = requestPattern.FindStringSubmatch(m.prompt)
	}
	if r == nil {
		return nil
	}
	req := strings.ToLower(r[1])
	var roots []string
	dirs := map[string]bool{}
	for _, f := range m.files {
		for d := path.Dir(f.Path); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
		if strings.Contains(path.Base(f.Path), ".") && mentions(req, strings.ToLower(f.Path)) {
			roots = append(roots, f.Path)
		}
	}
	for d := range dirs {
		ld := strings.ToLower(d)
		base := regexp.QuoteMeta(path.Base(ld))
		named := regexp.MustCompile(`(?:^|[^a-z0-9_./-])` + base + `\s+` + scopeWord + `\b|\b` + scopeWord + `\s+` + base + `(?:$|[^a-z0-9_/-])`)
		if strings.Contains(d, "/") && mentions(req, ld) || mentions(req, ld+"/") || named.MatchString(req) {
			roots = append(roots, d+"/")
		}
	}
	sort.Strings(roots)
	// A root inside another adds nothing.
	var out []string
	for _, r := range roots {
		if !slices.ContainsFunc(out, func(o string) bool { return strings.HasSuffix(o, "/") && strings.HasPrefix(r, o) }) {
			out = append(out, r)
		}
	}
	return out
}

// mentions reports whether text holds s as a whole path: not inside a
// longer word or path (a full stop after it ends a sentence).
func mentions(text, s string) bool {
	for i := 0; i < len(text); {
		j := strings.Index(text[i:], s)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(s)
		before := j == 0 || !pathChar(text[j-1])
		after := end == len(text) || !pathChar(text[end]) || text[end] == '.' && (end+1 == len(text) || !pathChar(text[end+1]))
		if before && after {
			return true
		}
		i = j + 1
	}
	return false
}

func pathChar(c byte) bool {
	return c == '/' || c == '.' || c == '_' || c == '-' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// under reports whether p lies in one of roots (a folder with its slash,
// or a file).
func under(p string, roots []string) bool {
	for _, r := range roots {
		if p == r || strings.HasSuffix(r, "/") && strings.HasPrefix(p, r) {
			return true
		}
	}
	return false
}

// planScope is what the plan covers: the roots the request names (none:
// the whole project) and the files of the listing in them that git
// tracks. When the request names nothing that holds such a file, the
// whole project.
func (m *Mind) planScope() (roots []string, files []File) {
	roots = m.requestScope()
	for _, f := range m.files {
		if !m.untracked[f.Path] && (roots == nil || under(f.Path, roots)) {
			files = append(files, f)
		}
	}
	if len(files) == 0 && roots != nil {
		return m.planScopeAll()
	}
	return roots, files
}

func (m *Mind) planScopeAll() ([]string, []File) {
	var files []File
	for _, f := range m.files {
		if !m.untracked[f.Path] {
			files = append(files, f)
		}
	}
	return nil, files
}

// component is a part of the project the plan gives a task.
type component struct {
	name  string   // the folder ("." for the top level), or the file
	files []string // its files
	// loose: the files directly in a named folder whose subfolders are
	// components of their own.
	loose bool
}

// components groups the files the plan covers: by top-level folder (the
// loose top-level files form one group, "."), or, within the folders the
// request names, by their subfolders (with the folder's own files as one
// group). At most eight, the largest.
func (m *Mind) components() []component {
	roots, files := m.planScope()
	groups := map[string]*component{}
	var order []string
	add := func(key, p string, loose bool) {
		c := groups[key]
		if c == nil {
			c = &component{name: key, loose: loose}
			groups[key] = c
			order = append(order, key)
		}
		c.files = append(c.files, p)
	}
	for _, f := range files {
		root := ""
		for _, r := range roots {
			if under(f.Path, []string{r}) {
				root = r
			}
		}
		switch {
		case root != "" && !strings.HasSuffix(root, "/"):
			add(root, f.Path, false)
		case root != "":
			rest := strings.TrimPrefix(f.Path, root)
			if sub, _, nested := strings.Cut(rest, "/"); nested {
				add(root+sub, f.Path, false)
			} else {
				add(strings.TrimSuffix(root, "/"), f.Path, true)
			}
		default:
			top, _, nested := strings.Cut(f.Path, "/")
			if !nested {
				top = "."
			}
			add(top, f.Path, top == ".")
		}
	}
	sort.Strings(order)
	var out []component
	for _, k := range order {
		c := *groups[k]
		// A folder whose subfolders are not groups of their own keeps its
		// whole scope.
		if c.loose && c.name != "." && !slices.ContainsFunc(order, func(o string) bool { return strings.HasPrefix(o, c.name+"/") }) {
			c.loose = false
		}
		out = append(out, c)
	}
	if len(out) > 8 {
		sort.SliceStable(out, func(i, j int) bool { return len(out[i].files) > len(out[j].files) })
		out = out[:8]
		sort.SliceStable(out, func(i, j int) bool { return out[i].name < out[j].name })
	}
	return out
}

// scopeList is a component's scope in a task: its folder with a slash,
// or its files (the top level, a folder's loose files, a file).
func scopeList(c component) []string {
	if c.loose || c.name == "." || !slices.ContainsFunc(c.files, func(f string) bool { return strings.HasPrefix(f, c.name+"/") }) {
		return c.files[:min(20, len(c.files))]
	}
	return []string{c.name + "/"}
}

// scopeNotes are the analysis's warnings about what the plan leaves out.
func (m *Mind) scopeNotes() []string {
	var notes []string
	if u := m.untrackedFiles(); len(u) > 0 {
		notes = append(notes, fmt.Sprintf("%s not tracked by git (%s) %s left out of the plan: the workers of a worktree run start from the last commit, which does not hold them; commit them to include them.",
			count(len(u), "file"), strings.Join(u[:min(5, len(u))], ", ")+more(len(u), 5), isAre(len(u))))
	}
	if roots, _ := m.planScope(); roots != nil {
		notes = append(notes, "The request names "+strings.Join(roots, ", ")+": the plan stays within it.")
	}
	return notes
}

func more(n, shown int) string {
	if n > shown {
		return fmt.Sprintf(" and %d more", n-shown)
	}
	return ""
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
