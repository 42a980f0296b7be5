package protocol

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/claudecodetest"
)

// protocolPhase maps a recording's template phase to the block it asks for.
var protocolPhase = map[string]Phase{
	"analysis": PhaseAnalysis, "taskPlanning": PhaseTaskList, "workerExecution": PhaseCompletion,
	"aggregation": PhaseAggregation, "verification": PhaseVerification,
}

// The reader on what the real Claude Code CLI printed and wrote to disk
// (backend/claudecodetest/testdata/recordings): every line is read, only
// conversation entries are kept, and the phase's answer is found in both
// files alike.
func TestRealCLIRecordings(t *testing.T) {
	t.Parallel()
	p, err := NewParser(DefaultDelimiters(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range claudecodetest.Recordings(t) {
		t.Run(rec.Name, func(t *testing.T) {
			t.Parallel()
			phase, ok := protocolPhase[rec.Meta.Phase]
			if !ok {
				t.Fatalf("recording of phase %q", rec.Meta.Phase)
			}
			var results [2]Result
			for i, file := range []struct {
				name string
				data []byte
			}{{"stream.jsonl", rec.Stream}, {"transcript.jsonl", rec.Transcript}} {
				entries, skipped, err := DecodeTranscript(file.data)
				if err != nil || skipped != 0 {
					t.Fatalf("%s: err %v, %d lines skipped as unreadable", file.name, err, skipped)
				}
				for _, e := range entries {
					switch e.Type {
					case "user", "assistant", "system", "result":
					default:
						t.Errorf("%s: kept a %q entry: Claude Code's bookkeeping lines are not part of the conversation", file.name, e.Type)
					}
				}
				results[i] = p.ParseEntries(entries, Options{Phase: phase})
			}
			stream, disk := results[0], results[1]
			if !reflect.DeepEqual(phases(stream), phases(disk)) {
				t.Errorf("stream-json gives %v, the transcript on disk %v", phases(stream), phases(disk))
			}
			failed := lastResultFailed(t, rec.Stream)
			last, found := stream.Last(phase)
			switch {
			case failed:
				if found && last.Valid() {
					t.Errorf("a valid %s answer in a run that ended with an API error", phase)
				}
				if stream.Failure == nil {
					t.Error("no failure for a run that ended with an API error")
				}
			case rec.Meta.Scenario == "missing-fields":
				if found || stream.Failure == nil || len(stream.Responses) == 0 || stream.Responses[len(stream.Responses)-1].Status != StatusInvalid {
					t.Errorf("an answer without its required fields read as %v (failure %+v)", phases(stream), stream.Failure)
				}
			default:
				if !found || !last.Valid() {
					t.Fatalf("no valid %s answer: %+v (failure %+v)", phase, last, stream.Failure)
				}
				lastDisk, _ := disk.Last(phase)
				if !reflect.DeepEqual(last.Data, lastDisk.Data) {
					t.Errorf("the answer differs between stream-json and the transcript on disk:\n%+v\n%+v", last.Data, lastDisk.Data)
				}
			}
			if rec.Meta.Dialect == "delegation" && !failed {
				want := DialectNewTask
				if phase == PhaseCompletion {
					want = DialectAttemptCompletion
				}
				if last.Dialect != want {
					t.Errorf("dialect %q, want %q", last.Dialect, want)
				}
			}
		})
	}
}

func phases(r Result) []string {
	var out []string
	for _, resp := range r.Responses {
		out = append(out, string(resp.Phase)+":"+string(resp.Status))
	}
	return out
}

func lastResultFailed(t *testing.T, stream []byte) bool {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(string(stream)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		var e struct {
			Type    string `json:"type"`
			IsError bool   `json:"is_error"`
		}
		if json.Unmarshal([]byte(lines[i]), &e) == nil && e.Type == "result" {
			return e.IsError
		}
	}
	t.Fatal("no result event")
	return false
}
