// session returns one session object (only the fields Baton uses), or null.
// turnRunning stays undefined when the app does not report it; dates are
// passed as the app gives them (epoch ms or ISO text).
async function (id) {
  const ls = globalThis['claude.web'] && globalThis['claude.web'].LocalSessions;
  if (!ls) throw new Error('missing LocalSessions');
  if (typeof ls.getSession !== 'function') throw new Error('missing method: getSession');
  const s = await ls.getSession(id);
  if (!s) return null;
  return {
    sessionId: s.sessionId, title: s.title, cwd: s.cwd, model: s.model, permissionMode: s.permissionMode,
    isRunning: !!s.isRunning, turnRunning: s.turnRunning, isArchived: !!s.isArchived,
    createdAt: s.createdAt, lastActivityAt: s.lastActivityAt,
    worktreePath: s.worktreePath, originCwd: s.originCwd,
    pendingToolPermissions: Array.isArray(s.pendingToolPermissions) ? s.pendingToolPermissions : [],
  };
}
