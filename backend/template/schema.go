package template

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/baton-app/baton/templates"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// validator checks documents against templates/schema.json.
type validator struct {
	schema  *jsonschema.Schema
	printer *message.Printer
}

func newValidator() (*validator, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(templates.Schema()))
	if err != nil {
		return nil, fmt.Errorf("read template schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(templates.SchemaURL, doc); err != nil {
		return nil, fmt.Errorf("add template schema: %w", err)
	}
	sch, err := c.Compile(templates.SchemaURL)
	if err != nil {
		return nil, fmt.Errorf("compile template schema: %w", err)
	}
	return &validator{schema: sch, printer: message.NewPrinter(language.English)}, nil
}

// validate returns the schema problems of doc (a value decoded by decodeJSON),
// sorted by pointer; nil when it is valid.
func (v *validator) validate(doc any) []ValidationError {
	err := v.schema.Validate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []ValidationError{{Message: err.Error()}}
	}
	var out []ValidationError
	seen := map[ValidationError]bool{}
	var walk func(e *jsonschema.ValidationError)
	add := func(p ValidationError) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			ptr := pointer(e.InstanceLocation)
			add(ValidationError{Pointer: ptr, Message: v.message(ptr, e.ErrorKind)})
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	return out
}

var (
	idPointer      = regexp.MustCompile(`^/(id|extends)$`)
	tagPointer     = regexp.MustCompile(`^/tags/[0-9]+$`)
	optionsPointer = regexp.MustCompile(`^/variables/[^/]+/options$`)
	varPointer     = regexp.MustCompile(`^/variables/([^/]+)$`)
	checkPointer   = regexp.MustCompile(`^/config/checks/[0-9]+$`)
)

// notACommand is the problem of a checks entry that is not a command line:
// got is the text, or for a value of another type the name of its type.
func notACommand[T string | kind.Type](got T) string {
	what := ""
	switch g := any(got).(type) {
	case string:
		what = strconv.Quote(g)
	case kind.Type:
		what = "a " + g.Got
	}
	return fmt.Sprintf("%s is not a command: a check is one line that starts with the program to run, such as \"go test ./...\"", what)
}

// message words a schema error for a person. Most come from the validator as
// they are; a few patterns and false schemas get a sentence that says what is
// expected instead of quoting a regular expression.
func (v *validator) message(ptr string, k jsonschema.ErrorKind) string {
	if checkPointer.MatchString(ptr) {
		switch k := k.(type) {
		case *kind.Pattern:
			return notACommand(k.Got)
		case *kind.Type:
			return notACommand(*k)
		}
	}
	switch k := k.(type) {
	case *kind.Pattern:
		switch {
		case idPointer.MatchString(ptr):
			return fmt.Sprintf("%q is not a valid template id: use 1 to 64 lowercase letters, digits, '-' or '_', starting with a letter or digit", k.Got)
		case ptr == "/version":
			return fmt.Sprintf("%q is not a version: use three numbers like 1.0.0", k.Got)
		case tagPointer.MatchString(ptr):
			return fmt.Sprintf("%q is not a valid tag: use up to 32 lowercase letters, digits or '-'", k.Got)
		}
	case *kind.AdditionalProperties:
		if ptr == "/variables" {
			return fmt.Sprintf("variable names must be capital letters, digits and '_', starting with a letter: %s", strings.Join(k.Properties, ", "))
		}
	case *kind.FalseSchema:
		if optionsPointer.MatchString(ptr) {
			return "options are allowed only on a variable of type select"
		}
		if m := varPointer.FindStringSubmatch(ptr); m != nil {
			return fmt.Sprintf("%s is filled in by Baton itself; give the variable another name", m[1])
		}
		return "this property is not allowed here"
	}
	return k.LocalizedString(v.printer)
}

// pointer builds a JSON pointer (RFC 6901) from path tokens.
func pointer(tokens []string) string {
	var sb strings.Builder
	for _, t := range tokens {
		sb.WriteByte('/')
		sb.WriteString(escapeToken(t))
	}
	return sb.String()
}

func escapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

// decodeJSON reads one JSON value with numbers kept as json.Number, as the
// schema validator expects. A syntax error becomes a ValidationError with the
// line and column.
func decodeJSON(data []byte) (any, *ValidationError) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, &ValidationError{Message: jsonErrorMessage(data, err)}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &ValidationError{Message: "the file holds more than one JSON value; a template is a single JSON object"}
	}
	return v, nil
}

func jsonErrorMessage(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var off int64 = -1
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	case errors.Is(err, io.EOF) && len(bytes.TrimSpace(data)) == 0:
		return "the file is empty; a template is a JSON object"
	case errors.Is(err, io.ErrUnexpectedEOF):
		off = int64(len(data))
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "the JSON ends too early"
	}
	if off < 0 {
		return "not valid JSON: " + msg
	}
	line, col := position(data, off)
	return "not valid JSON at line " + strconv.Itoa(line) + ", column " + strconv.Itoa(col) + ": " + msg
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col = 1, 1
	for _, b := range data[:off] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}
