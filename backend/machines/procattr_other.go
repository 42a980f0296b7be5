//go:build !linux

package machines

import "syscall"

// sshAttr is nothing special outside Linux.
func sshAttr() *syscall.SysProcAttr { return nil }
