package desktop

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestEditorCommand(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, c := range []struct {
		name string
		env  map[string]string
		goos string
		want []string
	}{
		{"visual first", map[string]string{"VISUAL": "code --wait", "EDITOR": "gedit"}, "linux", []string{"code", "--wait", "/p/a.go"}},
		{"editor", map[string]string{"EDITOR": "/usr/bin/gedit"}, "linux", []string{"/usr/bin/gedit", "/p/a.go"}},
		{"a terminal editor is passed over", map[string]string{"VISUAL": "vim", "EDITOR": "kate"}, "linux", []string{"kate", "/p/a.go"}},
		{"only terminal editors", map[string]string{"VISUAL": "/usr/bin/nvim", "EDITOR": "emacs -nw"}, "linux", []string{"xdg-open", "/p/a.go"}},
		{"nothing set", map[string]string{}, "linux", []string{"xdg-open", "/p/a.go"}},
		{"macOS", map[string]string{}, "darwin", []string{"open", "/p/a.go"}},
		{"Windows", map[string]string{"EDITOR": "notepad.exe"}, "windows", []string{"notepad.exe", "/p/a.go"}},
		{"Windows opener", map[string]string{"EDITOR": "vim.exe"}, "windows", []string{"cmd", "/c", "start", "", "/p/a.go"}},
	} {
		if got := EditorCommand("/p/a.go", env(c.env), c.goos); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// Edit starts the user's editor on the file and does not wait for it.
func TestEditStartsTheEditor(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "myeditor")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"$@\" > "+dir+"/opened\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "a.go")
	if err := os.WriteFile(file, []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VISUAL", script+" --new-window")
	var f FileManager
	if err := f.Edit(file); err != nil {
		t.Fatal(err)
	}
	f.Close(5 * time.Second)
	if b, _ := os.ReadFile(filepath.Join(dir, "opened")); string(b) != "--new-window "+file+"\n" {
		t.Fatalf("the editor got %q", b)
	}
	if err := f.Edit(filepath.Join(dir, "gone.go")); err == nil {
		t.Fatal("a missing file was opened")
	}
}
