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
// code-review: one task per area), and each worker works on the files of
// its own scope. The aggregation answer lists every "Conflict to
// resolve:" line of its prompt as a conflict left to the user.
//
// A Mind holds what the agent knows in one turn and decides; Mind.Respond
// is the one phase dispatch, which both faces call with themselves as the
// Face that plays the turns that run tools:
//
//   - the simulator page lists and reads the folder through its loopback
//     endpoint and writes the transcript entries itself;
//   - the model face (Answer) answers a Messages API request with the next
//     assistant message: tool calls that the CLI's real tools run on the
//     real folder (a worker writes its notes into its scope, edits a file
//     of it and runs the project's tests), then the text with the block.
//     It keeps no state between requests: the turn is replayed from the
//     conversation, so a CLI session resumed with --resume goes on where
//     it was.
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
package agent
