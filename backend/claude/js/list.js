// list returns the sessions (only the fields Baton uses). Hidden
// orchestrator workers (id or title containing "__orch_") are left out here
// in the page unless includeHidden is true.
async function (includeHidden) {
  const ls = globalThis['claude.web'] && globalThis['claude.web'].LocalSessions;
  if (!ls) throw new Error('missing LocalSessions');
  if (typeof ls.getAll !== 'function') throw new Error('missing method: getAll');
  const all = (await ls.getAll()) || [];
  const out = [];
  for (const s of all) {
    if (!s || typeof s.sessionId !== 'string') continue;
    const hidden = s.sessionId.includes('__orch_') || (typeof s.title === 'string' && s.title.includes('__orch_'));
    if (hidden && !includeHidden) continue;
    out.push({
      sessionId: s.sessionId, title: s.title, cwd: s.cwd, model: s.model, permissionMode: s.permissionMode,
      isRunning: !!s.isRunning, turnRunning: s.turnRunning, isArchived: !!s.isArchived,
      createdAt: s.createdAt, lastActivityAt: s.lastActivityAt,
      worktreePath: s.worktreePath, originCwd: s.originCwd,
      pendingToolPermissions: Array.isArray(s.pendingToolPermissions) ? s.pendingToolPermissions : [],
    });
  }
  return out;
}
