package agent

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// The Go tests the agent writes for a package: a test that calls each
// exported function it can give inputs to (basic values, slices and maps
// of them, readers of a string) twice with the same inputs and checks that
// both calls answer the same (errors by their message, results it cannot
// compare by whether they are nil) or panic the same way, within a time
// limit; and the
// signature of every exported function, pinned so that a change of the
// package's API breaks the test's build. It writes only code it can be
// sure compiles: the package's own name, no import of the package, no
// generics or "any" (old go directives), names that start with Baton.
//
// Which functions it calls: those whose bodies (and the package functions
// and methods they call) start no goroutine, use no channel, assign no
// package variable, and call nothing of the standard library that touches
// the system (files, network, processes, clocks, randomness, logs).

// deniedCall reports whether calling name of the standard package imp can
// reach the system or wait.
func deniedCall(imp, name string) bool {
	switch imp {
	case "path/filepath":
		return slices.Contains([]string{"Abs", "EvalSymlinks", "Glob", "Walk", "WalkDir"}, name)
	case "io/ioutil":
		return slices.Contains([]string{"ReadFile", "WriteFile", "ReadDir", "TempDir", "TempFile"}, name)
	case "net/url", "net/netip", "net/mail", "net/textproto":
		return false
	case "os", "net", "syscall", "log", "runtime", "sync", "time", "math/rand", "math/rand/v2", "crypto/rand", "unsafe",
		"plugin", "context", "flag", "testing", "hash/maphash", "expvar", "embed", "database/sql", "C":
		return true
	}
	for _, p := range []string{"os/", "net/", "runtime/", "sync/", "log/", "debug/", "database/", "testing/"} {
		if strings.HasPrefix(imp, p) {
			return true
		}
	}
	return false
}

// systemValue reports whether a value of the standard package imp (not a
// call) belongs to the system: os.Args, os.Stdout, runtime.GOOS.
func systemValue(imp string) bool {
	return imp == "os" || imp == "syscall" || imp == "runtime" || imp == "unsafe"
}

var basicTypes = map[string][2]string{ // type → zero literal, sample literal
	"string": {`""`, `"baton"`}, "bool": {"false", "true"},
	"int": {"0", "3"}, "int8": {"0", "3"}, "int16": {"0", "3"}, "int32": {"0", "3"}, "int64": {"0", "3"},
	"uint": {"0", "3"}, "uint8": {"0", "3"}, "uint16": {"0", "3"}, "uint32": {"0", "3"}, "uint64": {"0", "3"}, "uintptr": {"0", "3"},
	"float32": {"0", "1.5"}, "float64": {"0", "1.5"}, "byte": {"0", "'b'"}, "rune": {"0", "'b'"},
}

// goTests writes the tests of a package.
type goTests struct {
	p       *goPackage
	funcs   map[string]*ast.FuncDecl
	methods map[string][]*ast.FuncDecl
	types   map[string]ast.Expr
	vars    map[string]ast.Expr // package variable → its value (nil: none)
	imports map[*ast.FuncDecl]map[string]string
	pure    map[*ast.FuncDecl]bool
}

func newGoTests(p *goPackage) *goTests {
	g := &goTests{p: p, funcs: map[string]*ast.FuncDecl{}, methods: map[string][]*ast.FuncDecl{}, types: map[string]ast.Expr{},
		vars: map[string]ast.Expr{}, imports: map[*ast.FuncDecl]map[string]string{}, pure: map[*ast.FuncDecl]bool{}}
	for _, f := range p.files {
		imps := map[string]string{}
		for _, is := range f.Imports {
			ip := strings.Trim(is.Path.Value, `"`)
			name := path.Base(ip)
			if strings.HasPrefix(name, "v") && strings.Trim(name[1:], "0123456789") == "" && path.Dir(ip) != "." {
				name = path.Base(path.Dir(ip)) // math/rand/v2
			}
			name = strings.TrimPrefix(strings.Split(name, ".")[0], "go-")
			if is.Name != nil {
				name = is.Name.Name
			}
			imps[name] = ip
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				g.imports[d] = imps
				if d.Recv == nil {
					g.funcs[d.Name.Name] = d
				} else {
					g.methods[d.Name.Name] = append(g.methods[d.Name.Name], d)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.TypeParams == nil {
							g.types[s.Name.Name] = s.Type
						}
					case *ast.ValueSpec:
						if d.Tok != token.VAR {
							continue
						}
						for i, n := range s.Names {
							var v ast.Expr
							if i < len(s.Values) {
								v = s.Values[i]
							}
							g.vars[n.Name] = v
						}
					}
				}
			}
		}
	}
	g.settle()
	return g
}

// settle decides which functions and methods are pure enough to call:
// none of them is, directly or through what it calls.
func (g *goTests) settle() {
	type facts struct {
		direct         bool
		funcs, methods []string
	}
	all := map[*ast.FuncDecl]facts{}
	for _, fd := range g.funcs {
		d, fs, ms := g.scan(fd)
		all[fd] = facts{d, fs, ms}
	}
	for _, list := range g.methods {
		for _, fd := range list {
			d, fs, ms := g.scan(fd)
			all[fd] = facts{d, fs, ms}
		}
	}
	for fd, f := range all {
		g.pure[fd] = !f.direct
	}
	for changed := true; changed; {
		changed = false
		for fd, f := range all {
			if !g.pure[fd] {
				continue
			}
			bad := slices.ContainsFunc(f.funcs, func(n string) bool { return !g.pure[g.funcs[n]] })
			for _, mname := range f.methods {
				for _, m := range g.methods[mname] {
					bad = bad || !g.pure[m]
				}
			}
			if bad {
				g.pure[fd] = false
				changed = true
			}
		}
	}
}

// rootIdent is the variable an expression such as a.b[c].d starts from.
func rootIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// scan reads a function's body: whether it is impure by itself, and the
// package functions and method names it calls.
func (g *goTests) scan(fd *ast.FuncDecl) (impure bool, funcs, methods []string) {
	if fd.Body == nil {
		return true, nil, nil
	}
	imps := g.imports[fd]
	local := map[string]bool{}
	for _, fl := range []*ast.FieldList{fd.Recv, fd.Type.Params, fd.Type.Results} {
		if fl == nil {
			continue
		}
		for _, f := range fl.List {
			for _, n := range f.Names {
				local[n.Name] = true
			}
		}
	}
	global := func(e ast.Expr) bool {
		id := rootIdent(e)
		if id == nil || local[id.Name] {
			return false
		}
		_, ok := g.vars[id.Name]
		return ok
	}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.GoStmt, *ast.SelectStmt, *ast.SendStmt:
			impure = true
		case *ast.UnaryExpr:
			impure = impure || x.Op == token.ARROW
		case *ast.AssignStmt:
			for _, l := range x.Lhs {
				if x.Tok == token.DEFINE {
					if id, ok := l.(*ast.Ident); ok {
						local[id.Name] = true
					}
					continue
				}
				impure = impure || global(l)
			}
		case *ast.ValueSpec:
			for _, id := range x.Names {
				local[id.Name] = true
			}
		case *ast.IncDecStmt:
			impure = impure || global(x.X)
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && !local[id.Name] {
				if imp, ok := imps[id.Name]; ok && systemValue(imp) {
					impure = true
				}
			}
		case *ast.CallExpr:
			switch f := x.Fun.(type) {
			case *ast.Ident:
				if _, ok := g.funcs[f.Name]; ok && !local[f.Name] {
					funcs = append(funcs, f.Name)
				}
			case *ast.SelectorExpr:
				if id, ok := f.X.(*ast.Ident); ok && !local[id.Name] {
					if imp, ok := imps[id.Name]; ok {
						impure = impure || deniedCall(imp, f.Sel.Name)
						break
					}
					if v, ok := g.vars[id.Name]; ok && !g.safeValue(v, imps) {
						impure = true
					}
				}
				methods = append(methods, f.Sel.Name)
			}
		}
		return true
	})
	return impure, funcs, methods
}

// safeValue reports whether a package variable's methods may be called:
// it holds what a call of a standard package that touches nothing made,
// such as regexp.MustCompile(…).
func (g *goTests) safeValue(v ast.Expr, imps map[string]string) bool {
	call, ok := v.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	if !ok {
		return false
	}
	imp, ok := imps[id.Name]
	return ok && !strings.Contains(imp, ".") && !deniedCall(imp, sel.Sel.Name)
}

// underlying is the basic type a type expression stands for ("" when it
// is not one), following the package's own named types.
func (g *goTests) underlying(e ast.Expr, depth int) string {
	id, ok := e.(*ast.Ident)
	if !ok || depth > 4 {
		return ""
	}
	if _, ok := basicTypes[id.Name]; ok {
		return id.Name
	}
	if t, ok := g.types[id.Name]; ok {
		return g.underlying(t, depth+1)
	}
	return ""
}

// literal is a value of type e for a call in fd: its zero value (an
// empty reader), or a sample; false when the agent cannot build one.
func (g *goTests) literal(fd *ast.FuncDecl, e ast.Expr, sample bool) (string, bool) {
	i := 0
	if sample {
		i = 1
	}
	if b := g.underlying(e, 0); b != "" {
		return basicTypes[b][i], true
	}
	switch t := e.(type) {
	case *ast.SelectorExpr:
		if id, ok := t.X.(*ast.Ident); ok && g.imports[fd][id.Name] == "io" && t.Sel.Name == "Reader" {
			if sample {
				return `batonstrings.NewReader("baton")`, true
			}
			return `batonstrings.NewReader("")`, true
		}
		return "", false
	case *ast.ArrayType:
		if t.Len != nil {
			return "", false
		}
		elt := g.underlying(t.Elt, 0)
		if elt == "" || t.Elt.(*ast.Ident).Name != elt {
			return "", false
		}
		if !sample {
			return "nil", true
		}
		if elt == "byte" || elt == "uint8" {
			return "[]" + elt + `("baton")`, true
		}
		return fmt.Sprintf("[]%s{%s, %s}", elt, basicTypes[elt][1], basicTypes[elt][1]), true
	case *ast.MapType:
		k, v := g.underlying(t.Key, 0), g.underlying(t.Value, 0)
		if k == "" || v == "" || t.Key.(*ast.Ident).Name != k || t.Value.(*ast.Ident).Name != v {
			return "", false
		}
		if !sample {
			return "nil", true
		}
		return fmt.Sprintf("map[%s]%s{%s: %s}", k, v, basicTypes[k][1], basicTypes[v][1]), true
	}
	return "", false
}

// comparable reports whether results of type e can be compared with
// reflect.DeepEqual from one call to the next: no functions, channels or
// interfaces (but error), nothing of other packages.
func (g *goTests) comparable(e ast.Expr, depth int) bool {
	if depth > 4 {
		return false
	}
	switch t := e.(type) {
	case *ast.Ident:
		if _, ok := basicTypes[t.Name]; ok || t.Name == "error" {
			return true
		}
		if u, ok := g.types[t.Name]; ok {
			return g.comparable(u, depth+1)
		}
	case *ast.StarExpr:
		return g.comparable(t.X, depth+1)
	case *ast.ArrayType:
		return g.comparable(t.Elt, depth+1)
	case *ast.MapType:
		return g.comparable(t.Key, depth+1) && g.comparable(t.Value, depth+1)
	case *ast.StructType:
		for _, f := range t.Fields.List {
			if !g.comparable(f.Type, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// call is one call a test makes: its text, and how each result is
// compared ("value", "error" by its message, "shape": nil or set).
type call struct {
	expr    string
	results []string
}

// calls are the calls of an exported function the tests make: with zero
// values and with samples (one call for a function without parameters);
// none when the agent cannot call it.
func (g *goTests) calls(fd *ast.FuncDecl) []call {
	if !fd.Name.IsExported() || fd.Recv != nil || fd.Type.TypeParams != nil || !g.pure[fd] || fd.Type.Results == nil {
		return nil
	}
	var results []string
	for _, r := range fd.Type.Results.List {
		how := "shape"
		switch {
		case isIdent(r.Type, "error"):
			how = "error"
		case g.comparable(r.Type, 0):
			how = "value"
		}
		for range max(1, len(r.Names)) {
			results = append(results, how)
		}
	}
	var out []call
	for _, sample := range []bool{false, true} {
		var args []string
		for _, p := range fd.Type.Params.List {
			t := p.Type
			if el, ok := t.(*ast.Ellipsis); ok {
				if !sample {
					continue
				}
				lit, ok := g.literal(fd, el.Elt, true)
				if !ok {
					continue
				}
				args = append(args, lit)
				continue
			}
			lit, ok := g.literal(fd, t, sample)
			if !ok {
				return nil
			}
			for range max(1, len(p.Names)) {
				args = append(args, lit)
			}
		}
		out = append(out, call{expr: fd.Name.Name + "(" + strings.Join(args, ", ") + ")", results: results})
		if len(fd.Type.Params.List) == 0 {
			break
		}
	}
	return out
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// local reports whether a type expression names nothing of another
// package (so a test of the package can write it without imports).
func local(e ast.Node) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		if _, sel := n.(*ast.SelectorExpr); sel {
			ok = false
		}
		return ok
	})
	return ok
}

// exportedName is s with its first letter upper case, letters and digits
// only.
func exportedName(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// goTestFile writes the test file name ("store_test.go", whose base names
// its functions) of the package in dir, from the texts of its files, for
// task id; cases is how many calls it makes, pinned how many signatures
// it pins.
func goTestFile(dir string, texts map[string]string, name, id string) (text string, cases, pinned int) {
	g := newGoTests(parseGoPackage(dir, texts))
	suffix := exportedName(strings.TrimSuffix(path.Base(name), "_test.go"))
	var names []string
	for n := range g.funcs {
		names = append(names, n)
	}
	sort.Strings(names)
	var pins, rows []string
	readers := false
	for _, n := range names {
		fd := g.funcs[n]
		if !fd.Name.IsExported() || fd.Type.TypeParams != nil {
			continue
		}
		if local(fd.Type) {
			pins = append(pins, fmt.Sprintf("\t_ %s = %s", g.p.node(fd.Type), n))
		}
		for _, c := range g.calls(fd) {
			var rs, vs []string
			for i, how := range c.results {
				r := fmt.Sprintf("r%d", i)
				rs = append(rs, r)
				switch how {
				case "error":
					vs = append(vs, "batonMessage"+suffix+"("+r+")")
				case "shape":
					vs = append(vs, "batonShape"+suffix+"("+r+")")
				default:
					vs = append(vs, r)
				}
			}
			readers = readers || strings.Contains(c.expr, "batonstrings.")
			name := strings.ReplaceAll(c.expr, "batonstrings.", "strings.")
			rows = append(rows, fmt.Sprintf("\t\t{%q, func() []interface{} {\n\t\t\t%s := %s\n\t\t\treturn []interface{}{%s}\n\t\t}},",
				name, strings.Join(rs, ", "), c.expr, strings.Join(vs, ", ")))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// Tests of package %s, written for %s by Baton's scripted agent (no AI) from\n", g.p.name, id)
	b.WriteString("// the package's exported functions: each one the agent can give inputs to is\n")
	b.WriteString("// called twice with the same inputs and must answer the same both times (or\n")
	b.WriteString("// panic the same way); the signatures below break this file's build when the\n")
	b.WriteString("// package's API changes.\n\n")
	fmt.Fprintf(&b, "package %s\n\n", g.p.name)
	if len(rows) > 0 {
		b.WriteString("import (\n\tbatonfmt \"fmt\"\n\tbatonreflect \"reflect\"\n")
		if readers {
			b.WriteString("\tbatonstrings \"strings\"\n")
		}
		b.WriteString("\tbatontesting \"testing\"\n\tbatontime \"time\"\n)\n\n")
	} else {
		b.WriteString("import batontesting \"testing\"\n\n")
	}
	if len(pins) > 0 {
		fmt.Fprintf(&b, "// The exported functions of %s and their signatures.\nvar (\n%s\n)\n\n", g.p.name, strings.Join(pins, "\n"))
	}
	if len(rows) == 0 {
		fmt.Fprintf(&b, "func TestBaton%sCalls(t *batontesting.T) {\n", suffix)
		fmt.Fprintf(&b, "\tt.Skip(\"no exported function of %s takes inputs Baton's scripted agent can build\")\n}\n", g.p.name)
		return b.String(), 0, len(pins)
	}
	fmt.Fprintf(&b, "func TestBaton%sCalls(t *batontesting.T) {\n", suffix)
	b.WriteString("\tcases := []struct {\n\t\tname string\n\t\tcall func() []interface{}\n\t}{\n")
	b.WriteString(strings.Join(rows, "\n") + "\n\t}\n")
	b.WriteString("\tfor _, c := range cases {\n\t\tc := c\n\t\tt.Run(c.name, func(t *batontesting.T) {\n")
	fmt.Fprintf(&b, "\t\t\tfirst, second := batonCall%s(t, c.call), batonCall%s(t, c.call)\n", suffix, suffix)
	b.WriteString("\t\t\tif !batonreflect.DeepEqual(first, second) {\n")
	b.WriteString("\t\t\t\tt.Errorf(\"%s answered %v, then %v\", c.name, first, second)\n\t\t\t}\n\t\t})\n\t}\n}\n\n")
	fmt.Fprintf(&b, "// batonCall%s calls f and returns its results, or \"panic\" and the\n", suffix)
	b.WriteString("// panic's value; it skips the test when f gives no answer in 5 seconds.\n")
	fmt.Fprintf(&b, "func batonCall%s(t *batontesting.T, f func() []interface{}) []interface{} {\n", suffix)
	b.WriteString("\tt.Helper()\n\tdone := make(chan []interface{}, 1)\n\tgo func() {\n\t\tdefer func() {\n")
	b.WriteString("\t\t\tif r := recover(); r != nil {\n\t\t\t\tdone <- []interface{}{\"panic\", batonfmt.Sprint(r)}\n\t\t\t}\n\t\t}()\n")
	b.WriteString("\t\tdone <- f()\n\t}()\n\tselect {\n\tcase out := <-done:\n\t\treturn out\n")
	b.WriteString("\tcase <-batontime.After(5 * batontime.Second):\n\t\tt.Skip(\"no answer in 5 seconds with these inputs\")\n\t\treturn nil\n\t}\n}\n")
	written := b.String()
	if strings.Contains(written, "batonMessage"+suffix+"(r") {
		fmt.Fprintf(&b, "\n// batonMessage%s is an error's message (nil for none): errors are\n// compared by what they say.\n", suffix)
		fmt.Fprintf(&b, "func batonMessage%s(err error) interface{} {\n\tif err == nil {\n\t\treturn nil\n\t}\n\treturn err.Error()\n}\n", suffix)
	}
	if strings.Contains(written, "batonShape"+suffix+"(r") {
		fmt.Fprintf(&b, "\n// batonShape%s is \"nil\" or \"set\": a result that cannot be compared\n// from one call to the next is compared by whether it is there.\n", suffix)
		fmt.Fprintf(&b, "func batonShape%s(v interface{}) interface{} {\n\tif v == nil {\n\t\treturn \"nil\"\n\t}\n", suffix)
		b.WriteString("\tswitch rv := batonreflect.ValueOf(v); rv.Kind() {\n\tcase batonreflect.Chan, batonreflect.Func, batonreflect.Interface, batonreflect.Map, batonreflect.Ptr, batonreflect.Slice:\n")
		b.WriteString("\t\tif rv.IsNil() {\n\t\t\treturn \"nil\"\n\t\t}\n\t}\n\treturn \"set\"\n}\n")
	}
	return b.String(), len(rows), len(pins)
}

// checkGo reports whether text parses as Go: the agent writes no file
// that does not.
func checkGo(name, text string) error {
	_, err := parser.ParseFile(token.NewFileSet(), name, text, 0)
	return err
}
