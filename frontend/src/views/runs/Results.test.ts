import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { answer, calls } from '../../test/fakes/App';
import { run, snapshot, task, worker } from '../../test/fixtures/runs';
import { api, ApiError } from '../../lib/api';
import RunView from './RunView.svelte';

function finalReport(over: Record<string, unknown> = {}) {
  return {
    runId: 'r1',
    status: 'completed',
    tasks: { total: 4, completed: 2, failed: 1, skipped: 1, notRun: 0 },
    completed: [
      { id: 't1', title: 'Title of t1', status: 'completed', retries: 1 },
      { id: 'qa1-fix-01', title: 'Fix: add an example', status: 'completed', retries: 0 },
    ],
    failed: [{ id: 't2', title: 'Title of t2', status: 'failed', reason: 'the API is undocumented', retries: 0 }],
    skipped: [{ id: 't3', title: 'Title of t3', status: 'skipped', reason: 'skipped because t2 failed', retries: 0 }],
    notRun: [],
    iterations: {
      total: 2,
      remediation: [{ round: 1, tasks: ['qa1-fix-01'] }],
      retries: [{ taskId: 't1', reason: 'rejected by the reviewer: the docs lack examples', at: '2026-11-22T06:03:00Z' }],
      rejections: [{ taskId: 't1', reason: 'the docs lack examples', at: '2026-11-22T06:03:00Z' }],
      reprompts: 0,
    },
    decisions: [
      { kind: 'rejected', taskId: 't1', by: 'the reviewer', text: 'the docs lack examples' },
      { kind: 'answer', taskId: 't1', by: 'the user', question: 'Which port should the server use?', text: 'Port 8080.' },
      { kind: 'approved', taskId: 't1', by: 'the reviewer', text: 'looks good' },
      { kind: 'conflict', by: 'the aggregation', text: 'README.md: both edit the intro', resolution: "kept t1's intro" },
      { kind: 'conflict', by: 'the aggregation', text: 'overlap: docs/x.md written twice' },
    ],
    files: [
      { path: 'docs/qa1-fix-01.md', tasks: ['qa1-fix-01'] },
      { path: 'docs/t1.md', tasks: ['t1'] },
    ],
    limitations: [
      { kind: 'failed', taskId: 't2', text: 'the API is undocumented' },
      { kind: 'skipped', taskId: 't3', text: 'skipped because t2 failed' },
      { kind: 'conflict', text: 'overlap: docs/x.md written twice', files: ['docs/x.md'] },
      { kind: 'verification', taskId: 't1', severity: 'high', text: 'docs/t1.md lacks an example' },
    ],
    ...over,
  };
}

function finishedSnapshot(over: Record<string, unknown> = {}) {
  return snapshot({
    run: run({ status: 'completed', tasksTotal: 4, tasksCompleted: 2, tasksFailed: 1, tasksSkipped: 1, completedAt: '2026-11-22T06:10:00Z' }),
    tasks: [task('t1'), task('t2'), task('t3'), task('qa1-fix-01', { title: 'Fix: add an example' })],
    workers: [
      worker('t1', { status: 'completed', progress: 100, outputFiles: ['docs/t1.md'] }),
      worker('t2', { status: 'failed', error: 'the API is undocumented' }),
      worker('t3', { status: 'cancelled', skipped: true, error: 'skipped because t2 failed' }),
      worker('qa1-fix-01', { status: 'completed', progress: 100, outputFiles: ['docs/qa1-fix-01.md'] }),
    ],
    ...over,
  });
}

describe('Results: the final report', () => {
  it('shows the counts, the known limitations first, iterations, decisions and files of a finished run', async () => {
    answer('RunSnapshot', () => Promise.resolve(finishedSnapshot({ finalReport: finalReport() })));
    answer('OpenPath', () => Promise.resolve());
    render(RunView, { runId: 'r1', readOnly: true });
    const report = await screen.findByRole('region', { name: 'Final report' });

    const count = (label: string) => within(report).getByText(label, { selector: 'dt' }).nextElementSibling?.textContent;
    expect(count('Completed')).toBe('2');
    expect(count('Failed')).toBe('1');
    expect(count('Skipped')).toBe('1');
    expect(count('Tasks')).toBe('4');
    expect(count('Iterations')).toBe('2');
    expect(count('Decisions')).toBe('5');
    expect(count('Files')).toBe('2');
    expect(within(report).queryByText('Not run', { selector: 'dt' })).toBeNull();

    const limits = within(report).getByRole('group', { name: 'Known limitations' });
    expect(within(limits).getByRole('heading', { name: 'Known limitations (4)' })).toBeTruthy();
    const items = within(limits).getAllByRole('listitem').map((li) => li.textContent?.replace(/\s+/g, ' ').trim());
    expect(items).toEqual([
      'Failed t2 Title of t2: the API is undocumented',
      'Skipped t3 Title of t3: skipped because t2 failed',
      'Unresolved conflict: overlap: docs/x.md written twice docs/x.md',
      'Verification issue high t1 Title of t1: docs/t1.md lacks an example',
    ]);
    expect(within(report).queryByText('No known limitations.')).toBeNull();

    expect(within(report).getByText('1 QA remediation round, 1 worker retry, 1 review rejection, 0 re-prompts.')).toBeTruthy();
    const iterations = within(within(report).getByRole('list', { name: 'Iterations' })).getAllByRole('listitem');
    expect(iterations.map((li) => li.textContent?.replace(/\s+/g, ' ').trim())).toEqual([
      'QA round 1: qa1-fix-01',
      'Retry of t1: rejected by the reviewer: the docs lack examples',
    ]);

    const decisions = within(within(report).getByRole('list', { name: 'Decisions' }))
      .getAllByRole('listitem')
      .map((li) => li.textContent?.replace(/\s+/g, ' ').trim());
    expect(decisions).toEqual([
      'Rejected t1 by the reviewer: the docs lack examples',
      'Answer t1 Which port should the server use? → Port 8080.',
      'Approved t1 by the reviewer: looks good',
      "Conflict README.md: both edit the intro Resolution: kept t1's intro",
      'Conflict overlap: docs/x.md written twice Unresolved',
    ]);

    // The files of the report open in the file manager.
    const results = screen.getByRole('region', { name: 'Results' });
    await fireEvent.click(within(results).getByRole('button', { name: 'docs/qa1-fix-01.md' }));
    await waitFor(() => expect(calls.find((x) => x.name === 'OpenPath')?.args).toEqual(['r1', 'docs/qa1-fix-01.md']));
  });

  it('says when a finished run has no known limitations, and when it has no stored report', async () => {
    const clean = finalReport({
      tasks: { total: 1, completed: 1, failed: 0, skipped: 0, notRun: 0 },
      failed: [],
      skipped: [],
      decisions: [],
      iterations: { total: 0, remediation: [], retries: [], rejections: [], reprompts: 0 },
      limitations: [],
    });
    answer('RunSnapshot', () => Promise.resolve(finishedSnapshot({ finalReport: clean })));
    const view = render(RunView, { runId: 'r1', readOnly: true });
    const report = await screen.findByRole('region', { name: 'Final report' });
    expect(within(report).getByText('No known limitations.')).toBeTruthy();
    expect(within(report).queryByRole('group', { name: 'Known limitations' })).toBeNull();
    expect(within(report).getByText('No review, answer or conflict was decided during the run.')).toBeTruthy();
    view.unmount();

    answer('RunSnapshot', () => Promise.resolve(finishedSnapshot()));
    render(RunView, { runId: 'r1', readOnly: true });
    await screen.findByRole('region', { name: 'Results' });
    expect(screen.queryByRole('region', { name: 'Final report' })).toBeNull();
    expect(screen.getByText(/has no stored final report/)).toBeTruthy();
  });

  it('wraps the FinalReport binding: the report, or an Error with Go\'s sentence', async () => {
    answer('FinalReport', (id) => Promise.resolve(finalReport({ runId: id })));
    expect((await api.runs.finalReport('r7')).runId).toBe('r7');
    answer('FinalReport', () => Promise.reject('This run has not finished yet; its final report is written when it completes, fails or is cancelled.'));
    const err = await api.runs.finalReport('r1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).binding).toBe('FinalReport');
    expect((err as Error).message).toMatch(/^This run has not finished yet/);
  });

  it('shows the tasks the user skipped as a note, not in red and not as a known limitation', async () => {
    const rep = finalReport({
      status: 'completed',
      tasks: { total: 3, completed: 2, failed: 0, skipped: 1, skippedByUser: 1, notRun: 0 },
      failed: [],
      skipped: [{ id: 't3', title: 'Title of t3', status: 'skipped', reason: 'skipped by the user', retries: 0, byUser: true }],
      notes: ['1 task skipped by you: t3.'],
      decisions: [],
      iterations: { total: 0, remediation: [], retries: [], rejections: [], reprompts: 0 },
      limitations: [],
      issues: [],
    });
    answer('RunSnapshot', () =>
      Promise.resolve(
        finishedSnapshot({
          run: run({ status: 'completed', tasksTotal: 3, tasksCompleted: 2, tasksFailed: 0, tasksSkipped: 1, completedAt: '2026-11-22T06:10:00Z' }),
          workers: [
            worker('t1', { status: 'completed', progress: 100 }),
            worker('t2', { status: 'completed', progress: 100 }),
            worker('t3', { status: 'cancelled', skipped: true, error: 'skipped by the user' }),
          ],
          finalReport: rep,
        }),
      ),
    );
    render(RunView, { runId: 'r1', readOnly: true });
    const report = await screen.findByRole('region', { name: 'Final report' });
    expect(within(report).getByText('1 task skipped by you: t3.')).toBeTruthy();
    expect(within(report).getByText('No known limitations.')).toBeTruthy();
    expect(within(report).getByText('Skipped').closest('div')?.getAttribute('data-bad')).toBe('false');
    expect(screen.getByTestId('run-status').textContent).toBe('Completed');
    // The worker card says it quietly; no red error.
    const workers = screen.getByRole('region', { name: 'Workers' });
    expect(within(workers).getByText('Skipped by you.')).toBeTruthy();
    expect(within(workers).queryByText('skipped by the user')).toBeNull();
  });
});

describe('Results: what Baton checked', () => {
  it('shows the host, the checks of each round with a failed check\'s output, the contradiction, files not in the result and outputs not written', async () => {
    const check = (round: number, position: number, over: Record<string, unknown>) => ({
      runId: 'r1', round, position, name: '', command: '', status: 'passed', exitCode: 0, durationMs: 1200, tail: '', verdict: 'passes', createdAt: '2026-11-22T06:00:00Z', ...over,
    });
    const snap = finishedSnapshot({
      run: run({ status: 'completed_with_issues', host: { kind: 'claude-code', label: 'Claude Code CLI 2.1.328', path: '/usr/bin/claude' } }),
      workers: [
        worker('t1', { status: 'completed', progress: 100, outputFiles: ['docs/t1.md'], missingOutputs: ['docs/t1-api.md'], outOfScope: ['go.mod'] }),
        worker('t2', { status: 'completed', progress: 100 }),
      ],
      checks: {
        note: 'Baton runs the project\'s checks it found (go.mod): go build ./..., go test ./....',
        results: [
          check(0, 0, { command: 'go build ./...', verdict: 'baseline' }),
          check(0, 1, { command: 'go test ./...', verdict: 'baseline' }),
          check(1, 0, { command: 'go build ./...', status: 'failed', exitCode: 1, verdict: 'broken', tail: 'store/x.go:5:9: undefined: y' }),
          check(1, 1, { command: 'go test ./...', status: 'timeout', exitCode: -1, verdict: 'broken', message: 'go test ./... took longer than 5m0s and was ended.' }),
        ],
      },
      finalReport: finalReport({
        absent: [{ path: 'docs/t2.md', tasks: ['t2'] }],
        checks: { ran: true, looked: true, note: '', baseline: [], after: [], contradiction: 'The verification says pass, but `go build ./...` fails.' },
      }),
    });
    answer('RunSnapshot', () => Promise.resolve(snap));
    render(RunView, { runId: 'r1', readOnly: true });
    const checks = await screen.findByRole('region', { name: 'Checks' });

    expect(screen.getByTestId('run-host').textContent).toBe('on Claude Code CLI 2.1.328');
    expect(within(checks).getByText(/checks it found \(go\.mod\)/)).toBeTruthy();
    expect(within(checks).getByRole('alert').textContent).toBe('The verification says pass, but `go build ./...` fails.');
    const line = (li: HTMLElement) => li.textContent?.replace(/\s+/g, ' ').trim();
    expect(within(within(checks).getByRole('list', { name: 'Baseline checks' })).getAllByRole('listitem').map(line)).toEqual([
      'go build ./... passed 1.2 s',
      'go test ./... passed 1.2 s',
    ]);
    expect(within(within(checks).getByRole('list', { name: 'Checks of round 1' })).getAllByRole('listitem').map(line)).toEqual([
      'go build ./... FAILED (exit 1) 1.2 s the run broke it store/x.go:5:9: undefined: y',
      'go test ./... ENDED AT ITS TIME LIMIT 1.2 s the run broke it go test ./... took longer than 5m0s and was ended.',
    ]);

    const results = screen.getByRole('region', { name: 'Results' });
    expect(within(results).getByRole('list', { name: 'Reported but not in the result' }).textContent?.replace(/\s+/g, ' ').trim()).toBe('docs/t2.md t2');
    expect(within(results).queryByRole('button', { name: 'docs/t2.md' })).toBeNull();
    expect(within(within(results).getByRole('list', { name: 'Outputs and scope' })).getAllByRole('listitem').map(line)).toEqual([
      't1 declared but did not write docs/t1-api.md ; wrote outside its scope go.mod',
    ]);
  });

  it('says no checks ran when Baton found none, and shows nothing for a run made before Baton checked', async () => {
    answer('RunSnapshot', () => Promise.resolve(finishedSnapshot({ finalReport: finalReport(), checks: { note: 'No checks ran: Baton found none.', results: [] } })));
    const view = render(RunView, { runId: 'r1', readOnly: true });
    const checks = await screen.findByRole('region', { name: 'Checks' });
    expect(within(checks).getByText('No checks ran.')).toBeTruthy();
    expect(within(checks).queryByText(/passed/)).toBeNull();
    view.unmount();

    answer('RunSnapshot', () => Promise.resolve(finishedSnapshot({ finalReport: finalReport() })));
    render(RunView, { runId: 'r1', readOnly: true });
    await screen.findByRole('region', { name: 'Final report' });
    expect(screen.queryByRole('region', { name: 'Checks' })).toBeNull();
    expect(screen.queryByTestId('run-host')).toBeNull();
  });
});
