package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeLayoutListsEveryPackage: the README's Layout names every Go
// package under backend/ with its one job, and names no package that is gone.
func TestReadmeLayoutListsEveryPackage(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, layout, ok := strings.Cut(string(readme), "\n## Layout\n")
	if !ok {
		t.Fatal("README.md has no Layout section")
	}
	if i := strings.Index(layout, "\n## "); i >= 0 {
		layout = layout[:i]
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(layout, "\n") {
		if rest, ok := strings.CutPrefix(line, "| `backend/"); ok {
			name, job, _ := strings.Cut(rest, "` |")
			if strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(job), "|")) == "" {
				t.Errorf("backend/%s is listed without its job", name)
			}
			listed["backend/"+name] = true
		}
	}
	found := map[string]bool{}
	err = filepath.WalkDir("backend", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			found[filepath.ToSlash(filepath.Dir(p))] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p := range found {
		if !listed[p] {
			t.Errorf("README's Layout does not list %s", p)
		}
	}
	for p := range listed {
		if !found[p] {
			t.Errorf("README's Layout lists %s, which holds no Go package", p)
		}
	}
}
