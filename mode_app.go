//go:build !bindings

package main

// generatingBindings is false in every build that opens a window; see mode_bindings.go.
const generatingBindings = false
