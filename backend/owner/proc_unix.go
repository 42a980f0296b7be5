//go:build unix

package owner

import (
	"errors"
	"syscall"
)

// running reports whether a process with id pid exists (signal 0; a
// process of another user answers EPERM).
func running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
