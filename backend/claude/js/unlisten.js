// unlisten removes the listeners that listen.js installed for the binding
// named by the argument. Called when Baton closes its connection.
function (binding) {
  const key = Symbol.for('baton.listeners.' + binding);
  const offs = globalThis[key];
  if (Array.isArray(offs)) {
    for (const off of offs) {
      Promise.resolve(off).then((f) => { if (typeof f === 'function') f(); }).catch(() => {});
    }
  }
  delete globalThis[key];
  return true;
}
