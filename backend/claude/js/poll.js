// poll returns one small fingerprint per session, for the polling fallback
// when the page has no onOnEvent. Takes no arguments.
async function () {
  const ls = globalThis['claude.web'] && globalThis['claude.web'].LocalSessions;
  if (!ls || typeof ls.getAll !== 'function') throw new Error('missing method: getAll');
  const all = (await ls.getAll()) || [];
  const out = [];
  for (const s of all) {
    if (!s || typeof s.sessionId !== 'string') continue;
    const pending = Array.isArray(s.pendingToolPermissions) ? s.pendingToolPermissions.length : 0;
    out.push([s.sessionId, JSON.stringify([s.lastActivityAt || null, !!s.turnRunning, !!s.isRunning, pending, !!s.isArchived])]);
  }
  return out;
}
