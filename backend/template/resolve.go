package template

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// maxDepth bounds an extends chain, as a guard besides cycle detection.
const maxDepth = 32

// lookupFunc returns the raw document of a template, or an error wrapping
// ErrNotFound.
type lookupFunc func(id string) (map[string]any, error)

// resolution is a document with its ancestors merged in.
type resolution struct {
	merged  map[string]any // "extends" removed
	chain   []string       // child first
	sources map[string]string
}

// resolveDoc merges doc (the template id) with its ancestors. Objects merge
// key by key; arrays and scalars of the child replace the parent's. A cycle
// or a missing parent is an error naming the chain.
func resolveDoc(id string, doc map[string]any, lookup lookupFunc) (resolution, error) {
	chain := []string{id}
	docs := []map[string]any{doc}
	cur := doc
	for {
		parent, _ := cur["extends"].(string)
		if parent == "" {
			break
		}
		names := append(append([]string(nil), chain...), parent)
		for _, seen := range chain {
			if seen == parent {
				return resolution{}, newError(fmt.Sprintf("template %q cannot be resolved because its extends chain %s is circular", id, strings.Join(names, " -> ")), ErrCycle, ErrInvalid)
			}
		}
		if len(chain) >= maxDepth {
			return resolution{}, newError(fmt.Sprintf("template %q cannot be resolved because its extends chain is longer than %d templates: %s", id, maxDepth, strings.Join(names, " -> ")), ErrInvalid)
		}
		pdoc, err := lookup(parent)
		if errors.Is(err, ErrNotFound) {
			return resolution{}, newError(fmt.Sprintf("template %q extends %q, which does not exist (chain %s)", chain[len(chain)-1], parent, strings.Join(names, " -> ")), ErrMissingParent, ErrInvalid)
		}
		if err != nil {
			return resolution{}, fmt.Errorf("load parent %q of %q: %w", parent, chain[len(chain)-1], err)
		}
		chain = append(chain, parent)
		docs = append(docs, pdoc)
		cur = pdoc
	}
	merged := deepCopy(docs[len(docs)-1]).(map[string]any)
	for i := len(docs) - 2; i >= 0; i-- {
		merged = mergeObjects(merged, docs[i])
	}
	delete(merged, "extends")
	sources := map[string]string{}
	walkLeaves(merged, nil, func(tokens []string) {
		for i, d := range docs {
			if has(d, tokens) {
				sources[pointer(tokens)] = chain[i]
				return
			}
		}
	})
	return resolution{merged: merged, chain: chain, sources: sources}, nil
}

// mergeObjects merges child into parent (which it modifies and returns).
func mergeObjects(parent, child map[string]any) map[string]any {
	for k, cv := range child {
		pv, ok := parent[k]
		pm, pIsObj := pv.(map[string]any)
		cm, cIsObj := cv.(map[string]any)
		if ok && pIsObj && cIsObj {
			parent[k] = mergeObjects(pm, cm)
			continue
		}
		parent[k] = deepCopy(cv)
	}
	return parent
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = deepCopy(x)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, x := range v {
			a[i] = deepCopy(x)
		}
		return a
	default:
		return v
	}
}

// walkLeaves calls fn with the path of every leaf: scalars, arrays and empty
// objects, in sorted order.
func walkLeaves(v any, path []string, fn func([]string)) {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		fn(append([]string(nil), path...))
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		walkLeaves(m[k], append(path, k), fn)
	}
}

// has reports whether doc has a value at path.
func has(doc map[string]any, path []string) bool {
	var cur any = doc
	for _, t := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = m[t]; !ok {
			return false
		}
	}
	return true
}

// toTemplate converts a resolved document to a Template.
func toTemplate(doc map[string]any) (Template, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return Template{}, fmt.Errorf("encode template: %w", err)
	}
	var t Template
	if err := json.Unmarshal(b, &t); err != nil {
		return Template{}, fmt.Errorf("decode template: %w", err)
	}
	return t, nil
}
