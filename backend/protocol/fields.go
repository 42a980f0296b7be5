package protocol

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/baton-app/baton/backend/jsonkind"
)

// checker collects the errors and warnings of one validation.
type checker struct {
	errs, warns []Issue
}

func (c *checker) errorf(path, code, format string, a ...any) {
	c.errs = append(c.errs, Issue{Path: path, Code: code, Message: fmt.Sprintf(format, a...)})
}

func (c *checker) warnf(path, code, format string, a ...any) {
	c.warns = append(c.warns, Issue{Path: path, Code: code, Message: fmt.Sprintf(format, a...)})
}

// fields reads the fields of one JSON object, marking each one it reads so
// the rest can be reported as unknown.
type fields struct {
	c    *checker
	m    map[string]any
	path string
	used map[string]bool
}

func (c *checker) object(m map[string]any, path string) *fields {
	return &fields{c: c, m: m, path: path, used: map[string]bool{}}
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (f *fields) p(key string) string { return joinPath(f.path, key) }

// get returns the value of key when present and not null. A required field
// that is absent or null is an error.
func (f *fields) get(key string, required bool) (any, bool) {
	f.used[key] = true
	v, ok := f.m[key]
	if !ok || v == nil {
		if required {
			f.c.errorf(f.p(key), CodeMissing, "required field %q is missing", key)
		}
		return nil, false
	}
	return v, true
}

// has reports whether key is present (even as null) without marking it.
func (f *fields) has(key string) bool {
	_, ok := f.m[key]
	return ok
}

// done reports every field that was never read as unknown, in name order.
func (f *fields) done() {
	var unknown []string
	for k := range f.m {
		if !f.used[k] {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		f.c.warnf(f.p(k), CodeUnknownField, "unknown field %q is ignored", k)
	}
}

func (f *fields) str(key string, required bool) string {
	v, ok := f.get(key, required)
	if !ok {
		return ""
	}
	return f.c.asString(v, f.p(key), required)
}

func (c *checker) asString(v any, path string, required bool) string {
	s, ok := v.(string)
	if !ok {
		c.errorf(path, CodeType, "must be a string, not %s", jsonkind.Of(v))
		return ""
	}
	if required && strings.TrimSpace(s) == "" {
		c.errorf(path, CodeEmpty, "must not be empty")
	}
	return s
}

// canon folds case, spaces and hyphens so "In Progress" meets "in_progress".
func canon(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.NewReplacer(" ", "_", "-", "_").Replace(s)
}

// enum reads a string that must be one of allowed. A value that only
// differs in case, spaces or hyphens is accepted with a warning.
func (f *fields) enum(key string, required bool, allowed ...string) string {
	v, ok := f.get(key, required)
	if !ok {
		return ""
	}
	return f.c.asEnum(v, f.p(key), allowed)
}

func (c *checker) asEnum(v any, path string, allowed []string) string {
	s, ok := v.(string)
	if !ok {
		c.errorf(path, CodeType, "must be a string, not %s", jsonkind.Of(v))
		return ""
	}
	if slices.Contains(allowed, s) {
		return s
	}
	if k := canon(s); slices.Contains(allowed, k) {
		c.warnf(path, CodeCoerced, "%q read as %q", s, k)
		return k
	}
	c.errorf(path, CodeEnum, "unknown value %q (expected one of %s)", s, strings.Join(allowed, ", "))
	return s
}

// number reads a JSON number; a string holding a number is accepted with a
// warning.
func (c *checker) number(v any, path string) (float64, string, bool) {
	var lit string
	switch t := v.(type) {
	case json.Number:
		lit = t.String()
	case float64:
		lit = strconv.FormatFloat(t, 'g', -1, 64)
	case string:
		s := strings.TrimSuffix(strings.TrimSpace(t), "%")
		if _, err := strconv.ParseFloat(s, 64); err != nil || s == "" {
			c.errorf(path, CodeType, "must be a number, not %s", jsonkind.Of(v))
			return 0, "", false
		}
		c.warnf(path, CodeCoerced, "the string %q is read as a number", t)
		lit = s
	default:
		c.errorf(path, CodeType, "must be a number, not %s", jsonkind.Of(v))
		return 0, "", false
	}
	x, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		c.errorf(path, CodeRange, "the number %s is out of range", lit)
		return 0, "", false
	}
	return x, lit, true
}

// integer reads a whole number in [lo, hi].
func (f *fields) integer(key string, required bool, lo, hi int) *int {
	v, ok := f.get(key, required)
	if !ok {
		return nil
	}
	return f.c.asInt(v, f.p(key), lo, hi)
}

func (c *checker) asInt(v any, path string, lo, hi int) *int {
	x, lit, ok := c.number(v, path)
	if !ok {
		return nil
	}
	if x != math.Trunc(x) {
		c.errorf(path, CodeType, "must be a whole number, not %s", lit)
		return nil
	}
	if x < float64(lo) || x > float64(hi) {
		c.errorf(path, CodeRange, "%s is out of range (%s)", lit, rangeText(float64(lo), float64(hi)))
		return nil
	}
	n := int(x)
	return &n
}

func rangeText(lo, hi float64) string {
	switch {
	case hi >= math.MaxInt32:
		return fmt.Sprintf("at least %g", lo)
	default:
		return fmt.Sprintf("%g to %g", lo, hi)
	}
}

// float reads a number in [lo, hi].
func (f *fields) float(key string, required bool, lo, hi float64) *float64 {
	v, ok := f.get(key, required)
	if !ok {
		return nil
	}
	x, lit, ok := f.c.number(v, f.p(key))
	if !ok {
		return nil
	}
	if x < lo || x > hi {
		f.c.errorf(f.p(key), CodeRange, "%s is out of range (%s)", lit, rangeText(lo, hi))
		return nil
	}
	return &x
}

func (f *fields) boolean(key string, required bool) bool {
	v, ok := f.get(key, required)
	if !ok {
		return false
	}
	switch t := v.(type) {
	case bool:
		return t
	case string:
		switch canon(t) {
		case "true", "yes", "pass", "passed":
			f.c.warnf(f.p(key), CodeCoerced, "the string %q is read as true", t)
			return true
		case "false", "no", "fail", "failed":
			f.c.warnf(f.p(key), CodeCoerced, "the string %q is read as false", t)
			return false
		}
	}
	f.c.errorf(f.p(key), CodeType, "must be true or false, not %s", jsonkind.Of(v))
	return false
}

// strs reads a list of strings; a single string is read as a list of one
// with a warning. An empty list is nil.
func (f *fields) strs(key string, required bool) []string {
	v, ok := f.get(key, required)
	if !ok {
		return nil
	}
	return f.c.asStrings(v, f.p(key))
}

func (c *checker) asStrings(v any, path string) []string {
	switch t := v.(type) {
	case string:
		c.warnf(path, CodeCoerced, "a single string is read as a list of one")
		return []string{t}
	case []any:
		var out []string
		for i, e := range t {
			s, ok := e.(string)
			if !ok {
				c.errorf(fmt.Sprintf("%s[%d]", path, i), CodeType, "must be a string, not %s", jsonkind.Of(e))
				continue
			}
			out = append(out, s)
		}
		return out
	}
	c.errorf(path, CodeType, "must be a list of strings, not %s", jsonkind.Of(v))
	return nil
}

// objects reads a list of objects, calling each for every element.
func (f *fields) objects(key string, required bool, each func(m map[string]any, path string)) {
	v, ok := f.get(key, required)
	if !ok {
		return
	}
	list, ok := v.([]any)
	if !ok {
		f.c.errorf(f.p(key), CodeType, "must be a list of objects, not %s", jsonkind.Of(v))
		return
	}
	for i, e := range list {
		path := fmt.Sprintf("%s[%d]", f.p(key), i)
		m, ok := e.(map[string]any)
		if !ok {
			f.c.errorf(path, CodeType, "must be an object, not %s", jsonkind.Of(e))
			continue
		}
		each(m, path)
	}
}

// anyObject reads an object of free form (metrics). An empty object is nil.
func (f *fields) anyObject(key string) map[string]any {
	v, ok := f.get(key, false)
	if !ok {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		f.c.errorf(f.p(key), CodeType, "must be an object, not %s", jsonkind.Of(v))
		return nil
	}
	if len(m) == 0 {
		return nil
	}
	return m
}
