package simulator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/agent"
)

const maxReadSize = 64 << 10

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

// listFolder lists the regular files under dir through an os.Root, so
// nothing outside dir (no "..", no symlink out) is ever reached; it leaves
// out what the agent's listings leave out (agent.SkipDir, agent.MaxListed).
func listFolder(dir string) ([]agent.File, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var out []agent.File
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable parts are left out
		}
		if d.IsDir() {
			if p != "." && (agent.SkipDir(d.Name()) || strings.Count(p, "/") >= 6) {
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
		out = append(out, agent.File{Path: p, Size: info.Size()})
		if len(out) >= agent.MaxListed {
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

// writeFolderFile writes one file under dir (making its folders), as a
// session's Write tool does; paths that leave dir are refused.
func writeFolderFile(dir, name, text string) error {
	if !fs.ValidPath(name) || name == "." {
		return fmt.Errorf("invalid path %q", name)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if d := path.Dir(name); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	return root.WriteFile(name, []byte(text), 0o644)
}

// untracked is the output of the agent's UntrackedCommand in dir: the
// files git does not track, one a line.
func untracked(ctx context.Context, dir string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	args := strings.Fields(agent.UntrackedCommand)
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s: %w: %s", agent.UntrackedCommand, err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
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

// requestDir is the cwd of the session a folder request names; false (with
// the answer written) when there is no such session.
func (s *Simulator) requestDir(w http.ResponseWriter, r *http.Request) (string, bool) {
	dir, ok := s.sessionDir(r.PathValue("session"))
	if !ok {
		http.Error(w, "no such session", http.StatusNotFound)
	}
	return dir, ok
}

// fsList serves the listing of a session's cwd, and nothing else.
func (s *Simulator) fsList(w http.ResponseWriter, r *http.Request) {
	dir, ok := s.requestDir(w, r)
	if !ok {
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
	dir, ok := s.requestDir(w, r)
	if !ok {
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

// fsWrite writes one file of a session's cwd (a JSON body {path,
// content}); paths that leave it are refused.
func (s *Simulator) fsWrite(w http.ResponseWriter, r *http.Request) {
	dir, ok := s.requestDir(w, r)
	if !ok {
		return
	}
	var req struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	if err := readJSON(r, &req); err != nil {
		http.Error(w, "write: "+err.Error(), http.StatusBadRequest)
		return
	}
	if err := writeFolderFile(dir, req.Path, req.Content); err != nil {
		http.Error(w, "write: "+err.Error(), http.StatusBadRequest)
		return
	}
	writeJSON(w, nil)
}

// fsUntracked serves the files of a session's cwd that git does not
// track.
func (s *Simulator) fsUntracked(w http.ResponseWriter, r *http.Request) {
	dir, ok := s.requestDir(w, r)
	if !ok {
		return
	}
	out, err := untracked(r.Context(), dir)
	if err != nil {
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, out)
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
	return f.do(ctx, http.MethodGet, p, q, nil)
}

func (f folderClient) do(ctx context.Context, method, p string, q url.Values, body any) ([]byte, error) {
	u := f.base + "/fs/" + url.PathEscape(f.session) + "/" + p
	if q != nil {
		u += "?" + q.Encode()
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
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

func (f folderClient) list(ctx context.Context) ([]agent.File, error) {
	b, err := f.get(ctx, "list", nil)
	if err != nil {
		return nil, err
	}
	var out []agent.File
	return out, json.Unmarshal(b, &out)
}

func (f folderClient) read(ctx context.Context, name string) (string, error) {
	b, err := f.get(ctx, "read", url.Values{"path": {path.Clean(name)}})
	return string(b), err
}

func (f folderClient) write(ctx context.Context, name, content string) error {
	_, err := f.do(ctx, http.MethodPost, "write", nil, map[string]string{"path": path.Clean(name), "content": content})
	return err
}

func (f folderClient) untracked(ctx context.Context) (string, error) {
	b, err := f.get(ctx, "untracked", nil)
	return string(b), err
}
