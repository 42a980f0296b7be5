// listen installs Baton's two listeners on LocalSessions: one on onOnEvent and
// one on onOnToolPermissionRequest. Each forwards {sessionId, kind} to Go
// through the CDP binding named by the first argument, and never blocks. An
// event comes wrapped ({type: "message", sessionId, message}) or as the raw
// transcript entry, whose sessionId is the CLI's session UUID (Go maps it to
// the app's id); a result, top-level or wrapped in the entry's message, is
// kind "result". A notice of a new transcript entry also carries the entry's
// uuid, the uuid of the entry this listener forwarded before it for that
// session (prev: Go serves a read from the pushed entries only along an
// unbroken chain of them), and the entry itself when its JSON is at most
// maxEntry characters (the second argument; 0 sends none), so that Go need
// not read it back. A second call with the same binding replaces the
// listeners of the first, so there is never more than one of each per
// connection.
function (binding, maxEntry) {
  const key = Symbol.for('baton.listeners.' + binding);
  const previous = globalThis[key];
  if (Array.isArray(previous)) {
    for (const off of previous) {
      Promise.resolve(off).then((f) => { if (typeof f === 'function') f(); }).catch(() => {});
    }
  }
  const ls = globalThis['claude.web'] && globalThis['claude.web'].LocalSessions;
  const send = (sessionId, kind) => {
    if (typeof sessionId !== 'string' || sessionId === '') return;
    const f = globalThis[binding];
    if (typeof f !== 'function') return;
    try { f(JSON.stringify({ sessionId: sessionId, kind: kind })); } catch (e) { /* never throw into the app */ }
  };
  const last = new Map(); // session id → uuid of the entry forwarded last
  const push = (sessionId, kind, entry) => {
    if (typeof sessionId !== 'string' || sessionId === '') return;
    const f = globalThis[binding];
    if (typeof f !== 'function') return;
    try {
      const uuid = entry && typeof entry.uuid === 'string' ? entry.uuid : '';
      const prev = last.get(sessionId) || '';
      last.set(sessionId, uuid);
      let text = '';
      if (uuid !== '' && maxEntry > 0) {
        text = JSON.stringify(entry);
        if (typeof text !== 'string' || text.length > maxEntry) text = '';
      }
      // Every part is JSON already: the entry is not encoded twice.
      f('{"sessionId":' + JSON.stringify(sessionId) + ',"kind":' + JSON.stringify(kind) +
        ',"uuid":' + JSON.stringify(uuid) + ',"prev":' + JSON.stringify(prev) +
        (text !== '' ? ',"entry":' + text : '') + '}');
    } catch (e) { /* never throw into the app */ }
  };
  const offs = [];
  const result = { events: false, permissions: false };
  if (ls && typeof ls.onOnEvent === 'function') {
    const isResult = (e) => !!e && typeof e === 'object' &&
      (e.type === 'result' || (!!e.message && typeof e.message === 'object' && e.message.type === 'result'));
    const entryTypes = ['assistant', 'user', 'result', 'system', 'stream_event'];
    offs.push(ls.onOnEvent((ev) => {
      if (!ev || typeof ev !== 'object') return;
      if (ev.type === 'message') {
        const m = ev.message;
        if (m && m.type === 'stream_event') return;
        push(ev.sessionId || (m && (m.sessionId || m.session_id)), isResult(m) ? 'result' : 'message', m);
      } else if (ev.type === 'session_updated') {
        send(ev.sessionId || (ev.session && ev.session.sessionId), 'updated');
      } else if (entryTypes.includes(ev.type) || (!ev.type && ev.message)) {
        // a raw entry
        if (ev.type === 'stream_event') return;
        push(ev.sessionId || ev.session_id, isResult(ev) ? 'result' : 'message', ev);
      } else if (ev.sessionId) {
        send(ev.sessionId, 'updated');
      }
    }));
    result.events = true;
  }
  if (ls && typeof ls.onOnToolPermissionRequest === 'function') {
    offs.push(ls.onOnToolPermissionRequest((req) => {
      if (req && typeof req === 'object') send(req.sessionId, 'permission');
    }));
    result.permissions = true;
  }
  Object.defineProperty(globalThis, key, { value: offs, configurable: true, enumerable: false, writable: true });
  return result;
}
