// Package jsonkind names the kind of a value decoded from JSON into an
// interface ("a string", "an object", ...), for messages that say what a
// field holds instead of what it should. It is shared by the parsers of
// agent output (protocol, mailbox) and imports nothing of Baton.
package jsonkind

import (
	"encoding/json"
	"fmt"
)

// Of names the kind of v, a value as encoding/json decodes it into an any
// (with or without UseNumber).
func Of(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
