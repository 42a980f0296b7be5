import { describe, expect, it } from 'vitest';
import { get } from 'svelte/store';
import { emit } from '../../test/fakes/runtime';
import { navigation } from './navigation';
import { listenRunOpen, openRun, showRun } from './openRun';

describe('openRun', () => {
  it('showRun opens the run in the Runs view', () => {
    navigation.go('history');
    showRun('r7');
    expect(get(openRun)).toBe('r7');
    expect(get(navigation)).toBe('runs');
  });

  it('follows run:open until unsubscribed, ignoring empty ids', () => {
    const off = listenRunOpen();
    navigation.go('settings');
    emit('run:open', '');
    expect(get(openRun)).toBeUndefined();
    expect(get(navigation)).toBe('settings');
    emit('run:open', 'r2');
    expect(get(openRun)).toBe('r2');
    expect(get(navigation)).toBe('runs');
    off();
    emit('run:open', 'r3');
    expect(get(openRun)).toBe('r2');
  });
});
