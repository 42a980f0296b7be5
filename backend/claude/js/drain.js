// drain returns and forgets what record.js kept under key:
// {values: [{at, kind, value}], dropped}.
function (key) {
  const state = globalThis[Symbol.for('baton.probe.' + key)];
  if (!state) return { values: [], dropped: 0 };
  const values = state.buf;
  const dropped = state.dropped;
  state.buf = [];
  state.dropped = 0;
  return { values: values, dropped: dropped };
}
