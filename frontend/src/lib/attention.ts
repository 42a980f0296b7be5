// What draws the eye to the Inbox when Baton is not in front of you: the
// page title carries the Inbox count ("(2) Baton", on a browser tab or a
// phone's tab list), and, when this device asked for it, a short chime
// sounds for each new item. The sound is a setting of the device (kept in
// its localStorage), not of settings.json: the phone that wants it is not
// the desk.
import { get, writable, type Readable } from 'svelte/store';
import { itemKey, type InboxState } from './stores/inbox';

const soundKey = 'baton.inboxSound';

function readSound(): boolean {
  try {
    return localStorage.getItem(soundKey) === 'on';
  } catch {
    return false;
  }
}

const sound = writable(readSound());

/** Whether this device chimes for a new Inbox item. */
export const inboxSound: Readable<boolean> = { subscribe: sound.subscribe };

/** Turns the chime on or off on this device; turning it on plays it once (which also lets the page play sound later). */
export function setInboxSound(on: boolean, play: () => void = chime): void {
  try {
    if (on) localStorage.setItem(soundKey, 'on');
    else localStorage.removeItem(soundKey);
  } catch {
    // Private mode: the choice lasts for this page only.
  }
  sound.set(on);
  if (on) play();
}

export function titleFor(count: number): string {
  return count > 0 ? `(${count}) Baton` : 'Baton';
}

/**
 * Keeps document.title on the Inbox count and calls play when an item
 * appears that was not there before (not for those already waiting when the
 * page opened), while the sound is on. Returns the unsubscribe function.
 */
export function watchInbox(inbox: Readable<InboxState>, play: () => void = chime): () => void {
  let seen: Set<string> | undefined;
  const off = inbox.subscribe((s) => {
    document.title = titleFor(s.items.length);
    if (s.loading) return;
    const keys = new Set(s.items.map(itemKey));
    if (seen && get(sound) && [...keys].some((k) => !seen!.has(k))) play();
    seen = keys;
  });
  // Browsers let a page play sound only once the user has touched it.
  const unlock = () => void audio()?.resume();
  window.addEventListener('pointerdown', unlock, { once: true });
  return () => {
    off();
    window.removeEventListener('pointerdown', unlock);
  };
}

let context: AudioContext | undefined;

function audio(): AudioContext | undefined {
  if (!context && typeof AudioContext !== 'undefined') context = new AudioContext();
  return context;
}

/** A short two-note chime, made with Web Audio (no sound file to ship). */
export function chime(): void {
  const ctx = audio();
  if (!ctx) return;
  void ctx.resume();
  const t = ctx.currentTime;
  const gain = ctx.createGain();
  gain.gain.setValueAtTime(0.0001, t);
  gain.gain.exponentialRampToValueAtTime(0.25, t + 0.02);
  gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.45);
  gain.connect(ctx.destination);
  const osc = ctx.createOscillator();
  osc.type = 'sine';
  osc.frequency.setValueAtTime(880, t);
  osc.frequency.setValueAtTime(1318.5, t + 0.14);
  osc.connect(gain);
  osc.start(t);
  osc.stop(t + 0.5);
}
