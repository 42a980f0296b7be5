// invoke calls LocalSessions[method](...args) for the simple methods
// (interrupt, archive, unarchive, stop, setModel, setPermissionMode,
// respondToToolPermission). The method name is a call argument, never code.
async function (method, args) {
  const ls = globalThis['claude.web'] && globalThis['claude.web'].LocalSessions;
  if (!ls) throw new Error('missing LocalSessions');
  if (typeof ls[method] !== 'function') throw new Error('missing method: ' + method);
  // an empty list arrives as undefined (CDP leaves out an empty value)
  const res = await ls[method](...(Array.isArray(args) ? args : []));
  return res === undefined ? null : res;
}
