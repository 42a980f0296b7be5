// Package templates ships Baton's template schema and its system templates
// inside the binary. The files are read-only: backend/template loads them
// from here and keeps the user's own templates elsewhere.
package templates

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// SchemaURL is the $id of schema.json; templates may name it in "$schema".
const SchemaURL = "https://baton.app/schemas/template.json"

//go:embed schema.json *.json
var files embed.FS

// Schema returns the JSON Schema (draft 2020-12) every template is checked against.
func Schema() []byte {
	b, err := files.ReadFile("schema.json")
	if err != nil {
		panic("templates: schema.json is missing from the embedded files: " + err.Error())
	}
	return b
}

// SystemIDs returns the ids of the system templates, sorted.
func SystemIDs() []string {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic("templates: cannot list the embedded files: " + err.Error())
	}
	var ids []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || path.Ext(name) != ".json" || name == "schema.json" {
			continue
		}
		ids = append(ids, strings.TrimSuffix(name, ".json"))
	}
	sort.Strings(ids)
	return ids
}

// System returns the JSON document of the system template id, and false when
// there is no such system template.
func System(id string) ([]byte, bool) {
	if id == "" || id == "schema" || strings.ContainsAny(id, `/\.`) {
		return nil, false
	}
	b, err := files.ReadFile(id + ".json")
	if err != nil {
		return nil, false
	}
	return b, true
}
