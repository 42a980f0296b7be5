package mailbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// messageFile is to-developer.json or to-team-lead.json: the messages, as
// written (so nothing an agent wrote is changed), lastRead, and any other
// top-level fields an agent added, kept as they are.
type messageFile struct {
	Messages []json.RawMessage
	// LastRead is the ISO 8601 time of the last read, or "" for null.
	LastRead string
	Other    map[string]json.RawMessage
}

// fileState says what a tolerant read found.
type fileState int

const (
	fileOK      fileState = iota
	fileMissing           // no file yet: no messages
	fileEmpty             // an empty file: being created, no messages yet
	fileBroken            // not valid JSON (half-written, or broken)
)

// readMessageFile reads a message file tolerantly: a missing or empty file
// is an empty one, and a file that is not valid JSON is fileBroken with the
// error (a writer may be half-way through; the caller retries). raw is the
// content read.
func readMessageFile(path string) (mf messageFile, raw []byte, st fileState, err error) {
	raw, err = os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return messageFile{}, nil, fileMissing, nil
	case err != nil:
		return messageFile{}, nil, fileBroken, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return messageFile{}, raw, fileEmpty, nil
	}
	mf, err = decodeMessageFile(raw)
	if err != nil {
		return messageFile{}, raw, fileBroken, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	return mf, raw, fileOK, nil
}

func decodeMessageFile(raw []byte) (messageFile, error) {
	raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return messageFile{}, fmt.Errorf("not a JSON object: %w", err)
	}
	if top == nil {
		return messageFile{}, errors.New("not a JSON object: null")
	}
	var mf messageFile
	if m, ok := top["messages"]; ok && string(m) != "null" {
		if err := json.Unmarshal(m, &mf.Messages); err != nil {
			return messageFile{}, fmt.Errorf(`"messages" must be a list: %w`, err)
		}
	}
	if lr, ok := top["lastRead"]; ok && string(lr) != "null" {
		if err := json.Unmarshal(lr, &mf.LastRead); err != nil {
			return messageFile{}, fmt.Errorf(`"lastRead" must be a string or null: %w`, err)
		}
	}
	delete(top, "messages")
	delete(top, "lastRead")
	if len(top) > 0 {
		mf.Other = top
	}
	return mf, nil
}

// encode writes the file as seed 001 shows it: "messages", then
// "lastRead", then other fields in name order, indented.
func (mf messageFile) encode() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"messages":[`)
	for i, m := range mf.Messages {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m)
	}
	b.WriteString(`],"lastRead":`)
	if mf.LastRead == "" {
		b.WriteString("null")
	} else {
		s, _ := json.Marshal(mf.LastRead)
		b.Write(s)
	}
	keys := make([]string, 0, len(mf.Other))
	for k := range mf.Other {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s, _ := json.Marshal(k)
		b.WriteByte(',')
		b.Write(s)
		b.WriteByte(':')
		b.Write(mf.Other[k])
	}
	b.WriteByte('}')
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("encode message file: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
