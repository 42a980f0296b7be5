package agent

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"regexp"
	"strings"
)

// The findings of a review or a bug hunt: lines of the files the worker
// read, each with its file and line, what is wrong and what to do.

// finding is one finding at a real file and line.
type finding struct {
	severity   string // high, medium, low
	file       string
	line       int
	problem    string
	fix        string
	excerpt    string
	suspicious bool // a bug hunt's suspicion rather than a style remark
}

func (f finding) String() string {
	return fmt.Sprintf("**%s** `%s:%d`: %s (`%s`). Fix: %s", f.severity, f.file, f.line, f.problem, strings.ReplaceAll(f.excerpt, "`", "'"), f.fix)
}

var lineRules = []struct {
	re                     *regexp.Regexp
	lang                   string // "" any, else the scriptLang or "Go"
	severity, problem, fix string
	suspicious             bool
}{
	{regexp.MustCompile(`(?i)\b(TODO|FIXME|XXX|HACK)\b`), "", "low", "a marker of unfinished work", "finish the work or file an issue and remove the marker", true},
	{regexp.MustCompile(`^\s*_\s*(,\s*_\s*)?=\s*[A-Za-z_][\w.]*\(`), "Go", "medium", "the error of this call is ignored", "handle the error or return it", true},
	{regexp.MustCompile(`\bpanic\(`), "Go", "medium", "a panic where an error could be returned", "return an error the caller can handle", true},
	{regexp.MustCompile(`^\s*except\s*:\s*$`), "Python", "medium", "a bare except catches everything, KeyboardInterrupt included", "catch the exceptions you expect (except ValueError:)", true},
	{regexp.MustCompile(`\bopen\([^)]*\)\.(read|write)`), "Python", "medium", "a file opened without with is never closed explicitly", "use with open(...) as f:", true},
	{regexp.MustCompile(`catch\s*(\(\w*\))?\s*\{\s*\}`), "JavaScript", "medium", "an empty catch hides the error", "log or rethrow the error", true},
	{regexp.MustCompile(`\bconsole\.log\(`), "JavaScript", "low", "a console.log left in the code", "remove it or use the project's logger", false},
	{regexp.MustCompile(`[^=!]==[^=]`), "JavaScript", "low", "loose equality converts types", "use ===", false},
}

// findings are the findings of the files read: the line rules, and for Go
// the exported names without documentation and the long functions. A bug
// hunt (bugs) keeps only suspicions. At most max.
func (m *Mind) findings(files []string, bugs bool, limit int) []finding {
	var out []finding
	for _, f := range files {
		text := m.reads[f]
		lang := scriptLang(f)
		if strings.HasSuffix(f, ".go") {
			lang = "Go"
		}
		if lang == "" {
			continue
		}
		for i, line := range strings.Split(text, "\n") {
			for _, r := range lineRules {
				if (r.lang == "" || r.lang == lang || r.lang == "JavaScript" && lang == "TypeScript") && r.re.MatchString(line) && (!bugs || r.suspicious) {
					out = append(out, finding{severity: r.severity, file: f, line: i + 1, problem: r.problem, fix: r.fix,
						excerpt: firstLine(strings.TrimSpace(line), 80), suspicious: r.suspicious})
					break
				}
			}
		}
		if lang == "Go" && !bugs {
			out = append(out, goFindings(f, text)...)
		}
	}
	return out[:min(limit, len(out))]
}

// goFindings are the undocumented exported names and the functions longer
// than 60 lines of a Go file.
func goFindings(name, text string) []finding {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, name, text, parser.ParseComments)
	if err != nil {
		return nil
	}
	lines := strings.Split(text, "\n")
	excerpt := func(pos token.Pos) (int, string) {
		l := fset.Position(pos).Line
		if l-1 < len(lines) {
			return l, firstLine(strings.TrimSpace(lines[l-1]), 80)
		}
		return l, ""
	}
	var out []finding
	for _, d := range file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			l, ex := excerpt(d.Pos())
			if d.Name.IsExported() && d.Doc == nil && !strings.HasSuffix(name, "_test.go") {
				out = append(out, finding{severity: "low", file: name, line: l, excerpt: ex,
					problem: d.Name.Name + " is exported without a doc comment", fix: "say what " + d.Name.Name + " does in a comment that starts with its name"})
			}
			if d.Body != nil {
				if n := fset.Position(d.Body.End()).Line - fset.Position(d.Body.Pos()).Line; n > 60 {
					out = append(out, finding{severity: "low", file: name, line: l, excerpt: ex,
						problem: fmt.Sprintf("%s is %d lines long", d.Name.Name, n), fix: "split it into functions that each do one thing"})
				}
			}
		case *ast.GenDecl:
			if d.Tok != token.TYPE {
				continue
			}
			for _, s := range d.Specs {
				ts := s.(*ast.TypeSpec)
				if ts.Name.IsExported() && d.Doc == nil && ts.Doc == nil {
					l, ex := excerpt(ts.Pos())
					out = append(out, finding{severity: "low", file: name, line: l, excerpt: ex,
						problem: "type " + ts.Name.Name + " is exported without a doc comment", fix: "say what a " + ts.Name.Name + " is in a comment that starts with its name"})
				}
			}
		}
	}
	return out
}

// findingsOutput is the Markdown of a worker's findings, the most severe
// first.
func findingsOutput(found []finding, files []string) string {
	var b strings.Builder
	if len(found) == 0 {
		fmt.Fprintf(&b, "No finding in %s: no ignored error, panic, unfinished-work marker or undocumented exported name.\n", strings.Join(files, ", "))
		return b.String()
	}
	for _, sev := range []string{"high", "medium", "low"} {
		for _, f := range found {
			if f.severity == sev {
				b.WriteString("- " + f.String() + "\n")
			}
		}
	}
	return b.String()
}

// proposal is how a change the worker did not write reads in its report:
// the file, and its first lines.
func proposal(c Change) string {
	lines := strings.Split(c.Content, "\n")
	preview := strings.Join(lines[:min(12, len(lines))], "\n")
	what := "create"
	if c.Existed {
		what = "add to"
	}
	lang := strings.TrimPrefix(path.Ext(c.Path), ".")
	if lang == "md" {
		lang = "markdown"
	}
	return fmt.Sprintf("I would %s `%s` (%s):\n\n```%s\n%s\n```\n", what, c.Path, count(len(lines), "line"), lang, preview)
}
