// send sends a message with LocalSessions.sendMessage(id, text), adding the
// message's uuid in a third position when the app's sendMessage takes one,
// and waits until a user entry with that uuid or exactly that text appears
// after the previous end of that session's transcript, up to timeoutMs. It
// returns {landed, queued, index}. A message the app holds in its queue
// while a turn runs is not in the transcript yet: when the session lists it
// as queued, or its turn is still running (turnRunning, or without it a
// transcript whose last turn has no result) after queuedAfterMs, it is
// reported queued, not lost.
async function (id, text, timeoutMs, uuid, queuedAfterMs) {
  const ls = globalThis['claude.web'] && globalThis['claude.web'].LocalSessions;
  if (!ls) throw new Error('missing LocalSessions');
  for (const m of ['sendMessage', 'getTranscript']) {
    if (typeof ls[m] !== 'function') throw new Error('missing method: ' + m);
  }
  const textOf = (e) => {
    const c = e && e.message && e.message.content;
    if (typeof c === 'string') return c;
    if (Array.isArray(c)) return c.filter((b) => b && b.type === 'text').map((b) => b.text).join('');
    return '';
  };
  const isResult = (e) => !!e && (e.type === 'result' || (!!e.message && e.message.type === 'result'));
  const withUUID = typeof uuid === 'string' && uuid !== '' && ls.sendMessage.length >= 3;
  const before = ((await ls.getTranscript(id)) || []).length;
  if (withUUID) await ls.sendMessage(id, text, uuid);
  else await ls.sendMessage(id, text);
  const want = text.trim();
  const sentAt = Date.now();
  const deadline = sentAt + timeoutMs;
  const queuedAt = sentAt + Math.min(timeoutMs, Math.max(0, queuedAfterMs | 0));
  const queued = async (t) => {
    if (typeof ls.getSession !== 'function') return false;
    const s = await ls.getSession(id);
    if (!s) return false;
    for (const k of ['queuedMessages', 'messageQueue', 'pendingMessages']) {
      const q = s[k];
      if (Array.isArray(q) && q.some((m) => m === text || (m && (m.uuid === uuid || m.message === text || m.text === text || m.content === text)))) return true;
    }
    if (s.turnRunning === true) return true;
    if (s.turnRunning === undefined && s.isRunning) {
      // no turn state: a turn runs when the transcript's last turn has no result yet
      for (let i = t.length - 1; i >= 0; i--) {
        const e = t[i];
        if (isResult(e)) return false;
        if (e && (e.type === 'assistant' || e.type === 'user')) return true;
      }
    }
    return false;
  };
  for (;;) {
    const t = (await ls.getTranscript(id)) || [];
    for (let i = Math.min(before, t.length); i < t.length; i++) {
      const e = t[i];
      if (e && e.type === 'user' && ((withUUID && e.uuid === uuid) || textOf(e).trim() === want)) return { landed: true, queued: false, index: i };
    }
    const now = Date.now();
    if (now >= queuedAt && await queued(t)) return { landed: false, queued: true, index: t.length };
    if (now > deadline) return { landed: false, queued: false, index: t.length };
    await new Promise((r) => setTimeout(r, 25));
  }
}
