package chrome

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrChromeNotFound is returned when no Chrome or Chromium is found.
var ErrChromeNotFound = errors.New("chrome or chromium not found")

// Candidates returns the places FindChrome looks, in order: the explicit
// path, $BATON_CHROME, then the standard places of the running OS.
func Candidates(explicit string) []string {
	var c []string
	if explicit != "" {
		c = append(c, explicit)
	}
	if env := os.Getenv("BATON_CHROME"); env != "" {
		c = append(c, env)
	}
	switch runtime.GOOS {
	case "darwin":
		c = append(c,
			"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
			"/Applications/Chromium.app/Contents/MacOS/Chromium",
			"/Applications/Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary",
		)
	case "windows":
		for _, env := range []string{"ProgramFiles", "ProgramFiles(x86)", "LocalAppData"} {
			if d := os.Getenv(env); d != "" {
				c = append(c, filepath.Join(d, "Google", "Chrome", "Application", "chrome.exe"))
			}
		}
		c = append(c, "chrome.exe")
	default:
		c = append(c, "/usr/bin/chromium", "/usr/bin/chromium-browser", "google-chrome", "google-chrome-stable", "chromium", "chromium-browser")
	}
	return c
}

// FindChrome returns the first usable browser of Candidates(explicit). An
// explicit path or $BATON_CHROME that does not exist is an error, not a
// reason to look elsewhere.
func FindChrome(explicit string) (string, error) {
	for i, p := range Candidates(explicit) {
		chosen := i == 0 && explicit != "" || p == os.Getenv("BATON_CHROME") && p != ""
		if strings.ContainsRune(p, filepath.Separator) || strings.ContainsRune(p, '/') {
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return p, nil
			}
		} else if lp, err := exec.LookPath(p); err == nil {
			return lp, nil
		}
		if chosen {
			return "", fmt.Errorf("%w at %s", ErrChromeNotFound, p)
		}
	}
	return "", fmt.Errorf("%w (looked in %s)", ErrChromeNotFound, strings.Join(Candidates(explicit), ", "))
}

// BrowserVersion runs "path --version" and returns its output, such as
// "Chromium 156.0.8078.79 built on Debian GNU/Linux 12 (bookworm)".
func BrowserVersion(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", path, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// LaunchOptions say how to start a browser.
type LaunchOptions struct {
	// Path of the browser; FindChrome("") when empty.
	Path string
	// Headless starts the browser without a window.
	Headless bool
	// ProfileDir is a persistent profile; a temporary one, removed by
	// Shutdown, when empty.
	ProfileDir string
	// Port is the DevTools port; any free port when zero.
	Port int
	// URL is the page the browser opens.
	URL string
	// NoSandbox adds --no-sandbox. It is also added when running as root,
	// where Chrome refuses to start otherwise.
	NoSandbox bool
	// Flags are extra command-line flags ("--name=value").
	Flags []string
	// Output receives the browser's stderr; discarded when nil.
	Output io.Writer
}

// Browser is a browser process started by Launch.
type Browser struct {
	cmd      *exec.Cmd
	profile  string
	temp     bool
	endpoint string
	done     chan struct{}
	waitErr  error
	stopOnce sync.Once
	stopErr  error
}

// Launch starts a browser with a DevTools port on 127.0.0.1 and waits until
// the port is open.
func Launch(ctx context.Context, opts LaunchOptions) (*Browser, error) {
	path := opts.Path
	if path == "" {
		var err error
		if path, err = FindChrome(""); err != nil {
			return nil, err
		}
	}
	if opts.Port != 0 {
		// Chrome starts even when it cannot open its port; say why now.
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(opts.Port))
		if err != nil {
			return nil, fmt.Errorf("port %d on 127.0.0.1 is in use (is Claude Desktop or another browser already listening there?): %w", opts.Port, err)
		}
		ln.Close()
	}
	b := &Browser{profile: opts.ProfileDir, done: make(chan struct{})}
	if b.profile == "" {
		dir, err := os.MkdirTemp("", "baton-chrome-")
		if err != nil {
			return nil, fmt.Errorf("create profile: %w", err)
		}
		b.profile, b.temp = dir, true
	} else if err := os.MkdirAll(b.profile, 0o700); err != nil {
		return nil, fmt.Errorf("create profile: %w", err)
	}
	// A stale port file from an earlier run must not be read as ours.
	_ = os.Remove(filepath.Join(b.profile, "DevToolsActivePort"))
	args := []string{
		"--remote-debugging-port=" + strconv.Itoa(opts.Port),
		"--remote-debugging-address=127.0.0.1",
		"--user-data-dir=" + b.profile,
		"--disable-gpu",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		"--no-first-run",
		"--no-default-browser-check",
	}
	if opts.Headless {
		args = append(args, "--headless")
	}
	if opts.NoSandbox || runtime.GOOS == "linux" && os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	args = append(args, opts.Flags...)
	if opts.URL != "" {
		args = append(args, opts.URL)
	} else {
		args = append(args, "about:blank")
	}
	b.cmd = exec.Command(path, args...)
	out := opts.Output
	if out == nil {
		out = io.Discard
	}
	var stderr bytes.Buffer
	b.cmd.Stdout = out
	b.cmd.Stderr = io.MultiWriter(out, &limitedBuffer{b: &stderr, n: 8 << 10})
	setProcessGroup(b.cmd)
	if err := startOwned(b.cmd, func(err error) {
		b.waitErr = err
		close(b.done)
	}); err != nil {
		return nil, errors.Join(fmt.Errorf("start %s: %w", path, err), b.cleanProfile())
	}
	port, err := b.waitPort(ctx, opts.Port)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("%s did not open its DevTools port: %w (stderr: %s)", path, err, strings.TrimSpace(stderr.String())), b.Shutdown(context.Background()))
	}
	b.endpoint = "http://127.0.0.1:" + strconv.Itoa(port)
	return b, nil
}

func (b *Browser) waitPort(ctx context.Context, fixed int) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	file := filepath.Join(b.profile, "DevToolsActivePort")
	t := time.NewTicker(25 * time.Millisecond)
	defer t.Stop()
	for {
		if data, err := os.ReadFile(file); err == nil {
			line, _, _ := strings.Cut(string(data), "\n")
			if port, err := strconv.Atoi(strings.TrimSpace(line)); err == nil && port > 0 {
				return port, nil
			}
		}
		// Chromium writes the port file only for a port it chose itself
		// (--remote-debugging-port=0); a fixed port is ready when it answers.
		if fixed > 0 && answers(ctx, fixed) {
			return fixed, nil
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-b.done:
			return 0, fmt.Errorf("the browser exited: %v", b.waitErr)
		case <-t.C:
		}
	}
}

// answers reports whether a DevTools endpoint answers on 127.0.0.1:port.
func answers(ctx context.Context, port int) bool {
	ctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(port)+"/json/version", nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// Endpoint returns the DevTools endpoint, such as "http://127.0.0.1:9222".
func (b *Browser) Endpoint() string { return b.endpoint }

// ProfileDir returns the profile directory.
func (b *Browser) ProfileDir() string { return b.profile }

// Done is closed when the browser process exits.
func (b *Browser) Done() <-chan struct{} { return b.done }

// Shutdown stops the browser, waits for it (up to ctx) and removes a
// temporary profile.
func (b *Browser) Shutdown(ctx context.Context) error {
	b.stopOnce.Do(func() {
		select {
		case <-b.done:
		default:
			killProcess(b.cmd)
			select {
			case <-b.done:
			case <-ctx.Done():
				b.stopErr = fmt.Errorf("wait for the browser to exit: %w", ctx.Err())
				return
			}
		}
		b.stopErr = b.cleanProfile()
	})
	return b.stopErr
}

func (b *Browser) cleanProfile() error {
	if !b.temp {
		return nil
	}
	var err error
	for range 20 { // child processes may still be writing for a moment
		if err = os.RemoveAll(b.profile); err == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("remove profile: %w", err)
}

type limitedBuffer struct {
	b *bytes.Buffer
	n int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
