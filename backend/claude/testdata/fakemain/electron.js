// A stand-in for Electron's main-process module: webContents with a
// DevTools window and the app's window, whose executeJavaScript runs code in
// a separate VM context (like a renderer: no access to this process) that
// has window['claude.web'].LocalSessions, a small in-memory imitation.
// Like Electron, a rejected script loses its error's message.
'use strict';
const vm = require('vm');

const page = vm.createContext({ setTimeout, clearTimeout, Promise, JSON, Date, Math, Error, Array, String, Object, Set, Symbol });
vm.runInContext(`
  'use strict';
  const sessions = new Map();
  let n = 0;
  const uuid = () => 'e' + (++n) + '-' + Math.random().toString(16).slice(2);
  const answer = (s, text) => {
    s.turnRunning = true;
    setTimeout(() => {
      s.transcript.push({ type: 'assistant', uuid: uuid(), sessionId: s.cli, message: { id: 'm' + n, role: 'assistant',
        content: [{ type: 'text', text: 'You said: ' + text }], usage: { input_tokens: 10, output_tokens: 3 } } });
      s.transcript.push({ uuid: uuid(), message: { type: 'result', subtype: 'success', isError: false, totalCostUsd: 0.01 } });
      s.turnRunning = false;
      s.lastActivityAt = new Date().toISOString();
    }, 20);
  };
  const user = (s, text) => { s.transcript.push({ type: 'user', uuid: uuid(), sessionId: s.cli, message: { role: 'user', content: text } }); answer(s, text); };
  const obj = (s) => ({ sessionId: s.id, cwd: s.cwd, title: s.title, isRunning: true, turnRunning: s.turnRunning,
    createdAt: s.createdAt, lastActivityAt: s.lastActivityAt, permissionMode: 'default', pendingToolPermissions: [] });
  const LocalSessions = {
    getAll: async () => Array.from(sessions.values()).map(obj),
    getSession: async (id) => (sessions.has(id) ? obj(sessions.get(id)) : null),
    start: async (info) => {
      if (info.useWorktree !== false) throw new Error('fake app: expected useWorktree false');
      const id = info.sessionId || 'local_' + uuid();
      const s = { id, cli: uuid(), cwd: info.cwd, title: info.title || info.message, transcript: [], turnRunning: false,
        createdAt: Date.now(), lastActivityAt: new Date().toISOString() };
      sessions.set(id, s);
      user(s, info.message);
      return { sessionId: id };
    },
    sendMessage: async (id, text) => { const s = sessions.get(id); if (!s) throw new Error('no session ' + id); user(s, text); },
    getTranscript: async (id) => { const s = sessions.get(id); return s ? s.transcript.slice() : []; },
    interrupt: async () => {},
    archive: async () => {},
  };
  globalThis['claude.web'] = { LocalSessions, version: 'fake-main/1' };
`, page);

const app = {
  getURL: () => 'https://claude.ai/claude-code-desktop',
  isDestroyed: () => false,
  executeJavaScript: (code) => Promise.resolve(vm.runInContext(code, page)).catch(() => {
    throw new Error('Script failed to execute, this normally means an error was thrown. Check the renderer console for the error.');
  }),
};
const devtools = {
  getURL: () => 'devtools://devtools/bundled/inspector.html',
  isDestroyed: () => false,
  executeJavaScript: () => Promise.reject(new Error('Baton ran code in the wrong window')),
};
module.exports = { webContents: { getAllWebContents: () => [devtools, app] } };
