package worktree

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxDiffFileBytes is the largest file whose two versions a FileDiff
// carries; a larger one is listed with its counts only.
const MaxDiffFileBytes = 1 << 20

// FileDiff is one changed file between two commits with both of its
// versions, for a diff view.
type FileDiff struct {
	Path string `json:"path"`
	// Status is "added", "deleted" or "modified".
	Status  string `json:"status"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	// Binary: the file is not text; Old and New are empty.
	Binary bool `json:"binary,omitempty"`
	// TooLarge: a version is larger than MaxDiffFileBytes; Old and New are
	// empty.
	TooLarge bool   `json:"tooLarge,omitempty"`
	Old      string `json:"old"`
	New      string `json:"new"`
}

// FileDiffs lists the files changed between commits from and to (git diff
// --numstat) with their text before and after, read in one git cat-file.
func (r *Run) FileDiffs(ctx context.Context, from, to string) ([]FileDiff, error) {
	changes, err := r.Changes(ctx, from, to)
	if err != nil {
		return nil, err
	}
	var specs []string
	for _, c := range changes {
		specs = append(specs, from+":"+c.Path, to+":"+c.Path)
	}
	blobs, err := catFiles(ctx, r.Repo, specs)
	if err != nil {
		return nil, err
	}
	out := make([]FileDiff, 0, len(changes))
	for i, c := range changes {
		old, nw := blobs[2*i], blobs[2*i+1]
		d := FileDiff{Path: c.Path, Status: "modified", Added: c.Added, Removed: c.Removed, Binary: c.Added < 0}
		switch {
		case old.missing:
			d.Status = "added"
		case nw.missing:
			d.Status = "deleted"
		}
		switch {
		case d.Binary || !utf8.Valid(old.data) || !utf8.Valid(nw.data):
			d.Binary = true
		case old.size > MaxDiffFileBytes || nw.size > MaxDiffFileBytes:
			d.TooLarge = true
		default:
			d.Old, d.New = string(old.data), string(nw.data)
		}
		out = append(out, d)
	}
	return out, nil
}

// Show returns the content of path at commit rev (git show rev:path).
func (r *Run) Show(ctx context.Context, rev, path string) ([]byte, error) {
	blobs, err := catFiles(ctx, r.Repo, []string{rev + ":" + path})
	if err != nil {
		return nil, err
	}
	if blobs[0].missing {
		return nil, fmt.Errorf("%s is not in %s", path, short(rev))
	}
	if blobs[0].size > int64(len(blobs[0].data)) {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, MaxDiffFileBytes)
	}
	return blobs[0].data, nil
}

type blob struct {
	missing bool
	size    int64
	data    []byte // nil when larger than MaxDiffFileBytes
}

// catFiles reads the objects named by specs (rev:path) with one git
// cat-file --batch, in order.
func catFiles(ctx context.Context, repo string, specs []string) ([]blob, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	for _, s := range specs {
		if strings.ContainsAny(s, "\n\r") {
			return nil, fmt.Errorf("a file name with a line break cannot be read: %q", s)
		}
	}
	cmd := exec.CommandContext(ctx, gitBin, "cat-file", "--batch")
	cmd.Dir = repo
	cmd.Env = gitEnv(nil)
	cmd.Stdin = strings.NewReader(strings.Join(specs, "\n") + "\n")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, ErrGitMissing
		}
		return nil, err
	}
	rd := bufio.NewReaderSize(stdout, 64*1024)
	out := make([]blob, 0, len(specs))
	var readErr error
	for range specs {
		head, err := rd.ReadString('\n')
		if err != nil {
			readErr = fmt.Errorf("read git cat-file: %w", err)
			break
		}
		head = strings.TrimSuffix(head, "\n")
		if strings.HasSuffix(head, " missing") || strings.HasSuffix(head, " ambiguous") {
			out = append(out, blob{missing: true})
			continue
		}
		fields := strings.Fields(head)
		if len(fields) != 3 {
			readErr = fmt.Errorf("read git cat-file: %q", head)
			break
		}
		size, err := strconv.ParseInt(fields[2], 10, 64)
		if err != nil {
			readErr = fmt.Errorf("read git cat-file: %q", head)
			break
		}
		b := blob{size: size}
		if size <= MaxDiffFileBytes {
			b.data = make([]byte, size)
			_, err = io.ReadFull(rd, b.data)
		} else {
			_, err = rd.Discard(int(size))
		}
		if err == nil {
			_, err = rd.Discard(1) // the newline after the object
		}
		if err != nil {
			readErr = fmt.Errorf("read git cat-file: %w", err)
			break
		}
		out = append(out, b)
	}
	_, _ = io.Copy(io.Discard, rd)
	if err := cmd.Wait(); err != nil && readErr == nil {
		readErr = &Error{Args: []string{"cat-file", "--batch"}, Msg: strings.TrimSpace(errb.String()), Err: err}
	}
	if readErr != nil {
		return nil, readErr
	}
	return out, nil
}
