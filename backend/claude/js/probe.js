// probe reports whether the page exposes Claude Desktop's LocalSessions
// object, which methods it has, and the app version. Called with
// Runtime.callFunctionOn on the page's global object; takes no arguments.
function () {
  const web = globalThis['claude.web'];
  const ls = web && web.LocalSessions;
  const version = String((web && (web.version || web.appVersion)) || navigator.userAgent || '');
  const readyState = (globalThis.document && document.readyState) || '';
  if (!ls || (typeof ls !== 'object' && typeof ls !== 'function')) {
    return { present: false, methods: [], version: version, readyState: readyState };
  }
  const names = new Set();
  let o = ls;
  while (o && o !== Object.prototype && o !== Function.prototype) {
    for (const k of Object.getOwnPropertyNames(o)) {
      if (k === 'constructor') continue;
      try {
        if (typeof ls[k] === 'function') names.add(k);
      } catch (e) {
        // a getter that throws is not a method
      }
    }
    o = Object.getPrototypeOf(o);
  }
  return { present: true, methods: Array.from(names).sort(), version: version, readyState: readyState };
}
