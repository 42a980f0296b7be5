package main

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/baton-app/baton/backend/session"
)

// The frontend's permission modes (its forms' choices) are the session
// contract's, in the same order.
func TestFrontendPermissionModesAreTheSessionContracts(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("frontend/src/lib/permissionModes.ts")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range regexp.MustCompile(`\{\s*mode:\s*'([^']*)'`).FindAllStringSubmatch(string(src), -1) {
		got = append(got, m[1])
	}
	if !slices.Equal(got, session.PermissionModes) {
		t.Errorf("frontend/src/lib/permissionModes.ts lists %v, backend/session %v", got, session.PermissionModes)
	}
}
