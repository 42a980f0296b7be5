import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import type { Run } from '../../lib/api';
import { run } from '../../test/fixtures/runs';
import RunCard from './RunCard.svelte';

function card(over: Record<string, unknown>) {
  const on = { onopen: vi.fn(), onpause: vi.fn(), onresume: vi.fn(), oncancel: vi.fn() };
  render(RunCard, { run: run(over) as unknown as Run, now: Date.parse('2026-11-22T06:10:00Z'), ...on });
  return on;
}

describe('RunCard in the one list of active runs', () => {
  it('names the process that drives a run from a terminal and offers no actions on it', () => {
    card({ status: 'running', drivenBy: { pid: 4121, face: 'terminal', self: false, text: 'baton run (process 4121)' } });
    expect(screen.getByTestId('driven-by').textContent).toBe('driven by baton run (process 4121)');
    expect(screen.queryByRole('button', { name: 'Pause' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Resume' })).toBeNull();
  });

  it('offers Resume and Cancel for a run a terminal paused and let go of', async () => {
    const on = card({ status: 'paused', resumeStatus: 'running' });
    expect(screen.getByTestId('driven-by').textContent).toBe('left by the process that drove it');
    await fireEvent.click(screen.getByRole('button', { name: 'Resume' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(on.onresume).toHaveBeenCalledOnce();
    expect(on.oncancel).toHaveBeenCalledOnce();
  });

  it('shows nothing of the driver for a run this window drives', () => {
    card({ status: 'running', drivenBy: { pid: 1, face: 'window', self: true, text: "Baton's window (process 1)" } });
    expect(screen.queryByTestId('driven-by')).toBeNull();
    expect(screen.getByRole('button', { name: 'Pause' })).toBeTruthy();
  });
});
