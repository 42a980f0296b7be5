package claude

import _ "embed" // the page scripts below

// The page scripts. Each is a JavaScript function declaration run with
// Runtime.callFunctionOn on the page's global object; its arguments are
// passed as call arguments, never pasted into the code.
var (
	//go:embed js/probe.js
	probeJS string
	//go:embed js/listen.js
	listenJS string
	//go:embed js/unlisten.js
	unlistenJS string
	//go:embed js/poll.js
	pollJS string
	//go:embed js/start.js
	startJS string
	//go:embed js/send.js
	sendJS string
	//go:embed js/read.js
	readJS string
	//go:embed js/session.js
	sessionJS string
	//go:embed js/list.js
	listJS string
	//go:embed js/invoke.js
	invokeJS string
	//go:embed js/resolve.js
	resolveJS string
	//go:embed js/methods.js
	methodsJS string
	//go:embed js/record.js
	recordJS string
	//go:embed js/drain.js
	drainJS string
)
