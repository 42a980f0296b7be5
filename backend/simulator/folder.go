package simulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
)

const (
	maxListed   = 500
	maxReadSize = 64 << 10
)

// fileInfo is one entry of a folder listing.
type fileInfo struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
}

func checkDir(dir string) error {
	if dir == "" || !filepath.IsAbs(dir) {
		return fmt.Errorf("cwd %q is not an absolute path", dir)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("cwd: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("cwd %q is not a directory", dir)
	}
	return nil
}

// skipDir reports whether a directory is left out of listings.
func skipDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor" || name == "dist" || name == "build"
}

// listFolder lists the regular files under dir through an os.Root, so
// nothing outside dir (no "..", no symlink out) is ever reached.
func listFolder(dir string) ([]fileInfo, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var out []fileInfo
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable parts are left out
		}
		if d.IsDir() {
			if p != "." && (skipDir(d.Name()) || strings.Count(p, "/") >= 6) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		out = append(out, fileInfo{Path: p, Size: info.Size()})
		if len(out) >= maxListed {
			return fs.SkipAll
		}
		return nil
	})
	return out, err
}

// readFolderFile reads up to maxReadSize bytes of one file under dir.
func readFolderFile(dir, name string) (string, error) {
	if !fs.ValidPath(name) || name == "." {
		return "", fmt.Errorf("invalid path %q", name)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	f, err := root.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxReadSize))
	return string(b), err
}

func (s *Simulator) sessionDir(id string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.sessions[id]
	if ss == nil {
		return "", false
	}
	return ss.cwd, true
}

// fsList serves the listing of a session's cwd, and nothing else.
func (s *Simulator) fsList(w http.ResponseWriter, r *http.Request) {
	dir, ok := s.sessionDir(r.PathValue("session"))
	if !ok {
		http.Error(w, "no such session", http.StatusNotFound)
		return
	}
	files, err := listFolder(dir)
	if err != nil {
		http.Error(w, "list: "+err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, files)
}

// fsRead serves one file of a session's cwd; paths that leave it are
// refused.
func (s *Simulator) fsRead(w http.ResponseWriter, r *http.Request) {
	dir, ok := s.sessionDir(r.PathValue("session"))
	if !ok {
		http.Error(w, "no such session", http.StatusNotFound)
		return
	}
	text, err := readFolderFile(dir, r.URL.Query().Get("path"))
	if err != nil {
		http.Error(w, "read: "+err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, text)
}

// folderClient reads a session's folder through the simulator's loopback
// endpoint, as the scripted agent does.
type folderClient struct {
	base    string
	session string
	token   string
	client  *http.Client
}

func (f folderClient) get(ctx context.Context, p string, q url.Values) ([]byte, error) {
	u := f.base + "/fs/" + url.PathEscape(f.session) + "/" + p
	if q != nil {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set(TokenHeader, f.token)
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, errors.New(strings.TrimSpace(string(b)))
	}
	return b, nil
}

func (f folderClient) list(ctx context.Context) ([]fileInfo, error) {
	b, err := f.get(ctx, "list", nil)
	if err != nil {
		return nil, err
	}
	var out []fileInfo
	return out, json.Unmarshal(b, &out)
}

func (f folderClient) read(ctx context.Context, name string) (string, error) {
	b, err := f.get(ctx, "read", url.Values{"path": {path.Clean(name)}})
	return string(b), err
}
