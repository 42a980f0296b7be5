//go:build linux

package owner

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// startOf is the process's start time in clock ticks since boot (field 22
// of /proc/PID/stat), "" when it cannot be read.
func startOf(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// pid (comm) state ppid … : comm may hold spaces, so count after ')'.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 20 {
		return ""
	}
	return f[19]
}
