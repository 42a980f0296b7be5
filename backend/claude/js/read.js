// read returns the transcript entries of a session after the cursor
// (index = entries already read, uuid = the uuid of the last one), at most
// max of them. The slicing happens here in the page, so only the new entries
// cross CDP. When the entry before the cursor is no longer what it was (the
// transcript was rewritten), it finds the uuid again, or starts over with
// reset set. With tail (the app has getTranscriptTail) a read after a known
// entry asks only for the transcript's tail, and reads the whole transcript
// only when the cursor's entry is not in it.
async function (id, index, uuid, max, tail) {
  const ls = globalThis['claude.web'] && globalThis['claude.web'].LocalSessions;
  if (!ls) throw new Error('missing LocalSessions');
  if (tail && index > 0 && uuid && typeof ls.getTranscriptTail === 'function') {
    const tl = await ls.getTranscriptTail(id, tail);
    if (Array.isArray(tl)) {
      let at = -1;
      for (let i = tl.length - 1; i >= 0; i--) {
        if (tl[i] && tl[i].uuid === uuid) { at = i; break; }
      }
      if (at >= 0) {
        const rest = tl.slice(at + 1);
        const part = max > 0 ? rest.slice(0, max) : rest;
        const last = part.length > 0 ? part[part.length - 1] : null;
        return { entries: part, total: index + rest.length, index: index + part.length, uuid: last ? (last.uuid || '') : uuid, reset: false, tail: true };
      }
    }
  }
  if (typeof ls.getTranscript !== 'function') throw new Error('missing method: getTranscript');
  const t = (await ls.getTranscript(id)) || [];
  let from = Math.max(0, index | 0);
  let reset = false;
  if (from > 0 && (from > t.length || (uuid && (!t[from - 1] || t[from - 1].uuid !== uuid)))) {
    let found = -1;
    if (uuid) {
      for (let i = t.length - 1; i >= 0; i--) {
        if (t[i] && t[i].uuid === uuid) { found = i; break; }
      }
    }
    if (found >= 0) { from = found + 1; } else { from = 0; reset = true; }
  }
  const end = max > 0 ? Math.min(t.length, from + max) : t.length;
  const last = end > 0 ? t[end - 1] : null;
  return { entries: t.slice(from, end), total: t.length, index: end, uuid: (last && last.uuid) || '', reset: reset, tail: false };
}
