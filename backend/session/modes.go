package session

// The permission modes of a session, as the Claude Code CLI names them
// (--permission-mode). This list is the only one: the template schema, the
// engine, the stand-ins, both adapters and the frontend take it from here
// (the frontend's copy is held equal by a test).
const (
	ModeDefault           = "default"
	ModeAcceptEdits       = "acceptEdits"
	ModePlan              = "plan"
	ModeBypassPermissions = "bypassPermissions"
	ModeDontAsk           = "dontAsk"
	ModeAuto              = "auto"
)

// PermissionModes lists every permission mode in the CLI's order.
var PermissionModes = []string{ModeDefault, ModeAcceptEdits, ModePlan, ModeBypassPermissions, ModeDontAsk, ModeAuto}

// ValidPermissionMode reports whether mode is one of PermissionModes.
func ValidPermissionMode(mode string) bool {
	for _, m := range PermissionModes {
		if m == mode {
			return true
		}
	}
	return false
}
