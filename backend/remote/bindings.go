package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
)

// Bindings are the methods a browser may call: every exported method of
// one value, as Wails binds them for the window (arguments decoded from
// JSON into the parameters' types; the results a value, an error, both or
// neither). The table is read from the value itself, so nothing is listed
// by hand and a method added for the window is served too.
type Bindings struct {
	methods map[string]reflect.Value
	names   []string
}

var errorType = reflect.TypeFor[error]()

// NewBindings reads the exported methods of v (a pointer to the window's
// binding object). A method whose results Wails could not bind either (more
// than two, or two whose second is not an error) is an error here too.
func NewBindings(v any) (*Bindings, error) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || rv.NumMethod() == 0 {
		return nil, fmt.Errorf("bindings: %T has no exported methods", v)
	}
	b := &Bindings{methods: map[string]reflect.Value{}}
	t := rv.Type()
	for i := range t.NumMethod() {
		m := t.Method(i)
		ft := m.Type
		switch {
		case ft.NumOut() > 2:
			return nil, fmt.Errorf("bindings: %s returns %d values; a binding returns a value, an error, or both", m.Name, ft.NumOut())
		case ft.NumOut() == 2 && ft.Out(1) != errorType:
			return nil, fmt.Errorf("bindings: the second result of %s is not an error", m.Name)
		}
		b.methods[m.Name] = rv.Method(i)
		b.names = append(b.names, m.Name)
	}
	slices.Sort(b.names)
	return b, nil
}

// Names returns the bindings' names, sorted.
func (b *Bindings) Names() []string { return slices.Clone(b.names) }

// ErrUnknownBinding is the error of a call to a name that is not bound.
var ErrUnknownBinding = errors.New("no such binding")

// ArgumentError is a call whose arguments do not fit the method.
type ArgumentError struct {
	Binding string
	Err     error
}

func (e *ArgumentError) Error() string { return "call " + e.Binding + ": " + e.Err.Error() }
func (e *ArgumentError) Unwrap() error { return e.Err }

// BindingError is the error a binding returned: a sentence for the user.
type BindingError struct{ Message string }

func (e *BindingError) Error() string { return e.Message }

// PanicError is a binding that panicked.
type PanicError struct {
	Binding string
	Value   any
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("binding %s panicked: %v", e.Binding, e.Value)
}

// Call calls binding name with args (one JSON value per parameter) and
// returns its result (nil when it has none). The error is an
// *ArgumentError, a *BindingError (what the method returned), a
// *PanicError, or wraps ErrUnknownBinding.
func (b *Bindings) Call(name string, args []json.RawMessage) (result any, err error) {
	m, ok := b.methods[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownBinding, name)
	}
	ft := m.Type()
	if len(args) != ft.NumIn() {
		return nil, &ArgumentError{name, fmt.Errorf("%d arguments given, %d expected", len(args), ft.NumIn())}
	}
	in := make([]reflect.Value, len(args))
	for i, raw := range args {
		p := reflect.New(ft.In(i))
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, p.Interface()); err != nil {
				return nil, &ArgumentError{name, fmt.Errorf("argument %d: %w", i+1, err)}
			}
		}
		in[i] = p.Elem()
	}
	defer func() {
		if v := recover(); v != nil {
			result, err = nil, &PanicError{Binding: name, Value: v}
		}
	}()
	out := m.Call(in)
	if n := len(out); n > 0 && ft.Out(n-1) == errorType {
		if e, _ := out[n-1].Interface().(error); e != nil {
			return nil, &BindingError{Message: e.Error()}
		}
		out = out[:n-1]
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out[0].Interface(), nil
}
