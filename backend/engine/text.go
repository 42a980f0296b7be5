package engine

// clip shortens s to at most n characters (runes), ending it with "..."
// when it was longer; a character is never split.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-3]) + "..."
	}
	return s
}

// lastRunes is the last n characters of s.
func lastRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[len(r)-n:])
	}
	return s
}
