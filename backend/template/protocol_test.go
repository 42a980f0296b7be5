package template_test

import (
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/template"
)

// TestPromptExamplesParse feeds every example block of every system prompt,
// as an agent would send it, to the protocol parser: an agent that copies
// the example's shape must be understood, without errors or warnings.
func TestPromptExamplesParse(t *testing.T) {
	t.Parallel()
	m, err := template.New(filepath.Join(t.TempDir(), "templates"), template.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	phases := []struct {
		phase template.Phase
		want  protocol.Phase
	}{
		{template.PhaseAnalysis, protocol.PhaseAnalysis},
		{template.PhaseTaskPlanning, protocol.PhaseTaskList},
		{template.PhaseWorkerExecution, protocol.PhaseCompletion},
		{template.PhaseAggregation, protocol.PhaseAggregation},
		{template.PhaseVerification, protocol.PhaseVerification},
		{template.PhaseReview, protocol.PhaseReview},
	}
	list, err := m.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range list {
		t.Run(info.ID, func(t *testing.T) {
			t.Parallel()
			tpl, err := m.Get(info.ID)
			if err != nil {
				t.Fatal(err)
			}
			f := tpl.Prompts.ResponseFormat
			parser, err := protocol.NewParser(protocol.Delimiters{Start: f.StartDelimiter, End: f.EndDelimiter}, nil)
			if err != nil {
				t.Fatal(err)
			}
			values := map[string]any{template.VarTaskID: "task_007"}
			for _, ph := range phases {
				p, err := tpl.Render(ph.phase, values)
				if err != nil {
					t.Fatal(err)
				}
				found := 0
				for _, ex := range exampleBlocks(p.User, f) {
					if isOutline(ex) {
						continue // the outline of the block, not an example
					}
					found++
					res := parser.ParseText("Done.\n\n"+ex+"\n", protocol.Options{Phase: ph.want})
					resp, ok := res.Last(ph.want)
					if !ok {
						t.Errorf("%s: the example does not parse as %s: %+v\n%s", ph.phase, ph.want, res.Responses, ex)
						continue
					}
					if len(resp.Warnings) > 0 || len(resp.Repairs) > 0 {
						t.Errorf("%s: the example parses with warnings %v and repairs %v", ph.phase, resp.Warnings, resp.Repairs)
					}
				}
				if found == 0 {
					t.Errorf("%s prompt has no complete example block", ph.phase)
				}
			}
		})
	}
}

// isOutline reports whether a block is the outline of an answer ("..." for
// the values) rather than a complete example.
func isOutline(block string) bool {
	for _, s := range []string{`"..."`, "{ ... }", "[ ... ]", ", ...}"} {
		if strings.Contains(block, s) {
			return true
		}
	}
	return false
}

// exampleBlocks returns each delimited block of text, delimiters included.
func exampleBlocks(text string, f template.ResponseFormat) []string {
	var out []string
	for {
		i := strings.Index(text, f.StartDelimiter+"\n")
		if i < 0 {
			return out
		}
		j := strings.Index(text[i:], "\n"+f.EndDelimiter)
		if j < 0 {
			return out
		}
		out = append(out, text[i:i+j+1+len(f.EndDelimiter)])
		text = text[i+j+1+len(f.EndDelimiter):]
	}
}
