package mailbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzMessageFile checks that any to-team-lead.json content is read
// without a panic, that a readable file survives Baton's rewrite with its
// messages intact, and that every message either validates into a report
// or gives an error.
func FuzzMessageFile(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		mf, err := decodeMessageFile(data)
		if err != nil {
			return
		}
		out, err := mf.encode()
		if err != nil {
			t.Fatalf("a decoded file does not encode: %v", err)
		}
		again, err := decodeMessageFile(out)
		if err != nil || len(again.Messages) != len(mf.Messages) || again.LastRead != mf.LastRead || len(again.Other) != len(mf.Other) {
			t.Fatalf("rewrite changed the file: %v\n%s", err, out)
		}
		for i, raw := range mf.Messages {
			var a, b any
			if json.Unmarshal(raw, &a) != nil || json.Unmarshal(again.Messages[i], &b) != nil {
				t.Fatalf("message %d is not JSON after the rewrite", i)
			}
			r, _, err := parseReport(raw)
			if err == nil && (r.TaskID == "" || r.Type != TypeCompletionReport) {
				t.Fatalf("message %d validated without a task id or type: %+v", i, r)
			}
		}
	})
}
