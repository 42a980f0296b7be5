import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { answer, calls } from '../../test/fakes/App';
import { run, snapshot } from '../../test/fixtures/runs';
import RunView from './RunView.svelte';
import { clockTime } from './format';

describe('RunView limits and budget', () => {
  it('shows a run waiting for a limit with its resume time, and Resume now ends the wait', async () => {
    const until = new Date(Date.now() + 3600_000).toISOString();
    answer('RunSnapshot', () =>
      Promise.resolve(snapshot({ run: run({ status: 'running', limits: { waitingUntil: until, waitingFor: 'usage_limit', workerCap: 1 } }) })),
    );
    answer('ResumeAfterLimit', () => Promise.resolve());
    render(RunView, { runId: 'r1' });
    const box = await waitFor(() => screen.getByTestId('limit-wait'));
    expect(box.textContent).toContain(`Waiting for the limit, resumes at ${clockTime(until)}`);
    expect(box.textContent).toContain('usage limit');
    expect(box.textContent).toContain('At most 1 workers');
    await fireEvent.click(screen.getByRole('button', { name: 'Resume now' }));
    await waitFor(() => expect(calls.filter((c) => c.name === 'ResumeAfterLimit').at(-1)?.args).toEqual(['r1']));
  });

  it('warns at 80 % of the budget and offers to raise it once the run paused', async () => {
    answer('RunSnapshot', () =>
      Promise.resolve(snapshot({ run: run({ status: 'running', costUsd: 4.2, limits: { budgetUsd: 5, budgetWarned: true, costSimulated: true } }) })),
    );
    const view = render(RunView, { runId: 'r1' });
    const warn = await waitFor(() => screen.getByTestId('budget-warning'));
    expect(warn.textContent).toContain('$4.20 of $5.00');
    expect(screen.getByTestId('run-cost').textContent).toContain('$4.20 (simulated)');
    view.unmount();

    answer('RunSnapshot', () =>
      Promise.resolve(snapshot({ run: run({ status: 'paused', costUsd: 5.1, limits: { budgetUsd: 5, budgetWarned: true, budgetPaused: true, costEstimated: true } }) })),
    );
    answer('RaiseBudget', () => Promise.resolve());
    render(RunView, { runId: 'r1' });
    await waitFor(() => screen.getByTestId('budget-paused'));
    expect(screen.getByTestId('run-cost').textContent).toContain('≈$5.10 (price table)');
    const raise = screen.getByRole('button', { name: 'Raise the budget and resume' }) as HTMLButtonElement;
    expect(raise.disabled).toBe(true);
    await fireEvent.input(screen.getByLabelText('New budget (USD)'), { target: { value: '10' } });
    await fireEvent.click(raise);
    await waitFor(() => expect(calls.filter((c) => c.name === 'RaiseBudget').at(-1)?.args).toEqual(['r1', 10, 0]));
  });
});
