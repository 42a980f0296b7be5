package console

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/baton-app/baton/backend/protocol"
)

// maxInputFile bounds what `baton parse` reads.
const maxInputFile = 256 << 20

// ParseCLI is `baton parse FILE [--phase P] [--json] [--start S --end E]`:
// it reads a transcript or plain text and prints the normalized answers,
// the repairs applied, the errors and, when there is no valid answer, the
// re-prompt Baton would send. Exit code 0 means a valid answer was found, 1
// means none was, 2 means bad usage or an unreadable file.
func ParseCLI(args []string, stdout, stderr io.Writer) int {
	fset, o := parseFlagSet()
	phaseFlag, jsonOut, start, end := o.phase, o.json, o.start, o.end
	var files []string
	rest := args
	for {
		if err := fset.Parse(rest); err != nil {
			fmt.Fprintf(stderr, "baton parse: %s. Usage: baton parse FILE [--phase PHASE] [--json] [--start DELIM --end DELIM]\n", strings.TrimSuffix(err.Error(), "."))
			return 2
		}
		if fset.NArg() == 0 {
			break
		}
		files = append(files, fset.Arg(0))
		rest = fset.Args()[1:]
	}
	if len(files) != 1 {
		fmt.Fprintln(stderr, "baton parse needs exactly one FILE (a transcript as a JSON array or JSON Lines, or plain text). Usage: baton parse FILE [--phase PHASE] [--json]")
		return 2
	}
	file := files[0]
	var phase protocol.Phase
	if *phaseFlag != "" {
		p, err := protocol.ParsePhase(*phaseFlag)
		if err != nil {
			fmt.Fprintf(stderr, "baton parse: %q is not a phase; use one of %s.\n", *phaseFlag, phaseNames())
			return 2
		}
		phase = p
	}
	parser, err := protocol.NewParser(protocol.Delimiters{Start: *start, End: *end}, nil)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "new parser: ")
		msg = strings.TrimSuffix(msg, ": "+protocol.ErrBadDelimiters.Error())
		fmt.Fprintf(stderr, "baton parse: the delimiters cannot be used: %s.\n", msg)
		return 2
	}
	data, msg := readInputFile(file)
	if msg != "" {
		fmt.Fprintln(stderr, "baton parse: "+msg)
		return 2
	}
	in, err := protocol.DecodeInput(data)
	if err != nil {
		fmt.Fprintln(stderr, "baton parse: "+inputErrorSentence(file, err))
		return 2
	}
	res := parser.ParseInput(in, protocol.Options{Phase: phase})
	reprompt := ""
	if res.Failure != nil {
		reprompt = parser.BuildReprompt(*res.Failure, phase)
	}
	if *jsonOut {
		out := struct {
			File     string          `json:"file"`
			Input    string          `json:"input"`
			Result   protocol.Result `json:"result"`
			Reprompt string          `json:"reprompt,omitempty"`
		}{file, in.Kind(), res, reprompt}
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "baton parse: could not write the result: %v.\n", err)
			return 2
		}
	} else {
		printHuman(stdout, file, in, phase, res, reprompt)
	}
	if res.Failure != nil {
		return 1
	}
	return 0
}

// readInputFile returns the file's bytes, or a sentence saying why not.
func readInputFile(file string) ([]byte, string) {
	st, err := os.Stat(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Sprintf("%s does not exist; check the path.", file)
	case errors.Is(err, fs.ErrPermission):
		return nil, fmt.Sprintf("%s cannot be read (permission denied); check its permissions.", file)
	case err != nil:
		return nil, fmt.Sprintf("%s cannot be read: %v.", file, err)
	case st.IsDir():
		return nil, fmt.Sprintf("%s is a folder; give the path of a transcript or text file.", file)
	case st.Size() > maxInputFile:
		return nil, fmt.Sprintf("%s is %d MB, more than the %d MB baton parse reads; cut the transcript to the turn you want to check.", file, st.Size()>>20, maxInputFile>>20)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, fmt.Sprintf("%s cannot be read (permission denied); check its permissions.", file)
		}
		return nil, fmt.Sprintf("%s cannot be read: %v.", file, err)
	}
	return data, ""
}

func inputErrorSentence(file string, err error) string {
	switch {
	case errors.Is(err, protocol.ErrEmptyInput):
		return fmt.Sprintf("%s is empty; give a transcript (a JSON array of entries) or the text of a reply.", file)
	case errors.Is(err, protocol.ErrBinaryInput):
		return fmt.Sprintf("%s is not a text file; give a transcript (a JSON array of entries) or the text of a reply.", file)
	case errors.Is(err, protocol.ErrBadTranscript):
		detail := err.Error()
		if i := strings.LastIndex(detail, protocol.ErrBadTranscript.Error()+": "); i >= 0 {
			detail = detail[i+len(protocol.ErrBadTranscript.Error())+2:]
		} else {
			detail = strings.TrimPrefix(detail, "decode input: ")
			detail = strings.TrimPrefix(detail, "decode transcript: ")
		}
		return fmt.Sprintf("%s looks like a transcript but is not one (%s); export the transcript again as a JSON array of entries.", file, strings.TrimSuffix(detail, ": "+protocol.ErrBadTranscript.Error()))
	}
	return fmt.Sprintf("%s cannot be read: %v.", file, err)
}

func printHuman(w io.Writer, file string, in protocol.Input, phase protocol.Phase, res protocol.Result, reprompt string) {
	if in.Transcript {
		fmt.Fprintf(w, "%s: transcript with %d entries\n", file, len(in.Entries))
	} else {
		fmt.Fprintf(w, "%s: plain text, %d bytes\n", file, len(in.Text))
	}
	if phase != "" {
		fmt.Fprintf(w, "asked for phase: %s\n", phase)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for i, r := range res.Responses {
		fmt.Fprintf(w, "\nresponse %d of %d: ", i+1, len(res.Responses))
		if r.Phase != "" {
			fmt.Fprintf(w, "phase %s, ", r.Phase)
		}
		if r.Dialect != "" {
			fmt.Fprintf(w, "%s dialect, ", r.Dialect)
		}
		if !r.Delimited {
			fmt.Fprint(w, "without delimiters, ")
		}
		fmt.Fprintf(w, "%s (reply %d", r.Status, r.Source.Reply)
		if r.Source.MessageID != "" {
			fmt.Fprintf(w, ", message %s", r.Source.MessageID)
		}
		fmt.Fprintln(w, ")")
		for _, rep := range r.Repairs {
			fmt.Fprintf(w, "  repaired: %s\n", rep.Description())
		}
		if je := r.JSONError; je != nil {
			fmt.Fprintf(w, "  invalid JSON at line %d, column %d: %s\n    near: %s\n", je.Line, je.Column, je.Message, je.Excerpt)
		}
		for _, is := range r.Errors {
			fmt.Fprintf(w, "  error   %s\n", issueLine(is))
		}
		for _, is := range r.Warnings {
			fmt.Fprintf(w, "  warning %s\n", issueLine(is))
		}
		if r.Data != nil {
			out, err := json.MarshalIndent(r.Data, "  ", "  ")
			if err == nil {
				fmt.Fprintf(w, "  data: %s\n", out)
			}
		}
	}
	if fb := res.Fallback; fb != nil {
		if fb.Detected {
			fmt.Fprintf(w, "\nno structured answer; keywords suggest %s (confidence %.2f, unstructured)\n", fb.ProbablePhase, fb.Confidence)
		} else {
			fmt.Fprintln(w, "\nno structured answer, and no keywords matched")
		}
	}
	if res.Failure == nil {
		fmt.Fprintln(w, "\nresult: a valid answer was found")
		return
	}
	fmt.Fprintf(w, "\nresult: no valid answer: %s\n\nre-prompt Baton would send:\n", res.Failure.Message)
	for _, line := range strings.Split(reprompt, "\n") {
		fmt.Fprintf(w, "  | %s\n", line)
	}
}

func issueLine(is protocol.Issue) string {
	if is.Path == "" {
		return is.Message
	}
	return is.Path + ": " + is.Message
}

func phaseNames() string {
	var names []string
	for _, p := range protocol.Phases() {
		names = append(names, string(p))
	}
	return strings.Join(names, ", ")
}

type parseOptions struct {
	phase, start, end *string
	json              *bool
}

// parseFlagSet defines the flags of "baton parse": its help lists them all.
func parseFlagSet() (*flag.FlagSet, *parseOptions) {
	o := &parseOptions{}
	fset := flag.NewFlagSet("parse", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	o.phase = fset.String("phase", "", "the phase the agent was asked for")
	o.json = fset.Bool("json", false, "print the result as JSON")
	o.start = fset.String("start", protocol.DefaultStart, "start delimiter")
	o.end = fset.String("end", protocol.DefaultEnd, "end delimiter")
	return fset, o
}
