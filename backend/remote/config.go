package remote

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/baton-app/baton/backend/atomicfile"
)

// ConfigFile is the name of the file in Baton's configuration directory
// that keeps remote access: the hashes of the access token and of the
// cookie it is exchanged for (never the token itself), and whether the
// window serves, where.
const ConfigFile = "remote.json"

// DefaultListen is where remote access listens unless told otherwise:
// loopback only.
const DefaultListen = "127.0.0.1:8390"

// DefaultDir returns Baton's configuration directory: $BATON_CONFIG_DIR
// when set (tests), else os.UserConfigDir()/baton.
func DefaultDir() (string, error) {
	if d := os.Getenv("BATON_CONFIG_DIR"); d != "" {
		return d, nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the configuration directory: %w", err)
	}
	return filepath.Join(d, "baton"), nil
}

type configFile struct {
	// TokenHash and CookieHash are hex SHA-256 digests.
	TokenHash    string    `json:"tokenHash,omitempty"`
	CookieHash   string    `json:"cookieHash,omitempty"`
	TokenCreated time.Time `json:"tokenCreated,omitzero"`
	// The window's remote access: on at its start when WindowServes.
	WindowServes bool   `json:"windowServes,omitempty"`
	Listen       string `json:"listen,omitempty"`
	BehindProxy  bool   `json:"behindProxy,omitempty"`
}

// Config is remote.json: the access token's and the cookie's hashes and the
// window's choice. It is safe for concurrent use.
type Config struct {
	path string
	mu   sync.RWMutex
	f    configFile
}

// OpenConfig reads dir/remote.json (none yet: no token, the window does not
// serve), creating dir when needed.
func OpenConfig(dir string) (*Config, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the configuration directory: %w", err)
	}
	c := &Config{path: filepath.Join(dir, ConfigFile)}
	data, err := os.ReadFile(c.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return c, nil
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", ConfigFile, err)
	}
	if err := json.Unmarshal(data, &c.f); err != nil {
		return nil, fmt.Errorf("read %s: %w", ConfigFile, err)
	}
	return c, nil
}

// Path is the file's path.
func (c *Config) Path() string { return c.path }

func (c *Config) save(f configFile) error {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(c.path, append(data, '\n'), 0o600); err != nil {
		return err
	}
	c.f = f
	return nil
}

// HasToken says whether an access token was made (and not yet replaced).
func (c *Config) HasToken() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.f.TokenHash != ""
}

// TokenCreated is when the token in force was made (zero: none).
func (c *Config) TokenCreated() time.Time {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.f.TokenCreated
}

// NewToken makes a new random 256-bit access token, keeps its hash and the
// hash of its cookie, and returns it: the only time it is known. Every
// cookie of the previous token stops working.
func (c *Config) NewToken() (string, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("make an access token: %w", err)
	}
	token := base64.RawURLEncoding.EncodeToString(raw)
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.f
	f.TokenHash = digest(token)
	f.CookieHash = digest(cookieOf(token))
	f.TokenCreated = time.Now().UTC().Truncate(time.Second)
	if err := c.save(f); err != nil {
		return "", fmt.Errorf("keep the access token: %w", err)
	}
	return token, nil
}

// Exchange checks token and returns the cookie value a browser keeps
// instead; ok is false for any other token.
func (c *Config) Exchange(token string) (cookie string, ok bool) {
	c.mu.RLock()
	want := c.f.TokenHash
	c.mu.RUnlock()
	if want == "" || token == "" || !sameDigest(digest(token), want) {
		return "", false
	}
	return cookieOf(token), true
}

// CheckCookie says whether cookie is the one of the token in force.
func (c *Config) CheckCookie(cookie string) bool {
	c.mu.RLock()
	want := c.f.CookieHash
	c.mu.RUnlock()
	return want != "" && cookie != "" && sameDigest(digest(cookie), want)
}

// Window returns the window's choice: whether it serves at its start, and
// where.
func (c *Config) Window() (serves bool, listen string, behindProxy bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	listen = c.f.Listen
	if listen == "" {
		listen = DefaultListen
	}
	return c.f.WindowServes, listen, c.f.BehindProxy
}

// SetWindow keeps the window's choice.
func (c *Config) SetWindow(serves bool, listen string, behindProxy bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.f
	f.WindowServes, f.Listen, f.BehindProxy = serves, listen, behindProxy
	if err := c.save(f); err != nil {
		return fmt.Errorf("keep the remote access setting: %w", err)
	}
	return nil
}

// cookieOf derives a token's cookie: an HMAC keyed by the token, so it can
// be checked against a stored hash and changes with the token.
func cookieOf(token string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("baton remote access cookie v1"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func sameDigest(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
