package main

import (
	"strings"
	"testing"
)

// In a browser (remote access) there is no window, so no editor to open:
// a sentence, not a panic.
func TestOpenInEditorNeedsTheWindow(t *testing.T) {
	b := (&App{}).forBrowser()
	err := b.OpenInEditor("orch_1", "docs/a.md")
	if err == nil || !strings.Contains(err.Error(), "needs Baton's window") {
		t.Fatalf("OpenInEditor in a browser = %v", err)
	}
}
