package template

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

var placeholder = regexp.MustCompile(`\{([A-Z][A-Z0-9_]*)\}`)

// Substitute replaces every {NAME} in text whose NAME is a key of values.
// Booleans become yes or no, arrays are joined with ", ", objects become
// JSON, nil becomes an empty string; names without a value stay as they are.
func Substitute(text string, values map[string]any) string {
	return placeholder.ReplaceAllStringFunc(text, func(m string) string {
		v, ok := values[m[1:len(m)-1]]
		if !ok {
			return m
		}
		return formatValue(v)
	})
}

func formatValue(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case bool:
		if v {
			return "yes"
		}
		return "no"
	case json.Number:
		return v.String()
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(v), 'f', -1, 32)
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return fmt.Sprint(v)
	case []string:
		return strings.Join(v, ", ")
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = formatValue(x)
		}
		return strings.Join(parts, ", ")
	case fmt.Stringer:
		return v.String()
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Sprint(v)
		}
		return string(b)
	}
}

// Values checks the values a user gave for the template's variables and
// fills in defaults. A value may be given in its own type or as text (as from
// a command line): "yes"/"no"/"true"/"false" for booleans, a number, a list
// separated by commas or new lines. The result holds every declared variable.
// An unknown name, a missing required value, a value of the wrong type or an
// option that a select does not offer is an ErrInvalid error with problems at
// /variables/NAME.
func (t Template) Values(given map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(t.Variables))
	var problems []ValidationError
	bad := func(name, msg string) {
		problems = append(problems, ValidationError{Pointer: "/variables/" + escapeToken(name), Message: msg})
	}
	names := make([]string, 0, len(given))
	for name := range given {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, ok := t.Variables[name]; !ok {
			bad(name, fmt.Sprintf("the template has no variable %s", name))
		}
	}
	names = names[:0]
	for name := range t.Variables {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		def := t.Variables[name]
		v, ok := given[name]
		if !ok || v == nil {
			v = def.Default
		}
		cv, err := convertValue(def, v)
		if err != nil {
			bad(name, fmt.Sprintf("%s (%s): %v", def.Label, name, err))
			continue
		}
		if def.Required && isEmpty(cv) {
			bad(name, fmt.Sprintf("%s (%s) is required", def.Label, name))
			continue
		}
		out[name] = cv
	}
	if len(problems) > 0 {
		return nil, invalidError(t.ID, problems)
	}
	return out, nil
}

func convertValue(def Variable, v any) (any, error) {
	switch def.Type {
	case "number":
		switch x := v.(type) {
		case nil:
			return nil, nil
		case json.Number:
			return x.Float64()
		case float64:
			return x, nil
		case int:
			return float64(x), nil
		case string:
			if strings.TrimSpace(x) == "" {
				return nil, nil
			}
			f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil {
				return nil, fmt.Errorf("%q is not a number", x)
			}
			return f, nil
		}
		return nil, fmt.Errorf("a number is expected")
	case "boolean":
		switch x := v.(type) {
		case nil:
			return false, nil
		case bool:
			return x, nil
		case string:
			switch strings.ToLower(strings.TrimSpace(x)) {
			case "yes", "true", "1", "on":
				return true, nil
			case "no", "false", "0", "off", "":
				return false, nil
			}
			return nil, fmt.Errorf("%q is not yes or no", x)
		}
		return nil, fmt.Errorf("yes or no is expected")
	case "list":
		switch x := v.(type) {
		case nil:
			return []string{}, nil
		case []string:
			return x, nil
		case []any:
			out := make([]string, len(x))
			for i, e := range x {
				out[i] = formatValue(e)
			}
			return out, nil
		case string:
			out := []string{}
			for _, p := range strings.FieldsFunc(x, func(r rune) bool { return r == ',' || r == '\n' }) {
				if p = strings.TrimSpace(p); p != "" {
					out = append(out, p)
				}
			}
			return out, nil
		}
		return nil, fmt.Errorf("a list is expected")
	default: // string, text, select
		var s string
		switch x := v.(type) {
		case nil:
		case string:
			s = x
		default:
			return nil, fmt.Errorf("text is expected")
		}
		if def.Type == "select" && s != "" {
			found := false
			for _, o := range def.Options {
				found = found || o == s
			}
			if !found {
				return nil, fmt.Errorf("%q is not one of %s", s, strings.Join(def.Options, ", "))
			}
		}
		return s, nil
	}
}

func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(x) == ""
	case []string:
		return len(x) == 0
	}
	return false
}

// Render returns the prompt of phase with {NAME} placeholders substituted.
// START_DELIMITER, END_DELIMITER, MAX_TASKS and MAX_WORKERS come from the
// template, then the variables' defaults, then values, which win over both.
// values usually holds the result of Values plus the run's USER_REQUEST,
// CWD, TASK_* and the like.
func (t Template) Render(phase Phase, values map[string]any) (Prompt, error) {
	p, err := t.Prompts.Prompt(phase)
	if err != nil {
		return Prompt{}, err
	}
	all := map[string]any{
		VarStartDelimiter: t.Prompts.ResponseFormat.StartDelimiter,
		VarEndDelimiter:   t.Prompts.ResponseFormat.EndDelimiter,
		VarMaxTasks:       t.Config.MaxTasks,
		VarMaxWorkers:     t.Config.MaxWorkers,
	}
	for name, v := range t.Variables {
		if v.Default != nil {
			all[name] = v.Default
		}
	}
	for k, v := range values {
		all[k] = v
	}
	return Prompt{System: Substitute(p.System, all), User: Substitute(p.User, all)}, nil
}
