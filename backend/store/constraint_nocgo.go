//go:build !cgo

package store

// isConstraint reports whether err is SQLite's constraint violation. Without
// cgo the driver is a stub that opens no database, so there is none; this file
// lets the packages that import store be vetted for other systems
// ("make vet-windows") without a C cross-compiler.
func isConstraint(error) bool { return false }
