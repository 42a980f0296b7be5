package template

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors, to test with errors.Is. Every error the manager returns
// wraps one of them and reads as one sentence.
var (
	ErrNotFound      = errors.New("template not found")
	ErrReadOnly      = errors.New("template is read-only")
	ErrInUse         = errors.New("template is extended by other templates")
	ErrExists        = errors.New("template already exists")
	ErrInvalid       = errors.New("template is invalid")
	ErrBadID         = errors.New("template id is not valid")
	ErrCycle         = errors.New("template inheritance is circular")
	ErrMissingParent = errors.New("parent template not found")
)

// Error is the error type of this package. Problems lists the schema errors
// when the error is ErrInvalid.
type Error struct {
	Message  string
	Problems []ValidationError
	kinds    []error
	cause    error
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the sentinel errors this error is, and its cause.
func (e *Error) Unwrap() []error {
	if e.cause != nil {
		return append(append([]error(nil), e.kinds...), e.cause)
	}
	return e.kinds
}

func newError(msg string, kinds ...error) *Error {
	return &Error{Message: msg, kinds: kinds}
}

// Problems returns the validation problems carried by err, if any.
func Problems(err error) []ValidationError {
	var e *Error
	if errors.As(err, &e) {
		return e.Problems
	}
	return nil
}

// invalidError builds the ErrInvalid error for a template with problems:
// one sentence naming the first problem and how many more there are.
func invalidError(id string, problems []ValidationError) *Error {
	if len(problems) == 1 && problems[0].kind != nil {
		// A resolution problem is already a whole sentence.
		e := newError(problems[0].Message, ErrInvalid, problems[0].kind)
		e.Problems = problems
		return e
	}
	var sb strings.Builder
	if id != "" {
		fmt.Fprintf(&sb, "template %q is invalid", id)
	} else {
		sb.WriteString("the template is invalid")
	}
	if len(problems) > 0 {
		fmt.Fprintf(&sb, ": %s", problems[0])
		if n := len(problems) - 1; n == 1 {
			sb.WriteString(" (and 1 more problem)")
		} else if n > 1 {
			fmt.Fprintf(&sb, " (and %d more problems)", n)
		}
	}
	kinds := []error{ErrInvalid}
	// A resolution problem keeps its own sentinel too.
	for _, p := range problems {
		if p.kind != nil {
			kinds = append(kinds, p.kind)
		}
	}
	e := newError(sb.String(), kinds...)
	e.Problems = problems
	return e
}
