// methods lists LocalSessions' methods with their arity (Function.length:
// the parameters before the first one with a default or rest), for
// "baton probe". Takes no arguments.
function () {
  const ls = globalThis['claude.web'] && globalThis['claude.web'].LocalSessions;
  if (!ls) throw new Error('missing LocalSessions');
  const out = [];
  const seen = new Set();
  let o = ls;
  while (o && o !== Object.prototype && o !== Function.prototype) {
    for (const k of Object.getOwnPropertyNames(o)) {
      if (k === 'constructor' || seen.has(k)) continue;
      try {
        const f = ls[k];
        if (typeof f === 'function') { seen.add(k); out.push({ name: k, arity: f.length }); }
      } catch (e) {
        // a getter that throws is not a method
      }
    }
    o = Object.getPrototypeOf(o);
  }
  out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return out;
}
