// The permission modes of a session, as the Claude Code CLI names them, in
// the CLI's order, with the words the forms show. The list is Go's
// session.PermissionModes (backend/session/modes.go); permission_modes_test.go
// holds the two equal.
export const permissionModes: readonly { mode: string; label: string }[] = [
  { mode: 'default', label: 'Ask before using tools (default)' },
  { mode: 'acceptEdits', label: 'Accept file edits (acceptEdits)' },
  { mode: 'plan', label: 'Plan only, change nothing (plan)' },
  { mode: 'bypassPermissions', label: 'Allow every tool (bypassPermissions)' },
  { mode: 'dontAsk', label: 'Never ask: refuse every tool not allowed in advance (dontAsk)' },
  { mode: 'auto', label: 'Let a safety check decide each tool (auto)' },
];
