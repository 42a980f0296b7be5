import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { answer, calls } from '../test/fakes/App';
import { run } from '../test/fixtures/runs';
import History from './History.svelte';

describe('History cost column', () => {
  it('labels simulated and estimated costs and sorts by cost, dearest then cheapest first', async () => {
    const runs = [
      run({ id: 'r1', request: 'Simulated run', status: 'completed', costUsd: 1.5, limits: { costSimulated: true } }),
      run({ id: 'r2', request: 'Estimated run', status: 'completed', costUsd: 0.25, limits: { costEstimated: true } }),
    ];
    answer('ListTemplates', () => Promise.resolve([]));
    answer('History', (q) => Promise.resolve({ runs, total: 2, limit: (q as { limit: number }).limit, offset: 0, nextOffset: -1 }));
    render(History);
    const table = await screen.findByRole('table', { name: 'Past runs' });
    expect(within(table).getByText('$1.50 (simulated)')).toBeTruthy();
    expect(within(table).getByText('≈$0.25 (price table)')).toBeTruthy();
    const sorts = () => calls.filter((c) => c.name === 'History').map((c) => (c.args[0] as { sort?: string }).sort);
    const header = within(table).getByRole('button', { name: 'Cost' });
    await fireEvent.click(header);
    await screen.findByRole('button', { name: 'Cost ▼' });
    expect(sorts().at(-1)).toBe('cost');
    await fireEvent.click(within(table).getByRole('button', { name: 'Cost ▼' }));
    await screen.findByRole('button', { name: 'Cost ▲' });
    expect(sorts().at(-1)).toBe('cost_asc');
    await fireEvent.click(within(table).getByRole('button', { name: 'Cost ▲' }));
    await screen.findByRole('button', { name: 'Cost' });
    expect(sorts().at(-1)).toBeUndefined();
  });
});
