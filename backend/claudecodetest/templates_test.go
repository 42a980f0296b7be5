package claudecodetest_test

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/testsupport"
)

// Every system template's worker prompt, sent through the real CLI (as the
// Claude Code host runs it, permission prompts allowed) with model-sim as
// its model, in a copy of the fixture project: the files on disk changed
// exactly as the CLI's Write and Edit calls say (none for the read-only
// templates: code-review and exploration in plan mode, bug-hunt's
// findings), and the report Baton reads back from the transcript (with
// protocol's parser) is a valid completion of the task in the template's
// dialect, naming files that exist.
func TestSystemTemplateWorkersThroughTheCLI(t *testing.T) {
	srv := startModelSim(t)
	parser, err := protocol.NewParser(protocol.DefaultDelimiters(), quiet)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range systemTemplateIDs(t) {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			tmpl := systemTemplate(t, id)
			dir := fixture(t)
			before := testsupport.ReadTree(t, dir)
			system, user := prompt(t, tmpl, template.PhaseWorkerExecution, dir)
			cli := claudecodetest.New(t, srv.URL())
			args := []string{"--session-id", sessionUUID("template-" + id), "--permission-mode", tmpl.Config.PermissionMode,
				"--model", tmpl.Config.Models.Normal}
			if system != "" {
				args = append(args, "--append-system-prompt", system)
			}
			res, _ := converse(t, cli, dir, args, []string{user}, nil)
			if res.ExitCode != 0 {
				t.Fatalf("exit code %d; stderr: %s", res.ExitCode, res.Stderr)
			}

			// The files: what changed on disk is what the tool calls wrote.
			after := testsupport.ReadTree(t, dir)
			written := map[string]bool{}
			for _, l := range claudecodetest.Lines(res.Transcript) {
				var e struct {
					Type    string `json:"type"`
					Message struct {
						Content []struct {
							Type  string `json:"type"`
							Name  string `json:"name"`
							Input struct {
								FilePath string `json:"file_path"`
								Content  string `json:"content"`
							} `json:"input"`
						} `json:"content"`
					} `json:"message"`
				}
				if json.Unmarshal(l, &e) != nil || e.Type != "assistant" {
					continue
				}
				for _, b := range e.Message.Content {
					if b.Type != "tool_use" || (b.Name != "Write" && b.Name != "Edit") {
						continue
					}
					rel, err := filepath.Rel(dir, b.Input.FilePath)
					if err != nil || strings.HasPrefix(rel, "..") {
						t.Errorf("%s outside the project: %s", b.Name, b.Input.FilePath)
						continue
					}
					rel = filepath.ToSlash(rel)
					written[rel] = true
					if b.Name == "Write" && after[rel] != b.Input.Content {
						t.Errorf("%s on disk is not what Write wrote:\n%q\nwant\n%q", rel, after[rel], b.Input.Content)
					}
				}
			}
			var changed []string
			for f, text := range after {
				if before[f] != text {
					changed = append(changed, f)
				}
			}
			sort.Strings(changed)
			var calls []string
			for f := range written {
				calls = append(calls, f)
			}
			sort.Strings(calls)
			readOnly := id == "code-review" || id == "exploration" || id == "bug-hunt"
			if len(changed) == 0 && !readOnly {
				t.Error("the worker changed no file")
			}
			if len(changed) > 0 && readOnly {
				t.Errorf("a read-only template's worker changed %v", changed)
			}
			if !slices.Equal(changed, calls) {
				t.Errorf("files changed on disk %v, files the Write and Edit calls name %v", changed, calls)
			}

			// The report, as Baton reads it from the transcript on disk and
			// from stream-json.
			for _, data := range [][]byte{res.Transcript, res.Stdout} {
				r := parser.ParseEntries(entries(t, data), protocol.Options{Phase: protocol.PhaseCompletion})
				resp, ok := r.Last(protocol.PhaseCompletion)
				if !ok {
					t.Fatalf("no valid completion: %+v, failure %+v", r.Responses, r.Failure)
				}
				// A worker answers in the shape its prompt asks for: seed
				// 003's attempt_completion, seed 001's completion_report
				// (awaiting review) or the orchestrator block.
				wantDialect, wantStatus := protocol.DialectOrchestrator, "success"
				switch {
				case tmpl.Prompts.ResponseFormat.Dialect == "delegation":
					wantDialect = protocol.DialectAttemptCompletion
				case tmpl.Config.Transport == "mailbox":
					wantDialect, wantStatus = protocol.DialectCompletionReport, "awaiting_review"
				}
				if resp.Dialect != wantDialect {
					t.Errorf("report in dialect %q, want %q", resp.Dialect, wantDialect)
				}
				c := resp.Data.(*protocol.Completion)
				if c.TaskID != task.ID || c.Status != wantStatus {
					t.Errorf("report of %q with status %q, want %s %s", c.TaskID, c.Status, task.ID, wantStatus)
				}
				files := slices.Clone(c.OutputFiles)
				for _, a := range c.Artifacts {
					files = append(files, a.Path)
				}
				files = append(files, c.FilesCreated...)
				files = append(files, c.FilesModified...)
				for _, f := range files {
					if !path.IsAbs(f) {
						f = filepath.Join(dir, f)
					}
					if _, err := os.Stat(f); err != nil {
						t.Errorf("the report names %s: %v", f, err)
					}
				}
			}
		})
	}
}
