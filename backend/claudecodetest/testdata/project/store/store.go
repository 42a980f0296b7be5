// Package store keeps string values by key in memory.
package store

import "sort"

// Store is a map of keys to values.
type Store struct {
	m map[string]string
}

// New returns an empty store.
func New() *Store { return &Store{m: map[string]string{}} }

// Set stores v under k.
func (s *Store) Set(k, v string) { s.m[k] = v }

// Get returns the value of k and whether it is there.
func (s *Store) Get(k string) (string, bool) {
	v, ok := s.m[k]
	return v, ok
}

// Keys returns the keys in order.
func (s *Store) Keys() []string {
	keys := make([]string, 0, len(s.m))
	for k := range s.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
