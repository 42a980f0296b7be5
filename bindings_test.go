package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/settings"
	"github.com/baton-app/baton/backend/view"
)

// viewPackage is the one package whose structs the bindings may take and
// return.
const viewPackage = "github.com/baton-app/baton/backend/view"

// The window's bindings speak only backend/view: every parameter and result
// of every exported method of *App is a basic type, error, time.Time,
// json.RawMessage, or a struct of backend/view (through slices, maps,
// pointers and arrays) whose fields are such types too, so that no row or internal type of another package
// reaches the generated frontend models unnoticed.
func TestBindingsSpeakOnlyViewTypes(t *testing.T) {
	t.Parallel()
	app := reflect.TypeFor[*App]()
	if app.NumMethod() == 0 {
		t.Fatal("*App has no exported methods")
	}
	for i := range app.NumMethod() {
		m := app.Method(i)
		ft := m.Type
		for j := 1; j < ft.NumIn(); j++ { // 0 is the receiver
			if err := bindingType(ft.In(j), map[reflect.Type]bool{}); err != nil {
				t.Errorf("%s: parameter %d: %v", m.Name, j, err)
			}
		}
		for j := range ft.NumOut() {
			if err := bindingType(ft.Out(j), map[reflect.Type]bool{}); err != nil {
				t.Errorf("%s: result %d: %v", m.Name, j+1, err)
			}
		}
	}
}

// The check itself refuses what it should: a named type of another package,
// also inside a slice, map or pointer or a field of a view struct, an
// interface, and types that have no JSON form at all.
func TestBindingTypeCheck(t *testing.T) {
	t.Parallel()
	type local struct{ A int }
	allowed := []reflect.Type{reflect.TypeFor[string](), reflect.TypeFor[int64](), reflect.TypeFor[float64](),
		reflect.TypeFor[bool](), reflect.TypeFor[map[string]string](), reflect.TypeFor[[][]string](),
		reflect.TypeFor[time.Time](), reflect.TypeFor[json.RawMessage](), reflect.TypeFor[error](),
		reflect.TypeFor[*view.Snapshot](), reflect.TypeFor[[]view.Template]()}
	for _, typ := range allowed {
		if err := bindingType(typ, map[reflect.Type]bool{}); err != nil {
			t.Errorf("%v refused: %v", typ, err)
		}
	}
	refused := []reflect.Type{reflect.TypeFor[local](), reflect.TypeFor[[]local](), reflect.TypeFor[map[string]*local](),
		reflect.TypeFor[*[]time.Duration](), reflect.TypeFor[struct{ A int }](), reflect.TypeFor[any](),
		reflect.TypeFor[map[string]any](), reflect.TypeFor[chan int](), reflect.TypeFor[func()](),
		reflect.TypeFor[struct{ V view.Run }](), reflect.TypeFor[[]settings.Host]()}
	for _, typ := range refused {
		if err := bindingType(typ, map[reflect.Type]bool{}); err == nil {
			t.Errorf("%v accepted", typ)
		}
	}
}

// bindingType returns why t may not cross the bridge, or nil. The fields of
// a view struct are checked too (seen stops the walk at a type checked
// before), where a value of any type (a template variable's default) is
// allowed: it is JSON the user wrote.
func bindingType(t reflect.Type, seen map[reflect.Type]bool) error {
	switch t {
	case reflect.TypeFor[error](), reflect.TypeFor[time.Time](), reflect.TypeFor[json.RawMessage]():
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return bindingType(t.Elem(), seen)
	case reflect.Map:
		if err := bindingType(t.Key(), seen); err != nil {
			return err
		}
		return bindingType(t.Elem(), seen)
	case reflect.Struct:
		if t.PkgPath() != viewPackage {
			return fmt.Errorf("%v is a struct of %q, not of backend/view: declare a view type for it", t, t.PkgPath())
		}
		if seen[t] {
			return nil
		}
		seen[t] = true
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			if f.Type.Kind() == reflect.Interface && f.Type.NumMethod() == 0 {
				continue
			}
			if m := f.Type; m.Kind() == reflect.Map && m.Elem().Kind() == reflect.Interface && m.Elem().NumMethod() == 0 {
				if err := bindingType(m.Key(), seen); err != nil {
					return fmt.Errorf("%v.%s: %w", t, f.Name, err)
				}
				continue
			}
			if err := bindingType(f.Type, seen); err != nil {
				return fmt.Errorf("%v.%s: %w", t, f.Name, err)
			}
		}
		return nil
	case reflect.Interface:
		return fmt.Errorf("%v is an interface: say what it holds with a view type", t)
	case reflect.Chan, reflect.Func, reflect.UnsafePointer, reflect.Complex64, reflect.Complex128, reflect.Uintptr:
		return fmt.Errorf("%v has no JSON form", t)
	}
	if t.PkgPath() != "" && t.PkgPath() != viewPackage {
		return fmt.Errorf("%v is a type of %q, not of backend/view", t, t.PkgPath())
	}
	return nil
}
