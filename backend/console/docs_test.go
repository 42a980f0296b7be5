package console

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the README's list of commands from the command table")

// readmePath is the README whose command list the table writes.
const readmePath = "../../README.md"

// The help, the manual page and the README's list name every command, every
// flag and every exit code: a command, a flag or an exit code added to the
// table (or to a command's flag set) reaches all three.
func TestEveryCommandFlagAndExitCodeIsDocumented(t *testing.T) {
	t.Parallel()
	var man, list bytes.Buffer
	WriteManPage(&man, testBuild)
	WriteCommandList(&list)
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	var help bytes.Buffer
	if code := Main([]string{"help"}, testBuild, nil, &help, &bytes.Buffer{}); code != 0 {
		t.Fatalf("baton help exits %d", code)
	}
	docs := map[string]string{"the manual page": man.String(), "the README": string(readme)}
	for _, c := range commands(testBuild) {
		if !strings.Contains(help.String(), "  "+c.name+" ") {
			t.Errorf("baton help does not list %q", c.name)
		}
		if !strings.Contains(man.String(), ".B "+roff(c.usage)+"\n") {
			t.Errorf("the manual page does not describe %q", c.name)
		}
		if !strings.Contains(string(readme), "| `"+markdownCell(c.usage)+"` |") {
			t.Errorf("the README does not list %q (%s)", c.name, c.usage)
		}
		var own bytes.Buffer
		Main([]string{"help", c.name}, testBuild, nil, &own, &bytes.Buffer{})
		for _, f := range flagsOf(c) {
			head, _ := flagHead(f)
			if !strings.Contains(own.String(), "  "+head+" ") {
				t.Errorf("baton help %s does not list %s", c.name, head)
			}
			if !strings.Contains(man.String(), ".B "+roff(head)+"\n") {
				t.Errorf("the manual page does not list %s of %s", head, c.name)
			}
			if !strings.Contains(list.String(), "`--"+f.Name+"`") || !strings.Contains(string(readme), "`--"+f.Name+"`") {
				t.Errorf("the README does not list %s of %s", head, c.name)
			}
		}
	}
	var run bytes.Buffer
	Main([]string{"help", "run"}, testBuild, nil, &run, &bytes.Buffer{})
	for _, e := range exitCodes {
		if !strings.Contains(run.String(), fmt.Sprintf("  %-4d %s\n", e.code, e.meaning)) {
			t.Errorf("baton help run does not list exit code %d", e.code)
		}
		if !strings.Contains(man.String(), fmt.Sprintf(".B %d\n", e.code)) {
			t.Errorf("the manual page does not list exit code %d", e.code)
		}
		for what, text := range docs {
			if what == "the README" && !strings.Contains(text, fmt.Sprintf("| %d | %s |", e.code, markdownCell(e.meaning))) {
				t.Errorf("the README does not list exit code %d", e.code)
			}
		}
	}
}

// The README's list of commands is the one the table writes; -update
// rewrites it.
func TestReadmeCommands(t *testing.T) {
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	begin, end := strings.Index(text, readmeBegin), strings.Index(text, readmeEnd)
	if begin < 0 || end < begin {
		t.Fatalf("README.md lacks the markers of the generated commands:\n%s\n%s", readmeBegin, readmeEnd)
	}
	var list bytes.Buffer
	WriteCommandList(&list)
	want := readmeBegin + "\n\n" + list.String() + "\n" + readmeEnd
	got := text[begin : end+len(readmeEnd)]
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(readmePath, []byte(text[:begin]+want+text[end+len(readmeEnd):]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's list of commands is not the command table's; run\n  go test ./backend/console -run TestReadmeCommands -update\nwant:\n%s", want)
}

// The manual page is what "baton help --man" writes, and groff reads it
// without a warning.
func TestManPage(t *testing.T) {
	t.Parallel()
	var want, got bytes.Buffer
	WriteManPage(&want, testBuild)
	if code := Main([]string{"help", "--man"}, testBuild, nil, &got, &bytes.Buffer{}); code != 0 || got.String() != want.String() {
		t.Fatalf("baton help --man exits %d and writes %d bytes, want the manual page (%d bytes)", code, got.Len(), want.Len())
	}
	if !strings.HasPrefix(want.String(), `.TH BATON 1 "" "Baton 1.2.3\-test"`) {
		t.Errorf("the manual page starts %q", strings.SplitN(want.String(), "\n", 2)[0])
	}
	groff, err := exec.LookPath("groff")
	if err != nil {
		t.Skip("groff is not installed")
	}
	cmd := exec.Command(groff, "-man", "-Tutf8", "-ww", "-z")
	cmd.Stdin = &want
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("groff warns about the manual page: %v\n%s", err, out)
	}
}
