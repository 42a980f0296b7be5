// record installs (on) or removes (off) "baton probe"'s recording listeners
// on onOnEvent and onOnToolPermissionRequest: each keeps the whole value it
// receives (a JSON copy) in a buffer under key, which drain.js empties. At
// most 20000 values are kept; the rest are counted as dropped.
function (key, on) {
  const sym = Symbol.for('baton.probe.' + key);
  const prev = globalThis[sym];
  if (prev) {
    for (const off of prev.offs) {
      Promise.resolve(off).then((f) => { if (typeof f === 'function') f(); }).catch(() => {});
    }
    delete globalThis[sym];
  }
  if (!on) return { events: false, permissions: false };
  const ls = globalThis['claude.web'] && globalThis['claude.web'].LocalSessions;
  const state = { offs: [], buf: [], dropped: 0 };
  const keep = (kind, v) => {
    if (state.buf.length >= 20000) { state.dropped++; return; }
    let copy;
    try { copy = JSON.parse(JSON.stringify(v === undefined ? null : v)); } catch (e) { copy = { unserializable: String(e) }; }
    state.buf.push({ at: Date.now(), kind: kind, value: copy });
  };
  const res = { events: false, permissions: false };
  if (ls && typeof ls.onOnEvent === 'function') {
    state.offs.push(ls.onOnEvent((ev) => keep('event', ev)));
    res.events = true;
  }
  if (ls && typeof ls.onOnToolPermissionRequest === 'function') {
    state.offs.push(ls.onOnToolPermissionRequest((req) => keep('permission', req)));
    res.permissions = true;
  }
  Object.defineProperty(globalThis, sym, { value: state, configurable: true, enumerable: false, writable: true });
  return res;
}
