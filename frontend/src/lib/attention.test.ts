import { afterEach, describe, expect, it, vi } from 'vitest';
import { writable } from 'svelte/store';
import { get } from 'svelte/store';
import type { InboxItem } from './api';
import type { InboxState } from './stores/inbox';
import { inboxSound, setInboxSound, titleFor, watchInbox } from './attention';

const item = (taskId: string): InboxItem =>
  ({ kind: 'permission', runId: 'orch_1', taskId, requestId: `req-${taskId}`, title: `${taskId} asks`, since: '2026-01-01T00:00:00Z' }) as InboxItem;

const state = (items: InboxItem[], loading = false): InboxState => ({ loading, items, active: 1, busy: [], done: {} });

describe('attention', () => {
  afterEach(() => {
    setInboxSound(false, () => {});
    localStorage.clear();
  });

  it('puts the Inbox count in the title', () => {
    expect(titleFor(0)).toBe('Baton');
    expect(titleFor(3)).toBe('(3) Baton');
    const inbox = writable(state([], true));
    const stop = watchInbox(inbox, () => {});
    expect(document.title).toBe('Baton');
    inbox.set(state([item('task_001'), item('task_002')]));
    expect(document.title).toBe('(2) Baton');
    inbox.set(state([]));
    expect(document.title).toBe('Baton');
    stop();
  });

  it('chimes for a new item only when this device asked for it', () => {
    const play = vi.fn();
    const inbox = writable(state([], true));
    const stop = watchInbox(inbox, play);
    inbox.set(state([item('task_001')])); // waiting when the page opened
    setInboxSound(true, () => {});
    inbox.set(state([item('task_001')]));
    expect(play).not.toHaveBeenCalled();
    inbox.set(state([item('task_001'), item('task_002')]));
    expect(play).toHaveBeenCalledTimes(1);
    inbox.set(state([item('task_002')])); // one answered: nothing new
    expect(play).toHaveBeenCalledTimes(1);
    setInboxSound(false, () => {});
    inbox.set(state([item('task_002'), item('task_003')]));
    expect(play).toHaveBeenCalledTimes(1);
    stop();
    setInboxSound(true, () => {});
    inbox.set(state([item('task_004')]));
    expect(play).toHaveBeenCalledTimes(1);
  });

  it('keeps the choice on this device and plays it once when turned on', () => {
    const play = vi.fn();
    setInboxSound(true, play);
    expect(play).toHaveBeenCalledTimes(1);
    expect(get(inboxSound)).toBe(true);
    expect(localStorage.getItem('baton.inboxSound')).toBe('on');
    setInboxSound(false, play);
    expect(play).toHaveBeenCalledTimes(1);
    expect(localStorage.getItem('baton.inboxSound')).toBeNull();
  });
});
