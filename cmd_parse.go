package main

import (
	"io"

	"github.com/baton-app/baton/backend/protocol"
)

// runParse is `baton parse`: its logic lives in backend/protocol.
func runParse(args []string, stdout, stderr io.Writer) int {
	return protocol.RunParseCLI(args, stdout, stderr)
}
