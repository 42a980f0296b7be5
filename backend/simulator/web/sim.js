// The simulator's LocalSessions: the same surface as Claude Desktop's
// window['claude.web'].LocalSessions, backed by the Go simulator server, so
// sessions survive a reload of this page. Values are only ever shown with
// textContent: nothing a session holds is parsed as HTML or code.
(() => {
  'use strict';

  // The per-launch token arrives in this page's fragment (never sent to
  // the server by the browser); every API call carries it.
  const token = new URLSearchParams(location.hash.slice(1)).get('token') || '';

  async function api(method, path, body) {
    const init = { method: method, headers: { 'X-Baton-Token': token } };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const res = await fetch(path, init);
    if (!res.ok) {
      const text = (await res.text()).trim();
      throw new Error(text || (method + ' ' + path + ': ' + res.status));
    }
    const type = res.headers.get('Content-Type') || '';
    return type.includes('json') ? res.json() : null;
  }

  const q = (v) => encodeURIComponent(String(v));
  const eventListeners = new Set();
  const permissionListeners = new Set();
  const transcripts = new Map(); // sessionId -> entries already fetched
  const locks = new Map(); // sessionId -> promise of the fetch in flight

  // getTranscript returns the whole transcript, like Claude Desktop; the page
  // fetches from the server only the entries it does not hold yet.
  function getTranscript(id) {
    id = String(id);
    const prev = locks.get(id) || Promise.resolve();
    const next = prev.then(async () => {
      let have = transcripts.get(id) || [];
      let r = await api('GET', '/api/transcript?id=' + q(id) + '&from=' + have.length);
      if (r.total < have.length) {
        have = [];
        r = await api('GET', '/api/transcript?id=' + q(id) + '&from=0');
      }
      for (const e of r.entries) have.push(e);
      transcripts.set(id, have);
      return have;
    });
    locks.set(id, next.catch(() => {}));
    return next;
  }

  const post = (action, body) => api('POST', '/api/' + action, body).then(() => undefined);

  // The shapes the server asks for (shapes.js): the real app's methods
  // that the simulator has only when asked. calls counts the transcript
  // reads, for tests.
  const shapes = window.__batonSimShapes || {};
  const calls = { getTranscript: 0, getTranscriptTail: 0 };
  Object.defineProperty(window, '__batonSimCalls', { value: calls, enumerable: false });

  const LocalSessions = {
    getAll: () => api('GET', '/api/sessions'),
    getSession: (id) => api('GET', '/api/session?id=' + q(id)),
    start: (info) => api('POST', '/api/start', info),
    sendMessage: shapes.messageUUID
      ? (id, message, uuid) => post('send', { sessionId: id, message: message, uuid: typeof uuid === 'string' ? uuid : '' })
      : (id, message) => post('send', { sessionId: id, message: message }),
    getTranscript: (id) => { calls.getTranscript++; return getTranscript(id); },
    interrupt: (id) => post('interrupt', { sessionId: id }),
    stop: (id) => post('stop', { sessionId: id }),
    archive: (id) => post('archive', { sessionId: id }),
    unarchive: (id) => post('unarchive', { sessionId: id }),
    delete: (id) => post('delete', { sessionId: id }),
    setModel: (id, model) => post('model', { sessionId: id, value: model }),
    setPermissionMode: (id, mode) => post('mode', { sessionId: id, value: mode }),
    respondToToolPermission: (requestId, decision, updatedInput) =>
      post('respond', { requestId: requestId, decision: decision, updatedInput: updatedInput }),
    onOnEvent: (cb) => { eventListeners.add(cb); replaySoon(); return () => { eventListeners.delete(cb); }; },
    onOnToolPermissionRequest: (cb) => { permissionListeners.add(cb); replaySoon(); return () => { permissionListeners.delete(cb); }; },
  };
  if (shapes.transcriptTail) {
    LocalSessions.getTranscriptTail = async (id, limit) => {
      calls.getTranscriptTail++;
      const r = await api('GET', '/api/transcript?id=' + q(id) + '&tail=' + q(Math.max(1, limit | 0)));
      return r.entries;
    };
  }

  if (Array.isArray(shapes.methods)) {
    // Replaying a recording: exactly the recorded methods, with their
    // recorded arity; one the simulator cannot serve rejects.
    const impl = Object.assign({}, LocalSessions);
    for (const k of Object.keys(LocalSessions)) delete LocalSessions[k];
    for (const m of shapes.methods) {
      const f = impl[m.name] || (() => Promise.reject(new Error('replay: ' + m.name + ' was not recorded')));
      const g = (...a) => f(...a);
      Object.defineProperty(g, 'length', { value: m.arity | 0 });
      LocalSessions[m.name] = g;
    }
  }

  Object.defineProperty(window, 'claude.web', {
    value: Object.freeze({ LocalSessions: Object.freeze(LocalSessions), version: 'baton-simulator/1' }),
    enumerable: true,
  });

  function deliver(listeners, value) {
    for (const cb of Array.from(listeners)) {
      try { cb(value); } catch (e) { console.error('listener failed', e); }
    }
  }

  let refresh = null;
  const events = new EventSource('/api/events?token=' + encodeURIComponent(token));
  const onEvent = (m) => {
    let ev;
    try { ev = JSON.parse(m.data); } catch (e) { return; }
    if (ev.kind === 'reload') {
      events.close();
      location.reload();
      return;
    }
    if (ev.kind === 'event') deliver(eventListeners, ev.event);
    if (ev.kind === 'permission') deliver(permissionListeners, ev.request);
    if (!refresh) refresh = setTimeout(render, 250);
  };
  events.onmessage = onEvent;

  // Replaying a recording: its events start once the first listener is
  // registered (after the current task, so a second one registered with it
  // gets them too).
  let replayStarted = false;
  function replaySoon() {
    if (!Array.isArray(shapes.methods) || replayStarted) return;
    replayStarted = true;
    setTimeout(() => {
      const es = new EventSource('/api/events?replay=1&token=' + encodeURIComponent(token));
      es.onmessage = onEvent;
    }, 0);
  }

  async function render() {
    refresh = null;
    const body = document.getElementById('sessions');
    if (!body) return;
    let all;
    try { all = await LocalSessions.getAll(); } catch (e) { return; }
    const rows = [];
    for (const s of all) {
      const tr = document.createElement('tr');
      const state = s.turnRunning ? 'working' : (s.isRunning ? 'idle' : 'stopped');
      const pending = (s.pendingToolPermissions || []).length;
      for (const text of [s.sessionId, s.title || '', state + (pending ? ' (waiting for permission)' : '') + (s.isArchived ? ', archived' : '')]) {
        const td = document.createElement('td');
        td.textContent = text;
        tr.appendChild(td);
      }
      rows.push(tr);
    }
    body.replaceChildren(...rows);
  }
  document.addEventListener('DOMContentLoaded', render);
})();
