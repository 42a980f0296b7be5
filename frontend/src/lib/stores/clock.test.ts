import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { now } from './clock';

describe('now', () => {
  beforeEach(() => vi.useFakeTimers({ now: new Date('2026-11-22T06:00:00Z') }));
  afterEach(() => vi.useRealTimers());

  it('ticks every second while someone listens, and stops after', () => {
    const seen: number[] = [];
    const off = now.subscribe((t) => seen.push(t));
    vi.advanceTimersByTime(2000);
    // The first value is the clock's last tick; then one a second.
    expect(seen.slice(1).map((t) => new Date(t).toISOString())).toEqual(['2026-11-22T06:00:01.000Z', '2026-11-22T06:00:02.000Z']);
    off();
    expect(vi.getTimerCount()).toBe(0);
  });
});
