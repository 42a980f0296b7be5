// Baton's bridge in a browser, served by backend/remote before the page's
// own scripts: window.go.main.App.* call the bindings over HTTP and
// window.runtime.Events* receive Go's events over a WebSocket. They are
// what the Wails window provides, so frontend/wailsjs and src/lib/api.ts
// work unchanged. A failed call rejects with a plain string, as in Wails.
(function (bindings) {
  'use strict';

  // Signed out (the access token was replaced): the page stays as it is,
  // so that a new link it just made can still be read, under a notice that
  // says why nothing works any more.
  const signedOutText = 'This browser was signed out of Baton because its access link was replaced: open the new link to sign in again.';
  let signedOut = false;
  function signOut(text) {
    if (signedOut) return;
    signedOut = true;
    const show = () => {
      const note = document.createElement('div');
      note.id = 'baton-signed-out';
      note.setAttribute('role', 'alert');
      note.textContent = text || signedOutText;
      note.style.cssText =
        'position:fixed;left:0;right:0;top:0;z-index:2147483647;padding:0.75rem 1rem;background:#c0262d;color:#fff;font:600 14px/1.4 system-ui,sans-serif;text-align:center';
      document.body.appendChild(note);
    };
    if (document.body) show();
    else addEventListener('DOMContentLoaded', show, { once: true });
  }

  async function call(name, args) {
    let res;
    try {
      res = await fetch('/api/call/' + encodeURIComponent(name), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(args),
        credentials: 'same-origin',
        cache: 'no-store',
      });
    } catch (err) {
      throw 'Baton could not be reached (' + (err && err.message ? err.message : String(err)) + '): check the connection and try again.';
    }
    if (res.status === 401) {
      const text = (await res.text()).trim() || signedOutText;
      signOut(text);
      throw text;
    }
    let body;
    try {
      body = await res.json();
    } catch {
      throw 'Baton answered "' + name + '" with something that is not JSON (HTTP ' + res.status + ').';
    }
    if (body && typeof body.error === 'string') throw body.error;
    return body ? body.result : undefined;
  }

  const App = {};
  for (const name of bindings) App[name] = (...args) => call(name, args);
  window.go = { main: { App } };

  // Events: name -> listeners ({ callback, left }; left < 0 is unlimited).
  const listeners = new Map();

  function on(name, callback, max) {
    const entry = { callback, left: max === undefined ? -1 : max };
    if (!listeners.has(name)) listeners.set(name, new Set());
    listeners.get(name).add(entry);
    return () => {
      const set = listeners.get(name);
      if (set) {
        set.delete(entry);
        if (set.size === 0) listeners.delete(name);
      }
    };
  }

  function dispatch(name, data) {
    const set = listeners.get(name);
    if (!set) return;
    for (const entry of [...set]) {
      try {
        entry.callback(...data);
      } catch (err) {
        console.error('baton: a listener of ' + name + ' failed', err);
      }
      if (entry.left > 0 && --entry.left === 0) set.delete(entry);
    }
    if (set.size === 0) listeners.delete(name);
  }

  let delay = 500;
  function connect() {
    const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/api/events');
    ws.onopen = () => {
      delay = 500;
    };
    ws.onmessage = (event) => {
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (msg && typeof msg.name === 'string') dispatch(msg.name, [msg.data]);
    };
    ws.onclose = (event) => {
      if (event.code === 4401) {
        signOut(signedOutText);
        return;
      }
      if (signedOut) return;
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 10000);
    };
  }
  connect();

  const nothing = () => {};
  const log = (fn) => (message) => fn('baton:', message);
  window.runtime = {
    EventsOnMultiple: on,
    EventsOn: (name, callback) => on(name, callback, -1),
    EventsOnce: (name, callback) => on(name, callback, 1),
    EventsOff(name, ...more) {
      for (const n of [name, ...more]) listeners.delete(n);
    },
    EventsOffAll() {
      listeners.clear();
    },
    // Wails sends an event from the page to Go and the page; here it
    // reaches the page's listeners only.
    EventsEmit(name, ...data) {
      dispatch(name, data);
    },
    LogPrint: log(console.log),
    LogTrace: log(console.debug),
    LogDebug: log(console.debug),
    LogInfo: log(console.info),
    LogWarning: log(console.warn),
    LogError: log(console.error),
    LogFatal: log(console.error),
    WindowSetTitle(title) {
      document.title = title;
    },
    BrowserOpenURL(url) {
      window.open(url, '_blank', 'noopener');
    },
    ClipboardGetText: () => navigator.clipboard.readText(),
    ClipboardSetText: (text) => navigator.clipboard.writeText(text).then(() => true, () => false),
    Environment: () => Promise.resolve({ buildType: 'production', platform: 'browser', arch: '' }),
    WindowReload: () => location.reload(),
    WindowReloadApp: () => location.reload(),
    Quit: nothing,
    Hide: nothing,
    Show: nothing,
    WindowShow: nothing,
    WindowHide: nothing,
    WindowMinimise: nothing,
    WindowUnminimise: nothing,
    WindowMaximise: nothing,
    WindowUnmaximise: nothing,
    WindowToggleMaximise: nothing,
    WindowFullscreen: nothing,
    WindowUnfullscreen: nothing,
    WindowCenter: nothing,
    WindowSetSize: nothing,
    WindowSetMinSize: nothing,
    WindowSetMaxSize: nothing,
    WindowSetPosition: nothing,
    WindowSetAlwaysOnTop: nothing,
    WindowSetBackgroundColour: nothing,
    WindowSetSystemDefaultTheme: nothing,
    WindowSetLightTheme: nothing,
    WindowSetDarkTheme: nothing,
    WindowIsFullscreen: () => Promise.resolve(false),
    WindowIsMaximised: () => Promise.resolve(false),
    WindowIsMinimised: () => Promise.resolve(false),
    WindowIsNormal: () => Promise.resolve(true),
  };
})(/*BINDINGS*/ []);
