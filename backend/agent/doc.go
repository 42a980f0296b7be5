// Package agent is the scripted agent behind Baton's stand-ins for Claude
// (no AI): the Claude Desktop stand-in page (backend/simulator) and the
// Messages API stand-in that the real Claude Code CLI talks to
// (backend/modelsim, "baton model-sim"). Its one job is to decide what the
// agent says to a prompt of Baton's about a project's files; it imports
// the standard library only, and nothing that drives a browser.
//
// # How the agent answers
//
// Detect reads which phase a prompt asks for (quoted block examples such
// as "phase": "task_list" first, then keywords) and in which dialect: a
// prompt that quotes an attempt_completion report or a new_task object
// instead of a phase block (the sparc template, seed 003) gets one in
// return, a plan as one new_task object per block (ids such as DOCS-001,
// the specialist in delegatedToMode) and a worker's report as an
// attempt_completion whose result (success, failure, clarification_needed,
// conflict_detected) follows the scenario; a prompt that quotes a
// completion_report (seed 001) gets one, with its build result; a
// follow-up that names neither (the answer to a question) is answered in
// the dialect the phase was last asked in. The plan follows the template
// and the request (documentation: a page per component and an index;
// test-coverage: tests for the packages without any; bug-hunt and
// code-review: one task per area); it stays within what the request names
// (a package, a folder, a file) and leaves out the files git does not
// track, which a worktree run's workers would not find, saying so in the
// analysis. The aggregation answer lists every "Conflict to resolve:"
// line of its prompt as a conflict left to the user.
//
// # Workers do real work
//
// A worker reads what its task needs (WorkerReads) and does the Work of
// its kind from the code it read (work.go): a documentation task writes
// its page (docs/<component>.md: the package comments, every exported name
// with its declaration, documentation and file:line, the files; Go through
// go/parser and go/doc, Python and JavaScript by their definitions) or the
// index docs/README.md linking the pages; a page that was there keeps its
// text and gains the agent's part between marks. A test task writes a test
// file per package (Go: exported functions called twice with inputs the
// agent can build, which must answer the same, and every signature pinned,
// so that it builds and passes; Python: unittest; JavaScript: for the
// project's runner) and runs the package's tests. Bug hunts and reviews
// report findings at real file:line places. Any other task writes its
// notes. In plan mode, or in a template's read-only task, nothing is
// written: the report proposes the changes. A change a file holds already
// is not written again, so a turn played again after a resume changes
// nothing twice.
//
// A Mind holds what the agent knows in one turn and decides; Mind.Respond
// is the one phase dispatch, which both faces call with themselves as the
// Face that plays the turns that run tools:
//
//   - the simulator page lists, reads and writes the folder through its
//     loopback endpoint (the session's folder: a worker's worktree in a
//     worktree run) and writes the transcript entries itself;
//   - the model face (Answer) answers a Messages API request with the next
//     assistant message: tool calls that the CLI's real tools run on the
//     real folder (Glob or find, git ls-files, Read, Write, Edit, the
//     tests through Bash), then the text with the block. It keeps no state
//     between requests: the turn is replayed from the conversation, so a
//     CLI session resumed with --resume goes on where it was, and a file
//     an earlier turn of the conversation wrote is not written again.
//
// # Scenarios
//
// A scenario (Turn.Scenario) decides how the agent behaves. Each stand-in
// lists the names it accepts; a user chooses one for a session with a
// marker in a message, [[sim:scenario=NAME k=v …]] (Marker). The faces
// play some themselves: needs-permission, asks-question and worker-hangs
// (both), out-of-scope (the model face: a worker also writes outside its
// scope), and the page's slow, flood and page-reload; model-sim adds the
// API faults. The Mind decides the others for both faces. The
// bad-answer scenarios (malformed-json, no-delimiters, missing-fields)
// break only the first answer to each phase, so a stricter re-prompt gets
// a valid one. The workflow scenarios play one side of seed 001, 003 and
// 004 and answer every other phase as happy does: rejected-once (a review
// prompt, "phase": "review", is rejected the first time for each task and
// approved after; in other scenarios a review is approved), clarification
// (a worker's first completion is status needs_input with a question; the
// next message, the answer, gets a normal completion), qa-fails (the first
// verification fails with one issue per task named in the prompt, later
// ones pass) and conflict (a worker reports a conflict: another agent
// changed the first file of its scope; the issue names that file and a
// suggested resolution). worker-fails makes a worker report status failed,
// and deadlock plans a chain beside an independent task whose first task
// fails.
//
// The scenarios that lie, so that Baton's checks can be tested:
// wrong-task-id (a worker does its work and reports it under another
// task's id), claims-without-writing (a worker writes nothing and reports
// success naming the files it would have written) and verification-lies (a
// worker also writes a file that breaks the build or a test and runs no
// check; the verification says "pass" whatever the tests say). They lie
// every time, or with times=N only in the first N answers of the phase.
package agent
