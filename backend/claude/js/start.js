// start creates a session with LocalSessions.start(info) and returns its id.
// info holds only the fields Baton sets: cwd, message, useWorktree (false
// unless Baton asks for the app's worktree) and the optional title,
// sessionId, model and permissionMode.
async function (info) {
  const ls = globalThis['claude.web'] && globalThis['claude.web'].LocalSessions;
  if (!ls) throw new Error('missing LocalSessions');
  if (typeof ls.start !== 'function') throw new Error('missing method: start');
  const res = await ls.start(info);
  const id = typeof res === 'string' ? res : (res && (res.sessionId || res.id));
  if (typeof id !== 'string' || id === '') throw new Error('start returned no session id');
  return id;
}
