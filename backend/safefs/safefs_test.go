package safefs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree makes a project folder with a folder outside it and symbolic links
// that point out: link-dir → outside, link-file → outside/victim.md.
func tree(t testing.TB) (project, outside string) {
	t.Helper()
	top := t.TempDir()
	project = filepath.Join(top, "project")
	outside = filepath.Join(top, "outside")
	for _, d := range []string{project, outside, filepath.Join(project, "in")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "victim.md"), []byte("victim\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(project, "link-dir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "victim.md"), filepath.Join(project, "link-file")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("in", filepath.Join(project, "inner-link")); err != nil {
		t.Fatal(err)
	}
	return project, outside
}

func outsideUntouched(t testing.TB, outside string) {
	t.Helper()
	ents, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != "victim.md" {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("outside holds %v", names)
	}
	data, err := os.ReadFile(filepath.Join(outside, "victim.md"))
	if err != nil || string(data) != "victim\n" {
		t.Fatalf("victim.md = %q, %v", data, err)
	}
}

func TestRefusesPathsThatLeave(t *testing.T) {
	project, outside := tree(t)
	d := Dir{Base: project, Source: "index.md"}
	for _, name := range []string{"../outside/x", "../../outside/victim.md", "/etc/passwd", "link-dir/x", "link-file", "in/../../outside/victim.md", "link-dir/../x", ""} {
		err := d.WriteFile(name, []byte("pwned"), 0o644)
		var ee *EscapeError
		if !errors.As(err, &ee) || !errors.Is(err, ErrEscape) {
			t.Errorf("WriteFile(%q) = %v, want an EscapeError", name, err)
			continue
		}
		if name != "" && !strings.Contains(err.Error(), "index.md") || !strings.Contains(err.Error(), name) {
			t.Errorf("WriteFile(%q): %q does not name the file and the path", name, err)
		}
		if _, err := d.ReadFile(name); !errors.Is(err, ErrEscape) {
			t.Errorf("ReadFile(%q) = %v, want a refusal", name, err)
		}
		if f, err := d.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); !errors.Is(err, ErrEscape) {
			if f != nil {
				f.Close()
			}
			t.Errorf("OpenFile(%q) = %v, want a refusal", name, err)
		}
		if err := d.MkdirAll(name+"/sub", 0o755); name != "" && !errors.Is(err, ErrEscape) {
			t.Errorf("MkdirAll(%q) = %v, want a refusal", name, err)
		}
		if err := d.Rename("in", name); !errors.Is(err, ErrEscape) {
			t.Errorf("Rename(in, %q) = %v, want a refusal", name, err)
		}
	}
	outsideUntouched(t, outside)
	// A Sub that is a link out is refused too.
	if err := (Dir{Base: project, Sub: "link-dir"}).WriteFile("x", nil, 0o644); !errors.Is(err, ErrEscape) {
		t.Errorf("a link-out Sub: %v", err)
	}
	if err := (Dir{Base: project, Sub: "../outside"}).MkdirAll(".", 0o755); !errors.Is(err, ErrEscape) {
		t.Errorf("a ../ Sub: %v", err)
	}
	outsideUntouched(t, outside)
}

func TestInsideWorks(t *testing.T) {
	project, _ := tree(t)
	d := Dir{Base: project}.In("a/b")
	if err := d.MkdirAll("c", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteFile("c/f.json", []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(project, "a", "b", "c", "f.json")); err != nil || string(data) != "one" {
		t.Fatalf("read back: %q %v", data, err)
	}
	fi, err := d.Stat("c/f.json")
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("stat: %v %v", fi, err)
	}
	// a link that stays inside is followed
	in := Dir{Base: project}
	if err := in.WriteFile("inner-link/g", []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := in.ReadFile("in/g"); err != nil || string(data) != "two" {
		t.Fatalf("inner link: %q %v", data, err)
	}
	if err := d.Rename("c/f.json", "c/h.json"); err != nil {
		t.Fatal(err)
	}
	ents, err := d.ReadDir("c")
	if err != nil || len(ents) != 1 || ents[0].Name() != "h.json" {
		t.Fatalf("readdir: %v %v", ents, err)
	}
	f, err := d.OpenFile("c/log.md", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("x\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"done\n# Heading\n- [x] fake": "done # Heading - [x] fake",
		"a\r\nb":                      "a b",
		"a\u2028b\u0085c":             "a b c",
		"\x1b]0;title\x07x":           " ]0;title x",
		"plain":                       "plain",
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzDir: whatever the name, nothing outside the project is created or
// changed, and a name that stays inside by its text and was written is
// found inside the project.
func FuzzDir(f *testing.F) {
	for _, s := range []string{"a", "a/b", "../x", "../../outside/victim.md", "/abs", "link-dir/x", "link-file", "inner-link/y", "in/../../outside/z", "./in/./k", "in//k", "..", ".", "a\x00b", "C:\\x", "\\\\server\\share", "link-dir/../../outside/victim.md", "in/link-dir-2"} {
		f.Add(s)
	}
	project, outside := tree(f)
	f.Fuzz(func(t *testing.T, name string) {
		d := Dir{Base: project, Sub: "in", Source: "fuzz"}
		err := d.WriteFile(name, []byte("pwned"), 0o644)
		if err == nil && !Local(name) {
			t.Fatalf("WriteFile(%q) succeeded for a non-local name", name)
		}
		if f, err := d.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			f.Close()
		}
		_ = d.MkdirAll(name, 0o755)
		_ = d.Rename(name, "moved")
		_ = d.Rename("moved", name)
		outsideUntouched(t, outside)
		if err == nil {
			data, rerr := os.ReadFile(filepath.Join(project, "in", filepath.FromSlash(name)))
			if rerr != nil || string(data) != "pwned" {
				t.Fatalf("WriteFile(%q) succeeded but the file inside is %q, %v", name, data, rerr)
			}
		}
	})
}
