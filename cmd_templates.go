package main

import (
	"io"

	"github.com/baton-app/baton/backend/template"
)

// runTemplates is the "baton templates" subcommand; its logic lives in backend/template.
func runTemplates(args []string, stdout, stderr io.Writer) int {
	return template.RunCLI(args, stdout, stderr)
}
