package agent

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
)

// The documentation the agent writes: a page per component, from the code
// itself (package comments, exported names with their declarations, the
// files), and an index that links the pages.

// Marks around what the agent added to a file that was there before, so
// that doing the task again replaces its part instead of adding it twice.
const (
	markBegin = "<!-- baton:begin %s -->"
	markEnd   = "<!-- baton:end %s -->"
)

// appendPart is the text of a file that existed (old) with part added at
// its end between marks for id, replacing what the marks held before.
func appendPart(old, id, part string) string {
	begin, end := fmt.Sprintf(markBegin, id), fmt.Sprintf(markEnd, id)
	if i := strings.Index(old, begin); i >= 0 {
		if j := strings.Index(old[i:], end); j >= 0 {
			old = strings.TrimRight(old[:i], "\n") + "\n" + strings.TrimLeft(old[i+j+len(end):], "\n")
		}
	}
	old = strings.TrimRight(old, "\n")
	if old != "" {
		old += "\n\n"
	}
	return old + begin + "\n" + strings.TrimRight(part, "\n") + "\n" + end + "\n"
}

// relTo is the path of target as a Markdown link from a page at from.
func relTo(from, target string) string {
	dir := path.Dir(from)
	if dir == "." {
		return target
	}
	up := strings.Repeat("../", strings.Count(dir, "/")+1)
	if rest, ok := strings.CutPrefix(target, dir+"/"); ok {
		return rest
	}
	return up + target
}

// docPage is the page of a component, from the files the worker read.
func (m *Mind) docPage(page, name string, files []string) string {
	var b strings.Builder
	units := m.units(files)
	fmt.Fprintf(&b, "# %s\n\n", name)
	intro := ""
	for _, u := range units {
		if u.doc != "" {
			intro = synopsis(u.doc)
			break
		}
	}
	if intro == "" {
		for _, f := range files {
			if strings.EqualFold(path.Base(f), "README.md") {
				intro = firstParagraph(m.reads[f])
				break
			}
		}
	}
	if intro != "" {
		b.WriteString(intro + "\n\n")
	}
	lines := 0
	for _, f := range files {
		lines += strings.Count(m.reads[f], "\n")
	}
	fmt.Fprintf(&b, "%s of %s (%s), read from the code as it is.\n", count(len(files), "file"), name, count(lines, "line"))
	for _, u := range units {
		m.writeUnit(&b, page, u)
	}
	if len(files) > 0 {
		b.WriteString("\n## Files\n\n| File | Lines | About |\n|---|---|---|\n")
		for _, f := range files {
			about := ""
			if isTest(f) {
				about = "tests"
			}
			for _, u := range units {
				if u.file == f || u.file == "" && path.Dir(f) == u.dir && strings.HasSuffix(f, ".go") && !isTest(f) {
					about = u.lang
				}
			}
			if about == "" {
				about = strings.ReplaceAll(firstLine(strings.TrimLeft(m.reads[f], "#/ \t\n"), 70), "|", "\\|")
			}
			fmt.Fprintf(&b, "| [`%s`](%s) | %d | %s |\n", f, relTo(page, f), strings.Count(m.reads[f], "\n"), about)
		}
	}
	return b.String()
}

// units are the Go packages and script modules among files.
func (m *Mind) units(files []string) []unit {
	module := modulePath(m.reads["go.mod"])
	var out []unit
	dirs := map[string]bool{}
	for _, f := range files {
		switch {
		case strings.HasSuffix(f, ".go") && !strings.HasSuffix(f, "_test.go"):
			if !dirs[path.Dir(f)] {
				dirs[path.Dir(f)] = true
				u := parseGoPackage(path.Dir(f), m.reads).unit(module)
				if u.title != "Package " {
					out = append(out, u)
				}
			}
		case scriptLang(f) != "" && !isTest(f):
			out = append(out, scriptUnit(f, m.reads[f]))
		}
	}
	return out
}

func (m *Mind) writeUnit(b *strings.Builder, page string, u unit) {
	where := "`" + u.dir + "`"
	if u.file != "" {
		where = "`" + u.file + "`"
	}
	fmt.Fprintf(b, "\n## %s (%s)\n\n", strings.TrimPrefix(u.title, "Package "), u.lang)
	if u.lang == "Go" {
		fmt.Fprintf(b, "Package `%s` in %s", strings.TrimPrefix(u.title, "Package "), where)
		if u.importPath != "" {
			fmt.Fprintf(b, ", imported as `%s`", u.importPath)
		}
		b.WriteString(".\n\n")
	}
	if u.doc != "" {
		b.WriteString(strings.TrimSpace(u.doc) + "\n\n")
	}
	if len(u.symbols) == 0 {
		b.WriteString("It exports nothing.\n")
	}
	groups := []struct{ kind, heading string }{{"const", "Constants"}, {"var", "Variables"}, {"func", "Functions"}, {"type", "Types"}, {"class", "Classes"}}
	for _, g := range groups {
		first := true
		for _, s := range u.symbols {
			if s.kind != g.kind {
				continue
			}
			if first {
				fmt.Fprintf(b, "### %s\n\n", g.heading)
				first = false
			}
			m.writeSymbol(b, page, s, "####")
		}
	}
	for _, s := range u.skipped {
		fmt.Fprintf(b, "Not read: %s.\n", s)
	}
}

func (m *Mind) writeSymbol(b *strings.Builder, page string, s symbol, heading string) {
	fmt.Fprintf(b, "%s %s\n\n", heading, s.name)
	lang := "go"
	switch scriptLang(s.file) {
	case "Python":
		lang = "python"
	case "JavaScript":
		lang = "js"
	case "TypeScript":
		lang = "ts"
	}
	fmt.Fprintf(b, "```%s\n%s\n```\n\n", lang, strings.TrimSpace(s.sig))
	if s.doc != "" {
		b.WriteString(strings.TrimSpace(s.doc) + "\n\n")
	}
	if s.line > 0 {
		fmt.Fprintf(b, "Defined in [`%s:%d`](%s#L%d).\n\n", s.file, s.line, relTo(page, s.file), s.line)
	}
	for _, meth := range s.methods {
		fmt.Fprintf(b, "- `%s`", oneLine(meth.sig))
		if meth.doc != "" {
			b.WriteString(": " + synopsis(meth.doc))
		}
		fmt.Fprintf(b, " ([`%s:%d`](%s#L%d))\n", meth.file, meth.line, relTo(page, meth.file), meth.line)
	}
	if len(s.methods) > 0 {
		b.WriteString("\n")
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// firstParagraph is the first paragraph of a Markdown text that is not a
// heading or a badge, on one line.
func firstParagraph(text string) string {
	for _, p := range strings.Split(text, "\n\n") {
		p = strings.TrimSpace(p)
		if p == "" || strings.HasPrefix(p, "#") || strings.HasPrefix(p, "[![") || strings.HasPrefix(p, "![") || strings.HasPrefix(p, "<") {
			continue
		}
		return oneLine(p)
	}
	return ""
}

var pageHeading = regexp.MustCompile(`(?m)^# (.+)$`)

// docIndex is the index page: a link to every page of the folder the
// worker read (the pages), with the first line that says what each is.
// missing lists the pages the task names that are not there.
func (m *Mind) docIndex(index string, pages, missing []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Documentation of %s\n\n", m.project())
	if p := firstParagraph(m.reads["README.md"]); p != "" {
		b.WriteString(p + "\n\n")
	}
	sort.Strings(pages)
	b.WriteString("| Page | About |\n|---|---|\n")
	for _, p := range pages {
		text := m.reads[p]
		title := strings.TrimSuffix(path.Base(p), ".md")
		if h := pageHeading.FindStringSubmatch(text); h != nil {
			title = strings.TrimSpace(h[1])
		}
		body := text
		if i := strings.Index(body, "\n"); i >= 0 {
			body = body[i+1:]
		}
		fmt.Fprintf(&b, "| [%s](%s) | %s |\n", title, relTo(index, p), strings.ReplaceAll(firstParagraph(body), "|", "\\|"))
	}
	for _, p := range missing {
		fmt.Fprintf(&b, "| %s | not written yet: the task that writes it has not written it |\n", p)
	}
	return b.String()
}

// project is the name of the project: the folder's, or the module's in a
// worktree (whose folder is named after Baton's run).
func (m *Mind) project() string {
	if mod := modulePath(m.reads["go.mod"]); mod != "" {
		return path.Base(mod)
	}
	return path.Base(m.cwd)
}
