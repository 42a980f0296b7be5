// resolve finds the app's session (its local_ id) whose Claude Code session
// has the CLI's UUID cliId: a session object that names it, or one whose
// transcript's entries carry it as sessionId. Returns the id or "".
async function (cliId) {
  const ls = globalThis['claude.web'] && globalThis['claude.web'].LocalSessions;
  if (!ls || typeof ls.getAll !== 'function') throw new Error('missing method: getAll');
  const all = (await ls.getAll()) || [];
  for (const s of all) {
    if (!s || typeof s.sessionId !== 'string') continue;
    for (const k of ['cliSessionId', 'claudeSessionId', 'ccSessionId', 'agentSessionId']) {
      if (s[k] === cliId) return s.sessionId;
    }
  }
  const has = (t) => Array.isArray(t) && t.some((e) => e && (e.sessionId === cliId || e.session_id === cliId));
  for (const s of all) {
    if (!s || typeof s.sessionId !== 'string') continue;
    let t = null;
    if (typeof ls.getTranscriptTail === 'function') {
      try { t = await ls.getTranscriptTail(s.sessionId, 5); } catch (e) { t = null; }
    }
    if (!has(t) && typeof ls.getTranscript === 'function') t = await ls.getTranscript(s.sessionId);
    if (has(t)) return s.sessionId;
  }
  return '';
}
