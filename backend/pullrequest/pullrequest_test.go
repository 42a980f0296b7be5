package pullrequest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeGH puts a gh script on PATH that records its arguments and input in
// dir and answers auth status with authStatus (an exit code).
func fakeGH(t *testing.T, authStatus int) string {
	dir := t.TempDir()
	script := `#!/bin/sh
if [ "$1" = auth ]; then
  echo "github.com: logged in as someone" >&2
  exit ` + string(rune('0'+authStatus)) + `
fi
printf '%s\n' "$@" > "` + dir + `/args"
cat > "` + dir + `/stdin"
echo "Creating pull request for baton/r1 into main"
echo "https://github.com/o/r/pull/7"
`
	if err := os.WriteFile(filepath.Join(dir, "gh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

func TestOpenWithGH(t *testing.T) {
	dir := fakeGH(t, 0)
	req := Request{Repo: t.TempDir(), Head: "baton/r1", Base: "main", Title: "Document it", Body: "## Outcome\ncompleted\n"}
	url, err := Open(context.Background(), req)
	if err != nil || url != "https://github.com/o/r/pull/7" {
		t.Fatalf("Open = %q, %v", url, err)
	}
	args, _ := os.ReadFile(filepath.Join(dir, "args"))
	want := "pr\ncreate\n--head\nbaton/r1\n--title\nDocument it\n--body-file\n-\n--base\nmain\n"
	if string(args) != want {
		t.Fatalf("gh got %q, want %q", args, want)
	}
	if in, _ := os.ReadFile(filepath.Join(dir, "stdin")); string(in) != req.Body {
		t.Fatalf("gh read %q", in)
	}
}

func TestOpenNotLoggedIn(t *testing.T) {
	fakeGH(t, 1)
	_, err := Open(context.Background(), Request{Repo: t.TempDir(), Head: "b", Title: "t"})
	var nl *NotLoggedInError
	if !errors.As(err, &nl) || !strings.Contains(err.Error(), "gh auth login") {
		t.Fatalf("err = %v", err)
	}
}

func TestOpenWithoutGH(t *testing.T) {
	// A PATH with git and sh but no gh.
	dir := t.TempDir()
	for _, tool := range []string{"git", "sh"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skip(tool, "missing")
		}
		if err := os.Symlink(p, filepath.Join(dir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	if _, err := Open(context.Background(), Request{Repo: t.TempDir(), Head: "b", Title: "t"}); !errors.Is(err, ErrNoGH) {
		t.Fatalf("err = %v", err)
	}
}

func TestCommandAndBody(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "pr", "r1.md")
	req := Request{Repo: "/home/me/my project", Head: "baton/r1", Base: "main", Title: "Fix the user's bug", Body: "body\n", BodyFile: file}
	got := Command(req)
	want := `cd '/home/me/my project' && gh pr create --head baton/r1 --base main --title 'Fix the user'\''s bug' --body-file ` + file
	if got != want {
		t.Fatalf("command = %s\nwant      %s", got, want)
	}
	if err := WriteBody(req); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != "body\n" {
		t.Fatalf("body file = %q", b)
	}
}
