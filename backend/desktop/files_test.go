package desktop

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestInsideRun(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "docs", "a.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		want       string
		ok         bool
	}{
		{"relative file", "docs/a.md", filepath.Join(root, "docs", "a.md"), true},
		{"absolute file", filepath.Join(root, "docs", "a.md"), filepath.Join(root, "docs", "a.md"), true},
		{"empty means the folder", "", root, true},
		{"missing file inside", "docs/new.md", filepath.Join(root, "docs", "new.md"), true},
		{"parent", "..", "", false},
		{"dot-dot escape", "docs/../../etc/passwd", "", false},
		{"absolute outside", outside, "", false},
		{"symlink out of the folder", "escape", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := InsideFolder(root, tc.path)
			if tc.ok != (err == nil) {
				t.Fatalf("insideRun(%q) error = %v, want ok=%v", tc.path, err, tc.ok)
			}
			if tc.ok && got != tc.want {
				t.Fatalf("insideRun(%q) = %q, want %q", tc.path, got, tc.want)
			}
		})
	}
}

func TestCheckFolderAndShowRefuseBadPaths(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := CheckFolder(root); err != nil {
		t.Fatalf("CheckFolder(existing folder) = %v", err)
	}
	file := filepath.Join(root, "a.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{file, filepath.Join(root, "missing")} {
		if err := CheckFolder(dir); err == nil || err.Error() != "The folder "+dir+" does not exist." {
			t.Errorf("CheckFolder(%s) = %v", dir, err)
		}
	}
	var f FileManager
	defer f.Close(time.Second)
	if err := f.Show(root, "missing.md"); err == nil || err.Error() != filepath.Join(root, "missing.md")+" does not exist any more." {
		t.Errorf("Show(missing file) = %v", err)
	}
	if err := f.Show(root, ".."); err == nil {
		t.Error("Show(..) opened a folder outside the run's folder")
	}
}
