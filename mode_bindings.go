//go:build bindings

package main

// generatingBindings is true when "wails generate module" (or wails build)
// compiles this program to read its bindings: no window opens then, so the
// display and frontend checks must not stop it.
const generatingBindings = true
