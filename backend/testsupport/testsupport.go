// Package testsupport holds what Baton's tests in several packages need in
// the same form: writing a project tree from a map, reading one back,
// copying a folder, a git repository to work on, and the rule for tests
// that need Chromium. Only tests import it.
//
// Its one rule: a helper is here once, not copied into the test files
// of each package that wants it.
package testsupport

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// WriteTree writes files (a path relative to dir, with '/' separators, to
// its content) under dir, making the folders they need, and returns dir.
func WriteTree(t testing.TB, dir string, files map[string]string) string {
	t.Helper()
	for name, body := range files {
		WriteFile(t, filepath.Join(dir, filepath.FromSlash(name)), body)
	}
	return dir
}

// Project writes files into a new temporary folder and returns it.
func Project(t testing.TB, files map[string]string) string {
	t.Helper()
	return WriteTree(t, t.TempDir(), files)
}

// ReadTree returns every regular file under dir, by its path relative to
// dir with '/' separators, with its content. The .git folder and the
// folders named in skip are left out.
func ReadTree(t testing.TB, dir string, skip ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && (d.Name() == ".git" || slices.Contains(skip, d.Name())) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// CopyDir copies the files directly in from (not its sub-folders) into
// to, made if missing, each readable by the user only.
func CopyDir(t testing.TB, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o700); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// NeedChromium skips a test that starts Chromium under -short, and fails
// it when Chromium is not installed: under make test a missing dependency
// is a failure, never a silent skip.
func NeedChromium(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts Chromium; skipped under -short")
	}
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Fatal("this test starts Chromium, which is not installed; \"make test-deps\" installs it")
	}
}

// Git runs git with args in dir ("" for the test's own folder), as a test
// user with a fixed identity, and returns its output (standard output and
// error) as git wrote it; a failure fails the test.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=Baton Test", "GIT_AUTHOR_EMAIL=test@baton.invalid",
		"GIT_COMMITTER_NAME=Baton Test", "GIT_COMMITTER_EMAIL=test@baton.invalid",
		"GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

// GitRepo writes files into dir (made if missing), makes it a git
// repository on branch main, commits them all as "first" and returns dir.
func GitRepo(t testing.TB, dir string, files map[string]string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	WriteTree(t, dir, files)
	Git(t, dir, "init", "-q", "-b", "main")
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "-m", "first")
	return dir
}

// WriteFile writes body to path, making the folders it needs.
func WriteFile(t testing.TB, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
