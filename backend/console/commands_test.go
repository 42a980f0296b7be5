package console

import (
	"bytes"
	"flag"
	"strings"
	"testing"
)

// testBuild stands for the build information main passes in.
var testBuild = Build{Version: "1.2.3-test", Commit: "abc", Date: "today"}

func TestRunCLI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout []string
		wantStderr string
	}{
		{"version", []string{"version"}, 0, []string{"baton " + testBuild.Version}, ""},
		{"version rejects arguments", []string{"version", "x"}, 2, nil, "takes no arguments"},
		{"help lists every command", []string{"help"}, 0, []string{"version", "help", "baton help COMMAND"}, ""},
		{"help of one command", []string{"help", "version"}, 0, []string{"usage: baton version"}, ""},
		{"help of an unknown command", []string{"help", "nope"}, 2, nil, `unknown command "nope"`},
		{"unknown command", []string{"frobnicate"}, 2, nil, `unknown command "frobnicate". Run "baton help"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := Main(tt.args, testBuild, nil, &stdout, &stderr)
			if code != tt.wantCode {
				t.Fatalf("exit code = %d, want %d (stderr %q)", code, tt.wantCode, stderr.String())
			}
			for _, want := range tt.wantStdout {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout %q does not contain %q", stdout.String(), want)
				}
			}
			if tt.wantStderr != "" && !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr %q does not contain %q", stderr.String(), tt.wantStderr)
			}
			if tt.wantStderr == "" && stderr.Len() > 0 {
				t.Errorf("unexpected stderr %q", stderr.String())
			}
		})
	}
}

func TestEveryCommandHasHelp(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, c := range commands(testBuild) {
		if seen[c.name] {
			t.Errorf("command %q is listed twice", c.name)
		}
		seen[c.name] = true
		if c.usage == "" || c.summary == "" || c.run == nil {
			t.Errorf("command %q lacks usage, summary or a run function", c.name)
		}
		if !strings.HasPrefix(c.usage, "baton "+c.name) {
			t.Errorf("usage of %q = %q, want it to start with %q", c.name, c.usage, "baton "+c.name)
		}
	}
}

// Every command answers --help with its help and exit 0, and "baton help
// COMMAND" lists every flag the command parses.
func TestEveryCommandHelpListsItsFlags(t *testing.T) {
	t.Parallel()
	for _, c := range commands(testBuild) {
		for _, args := range [][]string{{c.name, "--help"}, {c.name, "-h"}, {"help", c.name}} {
			var stdout, stderr bytes.Buffer
			if code := Main(args, testBuild, strings.NewReader(""), &stdout, &stderr); code != 0 {
				t.Errorf("baton %s: exit %d, want 0 (stderr %q)", strings.Join(args, " "), code, stderr.String())
				continue
			}
			out := stdout.String()
			if !strings.Contains(out, "usage: "+c.usage) {
				t.Errorf("baton %s does not print the usage:\n%s", strings.Join(args, " "), out)
			}
			if c.flags == nil {
				continue
			}
			c.flags().VisitAll(func(f *flag.Flag) {
				if !strings.Contains(out, "--"+f.Name+" ") && !strings.HasSuffix(strings.TrimSpace(out), "--"+f.Name) {
					t.Errorf("baton %s does not list --%s:\n%s", strings.Join(args, " "), f.Name, out)
				}
			})
		}
	}
	// The flags "baton run" parses are the ones its help lists: the ones
	// the old usage text left out among them.
	var stdout bytes.Buffer
	Main([]string{"help", "run"}, testBuild, nil, &stdout, &bytes.Buffer{})
	for _, want := range []string{"--sim-speed", "--resume", "--permission-mode", "--plan", "--var", "3    completed with issues", "4    failed"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("baton help run lacks %q:\n%s", want, stdout.String())
		}
	}
}
