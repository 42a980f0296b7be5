package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The faces of Baton, the window's bindings (this package) and the
// terminal (backend/console), reach the engine and the store only through
// the use cases of backend/service and the types of backend/view, so that
// they cannot disagree. Their non-test files, under every build tag, import
// neither.
func TestFacesImportNeitherEngineNorStore(t *testing.T) {
	t.Parallel()
	forbidden := []string{"github.com/baton-app/baton/backend/engine", "github.com/baton-app/baton/backend/store"}
	for _, dir := range []string{".", "backend/console"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				for _, bad := range forbidden {
					if path == bad {
						t.Errorf("%s imports %s: go through backend/service and backend/view", file, path)
					}
				}
			}
		}
		if checked == 0 {
			t.Errorf("no Go files in %s", dir)
		}
	}
}
