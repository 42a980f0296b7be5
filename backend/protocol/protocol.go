// Package protocol reads every answer an agent gives into one normalized
// form. It finds the delimited response blocks of seed 000
// (<<<ORCHESTRATOR_RESPONSE>>> … <<<END_ORCHESTRATOR_RESPONSE>>>), the
// new_task / attempt_completion objects of seed 003 and the completion_report
// of seed 001; repairs the JSON mistakes agents commonly make and reports
// each repair; validates the data of every phase into typed values with
// field paths on every error and warning; falls back to keyword detection
// when no structured answer exists; and builds the stricter follow-up prompt
// that names exactly what was wrong.
//
// Only what the agent said counts: ParseEntries reads assistant text blocks
// of a Claude Code transcript and nothing else (not the prompt, not tool
// inputs or results, not thinking). No function of this package panics on
// any input.
package protocol

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
)

// Default delimiters of the response block (seed 000).
const (
	DefaultStart = "<<<ORCHESTRATOR_RESPONSE>>>"
	DefaultEnd   = "<<<END_ORCHESTRATOR_RESPONSE>>>"
)

// maxContextText bounds the before/after text kept with a response, so a
// megabyte of chatter around a block does not travel with every result.
const maxContextText = 8 << 10

// Phase names one kind of structured answer.
type Phase string

// The phases of seed 000 and DESIGN.md, and the review gate of seed 001
// (a reviewer's decision on one worker's completed task).
const (
	PhaseAnalysis     Phase = "analysis"
	PhaseTaskList     Phase = "task_list"
	PhaseProgress     Phase = "progress"
	PhaseCompletion   Phase = "completion"
	PhaseReview       Phase = "review"
	PhaseAggregation  Phase = "aggregation"
	PhaseVerification Phase = "verification"
)

// Phases lists every phase in the order a run goes through them.
func Phases() []Phase {
	return []Phase{PhaseAnalysis, PhaseTaskList, PhaseProgress, PhaseCompletion, PhaseReview, PhaseAggregation, PhaseVerification}
}

// Known reports whether p is one of Phases.
func (p Phase) Known() bool {
	for _, q := range Phases() {
		if p == q {
			return true
		}
	}
	return false
}

// ParsePhase checks a phase name given by a person or a template.
func ParsePhase(s string) (Phase, error) {
	p := Phase(strings.TrimSpace(s))
	if !p.Known() {
		return "", fmt.Errorf("unknown phase %q (expected one of %s): %w", s, phaseList(), ErrUnknownPhase)
	}
	return p, nil
}

func phaseList() string {
	names := make([]string, 0, 7)
	for _, p := range Phases() {
		names = append(names, string(p))
	}
	return strings.Join(names, ", ")
}

// Sentinel errors.
var (
	ErrUnknownPhase  = errors.New("unknown phase")
	ErrBadDelimiters = errors.New("bad delimiters")
	ErrNotTranscript = errors.New("not a transcript")
	ErrEmptyInput    = errors.New("empty input")
	ErrBinaryInput   = errors.New("binary input")
	ErrBadTranscript = errors.New("bad transcript")
	errNoData        = errors.New("no data")
)

// Delimiters mark the start and end of a response block. Templates may
// choose their own (prompts.responseFormat).
type Delimiters struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// DefaultDelimiters returns the delimiters of seed 000.
func DefaultDelimiters() Delimiters {
	return Delimiters{Start: DefaultStart, End: DefaultEnd}
}

// Validate checks that the delimiters can be found unambiguously.
func (d Delimiters) Validate() error {
	switch {
	case strings.TrimSpace(d.Start) == "" || strings.TrimSpace(d.End) == "":
		return fmt.Errorf("start and end delimiters must not be empty: %w", ErrBadDelimiters)
	case d.Start == d.End:
		return fmt.Errorf("start and end delimiters must differ, both are %q: %w", d.Start, ErrBadDelimiters)
	case strings.Contains(d.End, d.Start):
		return fmt.Errorf("end delimiter %q must not contain the start delimiter %q: %w", d.End, d.Start, ErrBadDelimiters)
	}
	return nil
}

// Parser reads agent answers delimited by one pair of delimiters. It holds
// no mutable state and is safe for concurrent use.
type Parser struct {
	delims Delimiters
	log    *slog.Logger
}

// NewParser returns a parser for the given delimiters; the zero Delimiters
// means DefaultDelimiters. logger may be nil.
func NewParser(d Delimiters, logger *slog.Logger) (*Parser, error) {
	if d == (Delimiters{}) {
		d = DefaultDelimiters()
	}
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("new parser: %w", err)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Parser{delims: d, log: logger.With("component", "protocol")}, nil
}

// Delimiters returns the delimiters the parser looks for.
func (p *Parser) Delimiters() Delimiters { return p.delims }

// Options tune one parse.
type Options struct {
	// Phase is the phase the agent was asked for. When set, the result's
	// Failure says why no valid answer for this phase was found (a valid
	// answer for another phase is then a wrong_phase failure).
	Phase Phase `json:"phase,omitempty"`
}

// Dialect names the format an answer was written in.
type Dialect string

// Dialects.
const (
	DialectOrchestrator      Dialect = "orchestrator"       // {"phase":…, "data":…} (seed 000)
	DialectAttemptCompletion Dialect = "attempt_completion" // seed 003 report
	DialectNewTask           Dialect = "new_task"           // seed 003 delegation
	DialectCompletionReport  Dialect = "completion_report"  // seed 001 report
)

// Status says how far one response got.
type Status string

// Response statuses.
const (
	StatusValid       Status = "valid"        // typed data with no errors
	StatusInvalid     Status = "invalid"      // JSON read, but validation found errors
	StatusInvalidJSON Status = "invalid_json" // the block content is not JSON, even after repair
	StatusIncomplete  Status = "incomplete"   // start delimiter without its end delimiter
)

// Issue is one validation error or warning with the path of its field, such
// as "data.tasks[2].priority".
type Issue struct {
	Path    string `json:"path"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Issue codes.
const (
	CodeMissing      = "missing"       // a required field is absent or null
	CodeEmpty        = "empty"         // a required text is empty
	CodeType         = "wrong_type"    // a value has the wrong JSON type
	CodeRange        = "out_of_range"  // a number outside its range
	CodeEnum         = "unknown_value" // a value outside its allowed set
	CodeUnknownField = "unknown_field" // a field the phase does not define (warning)
	CodeCoerced      = "coerced"       // a value of a near type was accepted (warning)
	CodeInconsistent = "inconsistent"  // fields that disagree (warning)
	CodeNoDelimiters = "no_delimiters" // a phase object written without delimiters (warning)
)

func (i Issue) String() string { return i.Path + ": " + i.Message }

// Source says where in a transcript a response came from.
type Source struct {
	// Reply counts the assistant replies of the input from 0.
	Reply int `json:"reply"`
	// MessageID is the message.id shared by the entries of the reply.
	MessageID string `json:"message_id,omitempty"`
	// Entries are the uuids of the entries whose text made the reply.
	Entries []string `json:"entries,omitempty"`
}

// JSONError locates a syntax error in a block's content.
type JSONError struct {
	Message string `json:"message"`
	Offset  int    `json:"offset"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	// Excerpt shows the text around the error, with » marking the spot.
	Excerpt string `json:"excerpt,omitempty"`
	// AfterRepair is true when the position refers to the content after the
	// automatic repairs listed in the response.
	AfterRepair bool `json:"after_repair,omitempty"`
}

// Response is one structured answer found in the input: a delimited block
// or an undelimited object of the second dialect.
type Response struct {
	Dialect   Dialect `json:"dialect,omitempty"`
	Delimited bool    `json:"delimited"`
	Status    Status  `json:"status"`
	Phase     Phase   `json:"phase,omitempty"`
	// Data is the typed data of the phase (*Analysis, *TaskList, *Progress,
	// *Completion, *Review, *Aggregation or *Verification). It is filled as far as
	// possible even when Status is invalid.
	Data       PhaseData  `json:"data,omitempty"`
	Repairs    []Repair   `json:"repairs,omitempty"`
	Errors     []Issue    `json:"errors,omitempty"`
	Warnings   []Issue    `json:"warnings,omitempty"`
	JSONError  *JSONError `json:"json_error,omitempty"`
	BeforeText string     `json:"before_text,omitempty"`
	AfterText  string     `json:"after_text,omitempty"`
	Source     Source     `json:"source"`
	// Raw is the text between the delimiters (or the undelimited object) as
	// the agent wrote it.
	Raw string `json:"-"`
}

// Valid reports whether the response carries usable data with no errors.
func (r Response) Valid() bool { return r.Status == StatusValid && r.Data != nil }

// Repaired reports whether the JSON needed automatic repairs.
func (r Response) Repaired() bool { return len(r.Repairs) > 0 }

// Result is everything a parse found.
type Result struct {
	// Responses lists every block or dialect object, in input order,
	// including incomplete and invalid ones.
	Responses []Response `json:"responses"`
	// Fallback is the keyword detection run when no response was found at
	// all; it is never a substitute for a structured answer without being
	// flagged as such.
	Fallback *Fallback `json:"fallback,omitempty"`
	// Failure says why there is no valid answer (for Options.Phase when it
	// was set); nil when there is one.
	Failure *Failure `json:"failure,omitempty"`
	// Notes tell about input that was skipped (for example a transcript
	// entry that is not an object).
	Notes []string `json:"notes,omitempty"`
}

// Last returns the last valid response for phase (any phase when empty).
func (r Result) Last(phase Phase) (Response, bool) {
	for i := len(r.Responses) - 1; i >= 0; i-- {
		resp := r.Responses[i]
		if resp.Valid() && (phase == "" || resp.Phase == phase) {
			return resp, true
		}
	}
	return Response{}, false
}

// Valid returns the valid responses, in order.
func (r Result) Valid() []Response {
	var out []Response
	for _, resp := range r.Responses {
		if resp.Valid() {
			out = append(out, resp)
		}
	}
	return out
}

// ParseText parses plain text, such as the final text of a turn.
func (p *Parser) ParseText(text string, opts Options) Result {
	resps := p.parseReply(text, Source{})
	return p.finish(Result{Responses: resps}, text, opts)
}

// ParseEntries parses the assistant text blocks of transcript entries. Text
// of one reply split over several entries sharing message.id is joined
// first, so a block may span entries. User entries (the prompt and its
// example block), tool_use inputs, tool_result content, thinking blocks,
// result entries and sidechain (subagent) entries are never read.
func (p *Parser) ParseEntries(entries []Entry, opts Options) Result {
	replies := assistantReplies(entries)
	var res Result
	lastText := ""
	for i, rep := range replies {
		src := Source{Reply: i, MessageID: rep.messageID, Entries: rep.uuids}
		res.Responses = append(res.Responses, p.parseReply(rep.text, src)...)
		if strings.TrimSpace(rep.text) != "" {
			lastText = rep.text
		}
	}
	return p.finish(res, lastText, opts)
}

// finish adds the fallback and the failure.
func (p *Parser) finish(res Result, fallbackText string, opts Options) Result {
	if res.Responses == nil {
		res.Responses = []Response{}
	}
	if len(res.Responses) == 0 {
		fb := KeywordFallback(fallbackText)
		res.Fallback = &fb
	}
	res.Failure = failureOf(res, opts.Phase)
	if res.Failure != nil {
		p.log.Debug("no valid answer", "kind", res.Failure.Kind, "phase", opts.Phase)
	}
	return res
}

// clipBefore keeps the end of s (nearest the block), clipAfter its start.
func clipBefore(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxContextText {
		return s
	}
	cut := len(s) - maxContextText
	for cut < len(s) && !startsRune(s[cut]) {
		cut++
	}
	return "…" + s[cut:]
}

func clipAfter(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxContextText {
		return s
	}
	cut := maxContextText
	for cut > 0 && !startsRune(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func startsRune(b byte) bool { return b&0xC0 != 0x80 }

// Format writes data as a response block of the parser's delimiters, the
// form agents are asked to use. Parsing the output gives data back.
func (p *Parser) Format(data PhaseData) (string, error) {
	if data == nil {
		return "", fmt.Errorf("format block: %w", errNoData)
	}
	body, err := marshalIndentNoEscape(struct {
		Phase Phase     `json:"phase"`
		Data  PhaseData `json:"data"`
	}{data.Phase(), data})
	if err != nil {
		return "", fmt.Errorf("format %s block: %w", data.Phase(), err)
	}
	return p.delims.Start + "\n" + string(body) + "\n" + p.delims.End, nil
}
