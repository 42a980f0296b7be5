package console

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/testsupport"
)

// templateStore holds the custom templates of the template package's tests.
const templateStore = "../template/testdata/store"

func TestTemplatesCLI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		code       int
		stdout     []string // substrings
		stderr     []string
		jsonOutput bool
	}{
		{"no arguments", nil, 2, nil, []string{"usage:", "baton templates list"}, false},
		{"help", []string{"help"}, 0, []string{"baton templates validate FILE"}, nil, false},
		{"list", []string{"list"}, 0, []string{"ID", "_default", "system", "team-review", "my-docs-fr", "custom", "loop-a", "invalid: template \"loop-a\" cannot be resolved"}, nil, false},
		{"list with an argument", []string{"list", "x"}, 2, nil, []string{"takes no arguments"}, false},
		{"show raw", []string{"show", "my-docs-fr"}, 0, []string{`"extends": "my-docs"`}, nil, true},
		{"show resolved", []string{"show", "my-docs-fr", "--resolved"}, 0, []string{`"maxWorkers": 2`, `"workerTimeout": 1800`}, nil, true},
		{"show resolved flag first", []string{"show", "--resolved", "sparc"}, 0, []string{`"dialect": "delegation"`}, nil, true},
		{"show missing", []string{"show", "ghost"}, 1, nil, []string{`there is no template "ghost"`, "baton templates list"}, false},
		{"show bad id", []string{"show", "../../etc/passwd"}, 1, nil, []string{"not a valid template id"}, false},
		{"show broken", []string{"show", "loop-a", "--resolved"}, 1, nil, []string{"circular"}, false},
		{"show without id", []string{"show"}, 2, nil, []string{"needs a template id"}, false},
		{"show unknown flag", []string{"show", "sparc", "--raw"}, 2, nil, []string{"unknown flag --raw"}, false},
		// The variables, required first and marked, with the flag that gives them.
		{"show vars", []string{"show", "my-docs-fr", "--vars"}, 0, []string{"--var NAME=VALUE", "--var OUTPUT_DIR=…", "REQUIRED", "--var LANGUAGE=…", "optional", "one of French, English"}, nil, false},
		{"show vars of a missing template", []string{"show", "ghost", "--vars"}, 1, nil, []string{`there is no template "ghost"`}, false},
		{"validate a system file", []string{"validate", "../../templates/team-review.json"}, 0, []string{`is a valid template (id "team-review", extends "_default")`}, nil, false},
		{"validate an invalid file", []string{"validate", "../template/testdata/invalid/bad-enums.json"}, 1, nil, []string{"is not a valid template: 2 problems", "/config/permissionMode: value must be one of", "/config/transport"}, false},
		{"validate broken JSON", []string{"validate", "../template/testdata/invalid/bad-json.json"}, 1, nil, []string{"(document): not valid JSON at line 1"}, false},
		{"validate a cycle", []string{"validate", "../template/testdata/invalid/cycle.json"}, 1, nil, []string{"looper -> loop-a -> loop-b -> loop-a"}, false},
		{"validate a missing file", []string{"validate", "testdata/nope.json"}, 1, nil, []string{"cannot read testdata/nope.json"}, false},
		{"validate two files", []string{"validate", "a", "b"}, 2, nil, []string{"exactly one file"}, false},
		{"unknown command", []string{"frobnicate"}, 2, nil, []string{`unknown command "frobnicate"`}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "templates")
			testsupport.CopyDir(t, templateStore, dir)
			var stdout, stderr bytes.Buffer
			code := templatesCLI(dir, tc.args, &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, stdout.String(), stderr.String())
			}
			for _, s := range tc.stdout {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout.String())
				}
			}
			for _, s := range tc.stderr {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
				}
			}
			if tc.jsonOutput && !json.Valid(stdout.Bytes()) {
				t.Errorf("stdout is not JSON:\n%s", stdout.String())
			}
			if code == 0 && tc.stderr == nil && stderr.Len() > 0 {
				t.Errorf("a successful command wrote to stderr: %s", stderr.String())
			}
		})
	}
}

func TestTemplatesCLIUsesBatonConfigDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("BATON_CONFIG_DIR", dir)
	testsupport.CopyDir(t, templateStore, filepath.Join(dir, "templates"))
	var stdout, stderr bytes.Buffer
	if code := TemplatesCLI([]string{"show", "my-docs"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), `"id": "my-docs"`) {
		t.Errorf("show did not read the template from $BATON_CONFIG_DIR/templates:\n%s", stdout.String())
	}
}
