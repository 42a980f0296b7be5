import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { now } from './clock';

describe('now', () => {
  beforeEach(() => vi.useFakeTimers({ now: new Date('2026-11-22T06:00:00.400Z') }));
  afterEach(() => vi.useRealTimers());

  it('starts at the time it is listened to, ticks on each whole second, and stops after', () => {
    const seen: number[] = [];
    const off = now.subscribe((t) => seen.push(t));
    expect(new Date(seen[seen.length - 1]).toISOString()).toBe('2026-11-22T06:00:00.400Z');
    vi.advanceTimersByTime(2600);
    expect(seen.slice(-3).map((t) => new Date(t).toISOString())).toEqual([
      '2026-11-22T06:00:01.000Z',
      '2026-11-22T06:00:02.000Z',
      '2026-11-22T06:00:03.000Z',
    ]);
    off();
    expect(vi.getTimerCount()).toBe(0);
  });
});
