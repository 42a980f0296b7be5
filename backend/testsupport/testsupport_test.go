package testsupport

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteAndReadTree(t *testing.T) {
	t.Parallel()
	files := map[string]string{"go.mod": "module x\n", "a/b/c.go": "package b\n"}
	dir := Project(t, files)
	if err := os.WriteFile(filepath.Join(dir, "a", "link"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got := ReadTree(t, dir)
	if len(got) != 3 || got["go.mod"] != "module x\n" || got["a/b/c.go"] != "package b\n" || got["a/link"] != "" {
		t.Fatalf("ReadTree = %v", got)
	}
}

func TestCopyDirCopiesFilesOnly(t *testing.T) {
	t.Parallel()
	from := Project(t, map[string]string{"a.json": "{}", "sub/b.json": "[]"})
	to := filepath.Join(t.TempDir(), "copy")
	CopyDir(t, from, to)
	got := ReadTree(t, to)
	if len(got) != 1 || got["a.json"] != "{}" {
		t.Fatalf("CopyDir copied %v", got)
	}
	if fi, err := os.Stat(filepath.Join(to, "a.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("copied file mode: %v %v", fi, err)
	}
}

func TestGitRepoCommitsEverything(t *testing.T) {
	t.Parallel()
	dir := GitRepo(t, filepath.Join(t.TempDir(), "repo"), map[string]string{"README.md": "# x\n", "src/a.txt": "a\n"})
	if got := Git(t, dir, "status", "--porcelain"); got != "" {
		t.Fatalf("status after GitRepo = %q", got)
	}
	if got := Git(t, dir, "ls-files"); got != "README.md\nsrc/a.txt\n" {
		t.Fatalf("ls-files = %q", got)
	}
	if got := Git(t, dir, "rev-parse", "--abbrev-ref", "HEAD"); got != "main\n" {
		t.Fatalf("branch = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		t.Fatal(err)
	}
	if got := ReadTree(t, dir); len(got) != 2 {
		t.Fatalf("ReadTree includes .git: %d files", len(got))
	}
}

func TestReadTreeSkipsNamedFolders(t *testing.T) {
	t.Parallel()
	dir := Project(t, map[string]string{"a.txt": "a", ".claude-orchestrator/x.json": "{}", "sub/.claude-orchestrator/y": "y"})
	got := ReadTree(t, dir, ".claude-orchestrator")
	if len(got) != 1 || got["a.txt"] != "a" {
		t.Fatalf("ReadTree with skip = %v", got)
	}
	if got := ReadTree(t, dir); len(got) != 3 {
		t.Fatalf("ReadTree without skip = %v", got)
	}
}
