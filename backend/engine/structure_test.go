package engine

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The engine's size, held (issue 23): the run loop sequences and each
// concern lives in its own type or package, so the package stays small.
const (
	maxEngineLines  = 6000 // non-test lines of the package
	maxRunnerMethod = 40   // methods of type runner
	maxFileLines    = 500  // lines of one non-test file
)

// engineShape is the size of the non-test Go files in dir: lines in all,
// the largest file, and the methods declared on type runner.
type engineShape struct {
	lines, largest, runnerMethods int
	largestFile                   string
}

func measure(t *testing.T, dir string) engineShape {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var s engineShape
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		n := bytes.Count(src, []byte("\n"))
		if len(src) > 0 && src[len(src)-1] != '\n' {
			n++
		}
		s.lines += n
		if n > s.largest {
			s.largest, s.largestFile = n, filepath.Base(name)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) == 0 {
				continue
			}
			typ := fn.Recv.List[0].Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			if id, ok := typ.(*ast.Ident); ok && id.Name == "runner" {
				s.runnerMethods++
			}
		}
	}
	return s
}

// check lists every target s exceeds.
func (s engineShape) check(maxLines, maxMethods, maxFile int) []string {
	var out []string
	if s.lines > maxLines {
		out = append(out, fmt.Sprintf("the engine has %d non-test lines, more than %d", s.lines, maxLines))
	}
	if s.runnerMethods > maxMethods {
		out = append(out, fmt.Sprintf("type runner has %d methods, more than %d", s.runnerMethods, maxMethods))
	}
	if s.largest > maxFile {
		out = append(out, fmt.Sprintf("%s has %d lines, more than %d", s.largestFile, s.largest, maxFile))
	}
	return out
}

// The engine stays within the targets of issue 23; a new concern goes into
// a type or package of its own (doc.go), not onto the runner.
func TestEngineStructure(t *testing.T) {
	t.Parallel()
	s := measure(t, ".")
	t.Logf("engine: %d non-test lines, runner: %d methods, largest file: %s (%d lines)", s.lines, s.runnerMethods, s.largestFile, s.largest)
	for _, p := range s.check(maxEngineLines, maxRunnerMethod, maxFileLines) {
		t.Error(p + ": move the concern into a type or package of its own (see doc.go)")
	}
}

// The measure counts what it says: a package written here has the lines,
// the runner methods and the largest file it was given, and each bound
// fails once exceeded.
func TestEngineStructureMeasures(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", "package x\n\ntype runner struct{}\n\nfunc (r *runner) a() {}\nfunc (r runner) b()  {}\n")
	write("b.go", "package x\n\ntype other struct{}\n\nfunc (o *other) c() {}\nfunc d()            {}\n\n\n\n")
	write("b_test.go", "package x\n\nfunc (r *runner) e() {}\n")
	s := measure(t, dir)
	if s.lines != 15 || s.runnerMethods != 2 || s.largest != 9 || s.largestFile != "b.go" {
		t.Fatalf("measured %+v, want 15 lines, 2 runner methods, b.go with 9", s)
	}
	if p := s.check(15, 2, 9); len(p) != 0 {
		t.Errorf("within the bounds: %v", p)
	}
	if p := s.check(14, 1, 8); len(p) != 3 {
		t.Errorf("over every bound: %v", p)
	}
}
