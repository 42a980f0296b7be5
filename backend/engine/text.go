package engine

import "unicode/utf8"

// clip shortens s to at most n characters (runes), ending it with "..."
// when it was longer; a character is never split.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return firstRunes(s, n-3) + "..."
}

// firstRunes is the first n characters of s.
func firstRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// lastRunes is the last n characters of s.
func lastRunes(s string, n int) string {
	c := utf8.RuneCountInString(s)
	if c <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == c-n {
			return s[j:]
		}
		i++
	}
	return s
}
