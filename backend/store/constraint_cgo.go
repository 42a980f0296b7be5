//go:build cgo

package store

import (
	"errors"

	"github.com/mattn/go-sqlite3"
)

// isConstraint reports whether err is SQLite's constraint violation.
func isConstraint(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code == sqlite3.ErrConstraint
}
