// Package store keeps values by key in memory.
package store

import "errors"

// ErrMissing is returned for a key that is not stored.
var ErrMissing = errors.New("missing key")

// Store maps keys to values.
type Store struct{ m map[string]string }

// New returns an empty store.
func New() *Store { return &Store{m: map[string]string{}} }

// Put stores v under k.
func (s *Store) Put(k, v string) { s.m[k] = v }

// Get returns the value under k.
func (s *Store) Get(k string) (string, error) {
	v, ok := s.m[k]
	if !ok {
		return "", ErrMissing
	}
	return v, nil
}
