package template

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzValidate feeds arbitrary documents to the validator and the draft
// resolver. Neither may panic, and they must agree: a document Validate
// accepts resolves, and one it rejects does not.
func FuzzValidate(f *testing.F) {
	for _, pattern := range []string{"testdata/invalid/*.json", "testdata/store/*.json", "../../templates/*.json"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte(`{"id": "x", "name": "X", "extends": "x"}`))
	f.Add([]byte(`{"id": "x", "name": "X", "extends": "_default", "variables": {"A": {"default": 1}}}`))
	dir := filepath.Join(f.TempDir(), "templates")
	copyDirF(f, "testdata/store", dir)
	m, err := New(dir, Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		problems := m.Validate(data)
		r, err := m.ResolveDocument(data)
		switch {
		case problems == nil && err != nil:
			t.Fatalf("Validate accepts the document but ResolveDocument fails: %v", err)
		case problems != nil && err == nil:
			t.Fatalf("Validate rejects the document (%v) but ResolveDocument succeeds", problems)
		case err != nil && !errors.Is(err, ErrInvalid):
			t.Fatalf("ResolveDocument failed with %v, which is not ErrInvalid", err)
		case err == nil && r.Template.ID == "":
			t.Fatal("a resolved template has no id")
		}
	})
}

func copyDirF(f *testing.F, from, to string) {
	if err := os.MkdirAll(to, 0o700); err != nil {
		f.Fatal(err)
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o600); err != nil {
			f.Fatal(err)
		}
	}
}
