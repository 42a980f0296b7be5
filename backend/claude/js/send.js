// send sends a message with LocalSessions.sendMessage(id, text) (two
// arguments only) and waits until a user entry with exactly that text
// appears after the previous end of that session's transcript, up to
// timeoutMs. It returns {landed, index}.
async function (id, text, timeoutMs) {
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
  const before = ((await ls.getTranscript(id)) || []).length;
  await ls.sendMessage(id, text);
  const want = text.trim();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const t = (await ls.getTranscript(id)) || [];
    for (let i = Math.min(before, t.length); i < t.length; i++) {
      const e = t[i];
      if (e && e.type === 'user' && textOf(e).trim() === want) return { landed: true, index: i };
    }
    if (Date.now() > deadline) return { landed: false, index: t.length };
    await new Promise((r) => setTimeout(r, 25));
  }
}
