package sessions

import (
	"encoding/json"
	"testing"
)

// A result wrapped in the entry's message, with camelCase fields, is shown
// as a result.
func TestItemsWrappedResult(t *testing.T) {
	t.Parallel()
	items, skipped := Items([]json.RawMessage{json.RawMessage(`{"uuid":"r1","message":{"type":"result","subtype":"error_max_turns","isError":true,"result":"stopped"}}`)})
	if skipped != 0 || len(items) != 1 || items[0].Kind != KindResult || !items[0].IsError || items[0].Text != "stopped" || items[0].UUID != "r1" {
		t.Fatalf("items %+v, skipped %d", items, skipped)
	}
}
