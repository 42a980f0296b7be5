package claudecode

import (
	"crypto/rand"
	"crypto/sha1"
	"encoding/hex"
	"regexp"
	"strings"

	"github.com/baton-app/baton/backend/session"
)

// Session UUIDs and small helpers.

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// batonNamespace is the UUID namespace of the session UUIDs made from ids.
var batonNamespace = [16]byte{0x6b, 0x61, 0x74, 0x6f, 0x6e, 0x2d, 0x4c, 0x43, 0x8c, 0x6c, 0x61, 0x75, 0x64, 0x65, 0x2d, 0x63}

// uuidFor is the CLI's session UUID of a session id: the id itself when it
// is a UUID, else a name-based (version 5) UUID of it, so that the same id
// finds the same conversation after a restart.
func uuidFor(id session.ID) string {
	s := strings.ToLower(string(id))
	if uuidRE.MatchString(s) {
		return s
	}
	h := sha1.New()
	h.Write(batonNamespace[:])
	h.Write([]byte(id))
	var b [16]byte
	copy(b[:], h.Sum(nil))
	b[6] = b[6]&0x0f | 0x50
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

func formatUUID(b [16]byte) string {
	x := hex.EncodeToString(b[:])
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:]
}

func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > n {
		s = s[:n-3] + "..."
	}
	return s
}
