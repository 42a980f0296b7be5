//go:build !linux

package chrome

import "os/exec"

// startOwned starts cmd and calls wait with its exit error.
func startOwned(cmd *exec.Cmd, wait func(error)) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { wait(cmd.Wait()) }()
	return nil
}
