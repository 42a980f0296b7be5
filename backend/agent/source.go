package agent

import (
	"bytes"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// What the agent reads in source code, to document it and to test it: a
// Go package through the standard library's own parser and go/doc, a
// Python or JavaScript module by its top-level definitions.

// unit is a Go package or a script module, as a page documents it.
type unit struct {
	title      string // "Package store", "cart/cart.py"
	lang       string // "Go", "Python", "JavaScript", "TypeScript"
	dir        string // the folder ("." for the top)
	file       string // the module's file (scripts)
	doc        string // the package comment or the module's docstring
	importPath string // Go
	symbols    []symbol
	skipped    []string // files left out: build constraints, parse errors
}

// symbol is one exported name of a unit.
type symbol struct {
	kind    string // "func", "type", "const", "var", "class"
	name    string
	sig     string // the declaration without its body
	doc     string
	file    string
	line    int
	methods []symbol
}

var (
	knownOS   = strings.Fields("aix android darwin dragonfly freebsd hurd illumos ios js linux nacl netbsd openbsd plan9 solaris wasip1 windows zos")
	knownArch = strings.Fields("386 amd64 amd64p32 arm armbe arm64 arm64be loong64 mips mipsle mips64 mips64le mips64p32 mips64p32le ppc ppc64 ppc64le riscv riscv64 s390 s390x sparc sparc64 wasm")
)

// constrained reports whether a Go file builds only under some condition:
// a //go:build or // +build line before its package clause, a _GOOS or
// _GOARCH suffix, or cgo.
func constrained(name, text string) bool {
	base := strings.TrimSuffix(strings.TrimSuffix(path.Base(name), ".go"), "_test")
	if i := strings.Index(base, "_"); i >= 0 {
		parts := strings.Split(base[i+1:], "_")
		last := parts[len(parts)-1]
		if slices.Contains(knownOS, last) || slices.Contains(knownArch, last) {
			return true
		}
	}
	for line := range strings.SplitSeq(text, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "package ") {
			break
		}
		if strings.HasPrefix(l, "//go:build") || strings.HasPrefix(l, "// +build") {
			return true
		}
	}
	return strings.Contains(text, "import \"C\"")
}

// goPackage is a Go package read from the texts of its files.
type goPackage struct {
	dir, name string
	fset      *token.FileSet
	files     []*ast.File // the untagged files that parse, in name order
	names     []string    // their paths
	skipped   []string
}

// parseGoPackage reads the Go files of dir among texts (path → text): the
// untagged ones that parse and declare the package most of them declare.
func parseGoPackage(dir string, texts map[string]string) *goPackage {
	p := &goPackage{dir: dir, fset: token.NewFileSet()}
	var names []string
	for name := range texts {
		if path.Dir(name) == dir && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	byPkg := map[string]int{}
	type parsed struct {
		name string
		f    *ast.File
	}
	var ok []parsed
	for _, name := range names {
		if constrained(name, texts[name]) {
			p.skipped = append(p.skipped, name+" (builds only under a condition)")
			continue
		}
		f, err := parser.ParseFile(p.fset, name, texts[name], parser.ParseComments)
		if err != nil {
			p.skipped = append(p.skipped, name+" (does not parse: "+firstLine(err.Error(), 80)+")")
			continue
		}
		ok = append(ok, parsed{name, f})
		byPkg[f.Name.Name]++
	}
	for n, c := range byPkg {
		if c > byPkg[p.name] || c == byPkg[p.name] && n < p.name {
			p.name = n
		}
	}
	for _, f := range ok {
		if f.f.Name.Name == p.name {
			p.files = append(p.files, f.f)
			p.names = append(p.names, f.name)
		} else {
			p.skipped = append(p.skipped, f.name+" (package "+f.f.Name.Name+")")
		}
	}
	return p
}

// modulePath is the module path of a go.mod text.
func modulePath(gomod string) string {
	for line := range strings.SplitSeq(gomod, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// node prints an AST node as Go source.
func (p *goPackage) node(n any) string {
	var b bytes.Buffer
	if err := (&printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}).Fprint(&b, p.fset, n); err != nil {
		return ""
	}
	return b.String()
}

func (p *goPackage) pos(n ast.Node) (string, int) {
	pos := p.fset.Position(n.Pos())
	return pos.Filename, pos.Line
}

func (p *goPackage) funcSymbol(fd *ast.FuncDecl, docText string) symbol {
	cp := *fd
	cp.Body, cp.Doc = nil, nil
	file, line := p.pos(fd)
	return symbol{kind: "func", name: fd.Name.Name, sig: p.node(&cp), doc: docText, file: file, line: line}
}

// unit is the package as a page documents it: go/doc's view of its
// exported names.
func (p *goPackage) unit(module string) unit {
	u := unit{title: "Package " + p.name, lang: "Go", dir: p.dir, skipped: p.skipped}
	if module != "" {
		u.importPath = module
		if p.dir != "." {
			u.importPath += "/" + p.dir
		}
	}
	if len(p.files) == 0 {
		return u
	}
	d, err := doc.NewFromFiles(p.fset, p.files, u.importPath)
	if err != nil {
		return u
	}
	u.doc = d.Doc
	values := func(kind string, vs []*doc.Value) {
		for _, v := range vs {
			var names []string
			for _, s := range v.Decl.Specs {
				if vs, ok := s.(*ast.ValueSpec); ok {
					for _, n := range vs.Names {
						if n.IsExported() {
							names = append(names, n.Name)
						}
					}
				}
			}
			if len(names) == 0 {
				continue
			}
			file, line := p.pos(v.Decl)
			sig := p.node(v.Decl)
			if strings.Count(sig, "\n") > 12 {
				sig = kind + " " + strings.Join(names, ", ") + " // …"
			}
			u.symbols = append(u.symbols, symbol{kind: kind, name: strings.Join(names, ", "), sig: sig, doc: v.Doc, file: file, line: line})
		}
	}
	values("const", d.Consts)
	values("var", d.Vars)
	for _, f := range d.Funcs {
		u.symbols = append(u.symbols, p.funcSymbol(f.Decl, f.Doc))
	}
	for _, t := range d.Types {
		file, line := p.pos(t.Decl)
		sig := ""
		for _, s := range t.Decl.Specs {
			if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.Name == t.Name {
				sig = "type " + p.node(ts)
			}
		}
		if strings.Count(sig, "\n") > 15 {
			sig = strings.SplitN(sig, "\n", 2)[0] + " … }"
		}
		ts := symbol{kind: "type", name: t.Name, sig: sig, doc: t.Doc, file: file, line: line}
		for _, f := range t.Funcs {
			ts.methods = append(ts.methods, p.funcSymbol(f.Decl, f.Doc))
		}
		for _, f := range t.Methods {
			ts.methods = append(ts.methods, p.funcSymbol(f.Decl, f.Doc))
		}
		u.symbols = append(u.symbols, ts)
	}
	return u
}

var (
	pyDef      = regexp.MustCompile(`^(?:async\s+)?def\s+([A-Za-z]\w*)\s*\(([^)]*)\)`)
	pyClass    = regexp.MustCompile(`^class\s+([A-Za-z]\w*)`)
	jsFunc     = regexp.MustCompile(`^export\s+(?:default\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*(\([^)]*\))`)
	jsClass    = regexp.MustCompile(`^export\s+(?:default\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)`)
	jsConst    = regexp.MustCompile(`^export\s+(?:const|let|var)\s+([A-Za-z_$][\w$]*)`)
	jsList     = regexp.MustCompile(`^export\s*\{([^}]*)\}`)
	cjsExport  = regexp.MustCompile(`^(?:module\.)?exports\.([A-Za-z_$][\w$]*)\s*=`)
	cjsObject  = regexp.MustCompile(`(?s)module\.exports\s*=\s*\{([^}]*)\}`)
	plainFunc  = regexp.MustCompile(`^(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*(\([^)]*\))`)
	identifier = regexp.MustCompile(`^[A-Za-z_$][\w$]*$`)
)

// scriptLang is the language of a Python or JavaScript file, "" for
// others.
func scriptLang(name string) string {
	switch path.Ext(name) {
	case ".py":
		return "Python"
	case ".js", ".mjs", ".cjs", ".jsx":
		return "JavaScript"
	case ".ts", ".tsx", ".mts", ".cts":
		return "TypeScript"
	}
	return ""
}

// scriptUnit reads a Python or JavaScript module's public names.
func scriptUnit(name, text string) unit {
	u := unit{title: name, lang: scriptLang(name), dir: path.Dir(name), file: name}
	lines := strings.Split(text, "\n")
	if u.lang == "Python" {
		u.doc = pyDocstring(lines, 0)
		for i, l := range lines {
			if m := pyDef.FindStringSubmatch(l); m != nil && !strings.HasPrefix(m[1], "_") {
				u.symbols = append(u.symbols, symbol{kind: "func", name: m[1], sig: "def " + m[1] + "(" + strings.Join(strings.Fields(m[2]), " ") + ")",
					doc: pyDocstring(lines, i+1), file: name, line: i + 1})
			} else if m := pyClass.FindStringSubmatch(l); m != nil && !strings.HasPrefix(m[1], "_") {
				u.symbols = append(u.symbols, symbol{kind: "class", name: m[1], sig: strings.TrimSuffix(strings.TrimSpace(l), ":"),
					doc: pyDocstring(lines, i+1), file: name, line: i + 1})
			}
		}
		return u
	}
	funcs := map[string]symbol{}
	exported := map[string]bool{}
	for i, l := range lines {
		d := jsDoc(lines, i)
		switch {
		case jsFunc.MatchString(l):
			m := jsFunc.FindStringSubmatch(l)
			u.symbols = append(u.symbols, symbol{kind: "func", name: m[1], sig: "function " + m[1] + m[2], doc: d, file: name, line: i + 1})
		case jsClass.MatchString(l):
			m := jsClass.FindStringSubmatch(l)
			u.symbols = append(u.symbols, symbol{kind: "class", name: m[1], sig: "class " + m[1], doc: d, file: name, line: i + 1})
		case jsConst.MatchString(l):
			m := jsConst.FindStringSubmatch(l)
			u.symbols = append(u.symbols, symbol{kind: "const", name: m[1], sig: strings.TrimSuffix(strings.TrimSpace(firstLine(l, 100)), "{"), doc: d, file: name, line: i + 1})
		case plainFunc.MatchString(l):
			m := plainFunc.FindStringSubmatch(l)
			funcs[m[1]] = symbol{kind: "func", name: m[1], sig: "function " + m[1] + m[2], doc: d, file: name, line: i + 1}
		}
		if m := jsList.FindStringSubmatch(l); m != nil {
			for _, n := range strings.Split(m[1], ",") {
				exported[strings.TrimSpace(strings.Split(strings.TrimSpace(n), " as ")[0])] = true
			}
		}
		if m := cjsExport.FindStringSubmatch(l); m != nil {
			exported[m[1]] = true
		}
	}
	if m := cjsObject.FindStringSubmatch(text); m != nil {
		for _, n := range strings.Split(m[1], ",") {
			n, _, _ = strings.Cut(strings.TrimSpace(n), ":")
			exported[strings.TrimSpace(n)] = true
		}
	}
	var names []string
	for n := range exported {
		if identifier.MatchString(n) && !slices.ContainsFunc(u.symbols, func(s symbol) bool { return s.name == n }) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		s, ok := funcs[n]
		if !ok {
			s = symbol{kind: "const", name: n, sig: n, file: name}
		}
		u.symbols = append(u.symbols, s)
	}
	return u
}

// commonJS reports whether a JavaScript module exports with module.exports
// rather than export statements.
func commonJS(text string) bool {
	return !regexp.MustCompile(`(?m)^export\s`).MatchString(text) &&
		(strings.Contains(text, "module.exports") || regexp.MustCompile(`(?m)^exports\.`).MatchString(text))
}

// pyDocstring is the docstring that starts on line i (the first
// non-blank line there), "" when none does.
func pyDocstring(lines []string, i int) string {
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i >= len(lines) {
		return ""
	}
	l := strings.TrimSpace(lines[i])
	q := ""
	for _, quote := range []string{`"""`, `'''`} {
		if strings.HasPrefix(l, quote) {
			q = quote
		}
	}
	if q == "" {
		return ""
	}
	rest := l[len(q):]
	if end := strings.Index(rest, q); end >= 0 {
		return strings.TrimSpace(rest[:end])
	}
	var b []string
	b = append(b, rest)
	for _, next := range lines[i+1:] {
		if end := strings.Index(next, q); end >= 0 {
			b = append(b, next[:end])
			break
		}
		b = append(b, next)
	}
	return strings.TrimSpace(dedent(strings.Join(b, "\n")))
}

func dedent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, "\n")
}

// jsDoc is the /** … */ comment that ends just above line i.
func jsDoc(lines []string, i int) string {
	j := i - 1
	if j < 0 || !strings.HasSuffix(strings.TrimSpace(lines[j]), "*/") {
		return ""
	}
	var b []string
	for ; j >= 0; j-- {
		l := strings.TrimSpace(lines[j])
		b = append([]string{strings.TrimSpace(strings.TrimLeft(strings.TrimSuffix(strings.TrimPrefix(l, "/**"), "*/"), "* "))}, b...)
		if strings.HasPrefix(l, "/*") {
			break
		}
	}
	return strings.TrimSpace(strings.Join(b, "\n"))
}

// synopsis is the first sentence of a doc text, on one line.
func synopsis(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	for i := 0; i+1 < len(text); i++ {
		if text[i] == '.' && text[i+1] == ' ' {
			return text[:i+1]
		}
	}
	return text
}
