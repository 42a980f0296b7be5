package store

// Store keeps things.
type Store struct{}
