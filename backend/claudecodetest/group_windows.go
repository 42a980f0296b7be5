package claudecodetest

import "os/exec"

// groupKill leaves cmd as it is: a cancel kills the CLI itself.
func groupKill(cmd *exec.Cmd) {}
