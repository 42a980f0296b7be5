import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { answer, calls } from '../../test/fakes/App';
import { emit } from '../../test/fakes/runtime';
import { run, snapshot, task, worker } from '../../test/fixtures/runs';
import RunView from './RunView.svelte';

function card(taskId: string) {
  return screen.getByRole('article', { name: `Task ${taskId}` });
}

describe('RunView worker grid', () => {
  it('shows a running worker with its progress, action, tools and cost, and follows progress events', async () => {
    answer('RunSnapshot', () => Promise.resolve(snapshot({ workers: [worker('t1'), worker('t2', { status: 'pending', progress: 0, currentAction: '', startedAt: undefined })] })));
    render(RunView, { runId: 'r1' });
    const c = await waitFor(() => card('t1'));
    expect(within(c).getByText('Running')).toBeTruthy();
    expect(within(c).getByRole('progressbar').getAttribute('aria-valuenow')).toBe('40');
    expect(within(c).getByText('Reading store.go')).toBeTruthy();
    expect(within(c).getByText('7 tools')).toBeTruthy();
    expect(within(c).getByText('800 tokens · $0.10')).toBeTruthy();
    expect(within(c).getByRole('button', { name: 'Pause' })).toBeTruthy();
    expect(within(card('t2')).getByText('Waits for its dependencies or a free slot.')).toBeTruthy();

    emit('worker:progress', { runId: 'r1', status: 'running', workers: [worker('t1', { progress: 75, currentAction: 'Editing api.go' })] });
    await waitFor(() => expect(within(card('t1')).getByText('Editing api.go')).toBeTruthy());
    expect(within(card('t1')).getByRole('progressbar').getAttribute('aria-valuenow')).toBe('75');
    // Events of other runs change nothing.
    emit('worker:progress', { runId: 'other', status: 'running', workers: [worker('t1', { currentAction: 'Somewhere else' })] });
    expect(within(card('t1')).queryByText('Somewhere else')).toBeNull();
  });

  it('shows the model each worker ran with (seed 004: chosen by complexity)', async () => {
    answer('RunSnapshot', () => Promise.resolve(snapshot({ workers: [worker('t1', { model: 'claude-opus-4-1' }), worker('t2')] })));
    render(RunView, { runId: 'r1' });
    const c = await waitFor(() => card('t1'));
    expect(within(c).getByText('claude-opus-4-1')).toBeTruthy();
    expect(within(card('t2')).queryByText(/claude-/)).toBeNull();
  });

  it('shows a permission prompt inline and answers it', async () => {
    const waiting = worker('t1', { waiting: { requestId: 'p1', toolName: 'Write', input: { file_path: 'docs/api.md', content: '…' } } });
    answer('RunSnapshot', () => Promise.resolve(snapshot({ workers: [waiting] })));
    answer('AnswerWorker', () => Promise.resolve());
    render(RunView, { runId: 'r1' });
    const c = await waitFor(() => card('t1'));
    expect(within(c).getByText('Waits for you')).toBeTruthy();
    expect(within(c).getByText('Write: docs/api.md')).toBeTruthy();
    expect(screen.getByText('waiting for you')).toBeTruthy();
    for (const [label, decision] of [
      ['Allow once', 'once'],
      ['Always', 'always'],
      ['Deny', 'deny'],
    ]) {
      await fireEvent.click(within(c).getByRole('button', { name: label }));
      await waitFor(() => expect(calls.filter((x) => x.name === 'AnswerWorker').at(-1)?.args).toEqual(['r1', 't1', decision]));
    }
  });

  it('shows a prompt of the main session during analysis and answers it', async () => {
    answer('RunSnapshot', () => Promise.resolve(snapshot({ run: run({ status: 'analyzing', phase: 'analysis', mainSessionId: 'local_main' }), tasks: [] })));
    answer('PendingPermissions', () =>
      Promise.resolve([
        { requestId: 'm1', sessionId: 'local_main', tool: 'Write', summary: 'Write notes.md', input: '{}' },
        { requestId: 'x1', sessionId: 'local_other', tool: 'Bash', summary: 'Bash rm -rf /', input: '{}' },
      ]),
    );
    answer('RespondPermission', () => Promise.resolve());
    render(RunView, { runId: 'r1' });
    const prompt = await screen.findByRole('group', { name: 'The main session waits for you' });
    expect(within(prompt).getByText('Write notes.md')).toBeTruthy();
    expect(screen.queryByText('Bash rm -rf /')).toBeNull();
    await fireEvent.click(within(prompt).getByRole('button', { name: 'Allow once' }));
    await waitFor(() => expect(calls.find((x) => x.name === 'RespondPermission')?.args).toEqual(['m1', 'once']));
  });

  it('offers to skip a question of the main session or open its session', async () => {
    answer('RunSnapshot', () => Promise.resolve(snapshot({ run: run({ status: 'planning', phase: 'taskPlanning', mainSessionId: 'local_main' }), tasks: [] })));
    answer('PendingPermissions', () =>
      Promise.resolve([{ requestId: 'm2', sessionId: 'local_main', tool: 'AskUserQuestion', summary: '', input: '{}', question: 'Which part first?' }]),
    );
    answer('RespondPermission', () => Promise.resolve());
    render(RunView, { runId: 'r1' });
    const prompt = await screen.findByRole('group', { name: 'The main session waits for you' });
    expect(within(prompt).getByText('Which part first?')).toBeTruthy();
    expect(within(prompt).queryByRole('button', { name: 'Allow once' })).toBeNull();
    expect(within(prompt).getByRole('button', { name: 'Open the session' })).toBeTruthy();
    await fireEvent.click(within(prompt).getByRole('button', { name: 'Skip the question' }));
    await waitFor(() => expect(calls.find((x) => x.name === 'RespondPermission')?.args).toEqual(['m2', 'deny']));
  });

  it('answers a question of a worker with an option or own words', async () => {
    const input = { questions: [{ question: 'Which part should I start with?', options: [{ label: 'Backend' }, { label: 'Frontend' }] }] };
    answer('RunSnapshot', () => Promise.resolve(snapshot({ workers: [worker('t1', { waiting: { requestId: 'q1', toolName: 'AskUserQuestion', input } })] })));
    answer('AnswerWorkerQuestion', () => Promise.resolve());
    answer('AnswerWorker', () => Promise.resolve());
    render(RunView, { runId: 'r1' });
    const c = await waitFor(() => card('t1'));
    expect(within(c).getByText('Which part should I start with?')).toBeTruthy();
    expect(within(c).queryByRole('button', { name: 'Allow once' })).toBeNull();
    await fireEvent.click(within(c).getByRole('button', { name: 'Frontend' }));
    await waitFor(() =>
      expect(calls.find((x) => x.name === 'AnswerWorkerQuestion')?.args).toEqual(['r1', 't1', { 'Which part should I start with?': 'Frontend' }]),
    );
    const send = within(c).getByRole('button', { name: 'Answer' }) as HTMLButtonElement;
    expect(send.disabled).toBe(true);
    await fireEvent.input(within(c).getByLabelText('Answer to t1'), { target: { value: 'The store first' } });
    await fireEvent.click(send);
    await waitFor(() =>
      expect(calls.filter((x) => x.name === 'AnswerWorkerQuestion').at(-1)?.args).toEqual(['r1', 't1', { 'Which part should I start with?': 'The store first' }]),
    );
    await fireEvent.click(within(c).getByRole('button', { name: 'Deny' }));
    await waitFor(() => expect(calls.find((x) => x.name === 'AnswerWorker')?.args).toEqual(['r1', 't1', 'deny']));
  });

  it('shows a failed worker with its error and retries it', async () => {
    const failed = worker('t1', { status: 'failed', error: 'The worker ran longer than the worker timeout.', retryCount: 2 });
    answer('RunSnapshot', () => Promise.resolve(snapshot({ workers: [failed] })));
    answer('WorkerAction', () => Promise.resolve());
    render(RunView, { runId: 'r1' });
    const c = await waitFor(() => card('t1'));
    expect(within(c).getByText('Failed')).toBeTruthy();
    expect(within(c).getByRole('alert').textContent).toBe('The worker ran longer than the worker timeout.');
    expect(within(c).getByText('2 retries')).toBeTruthy();
    expect(within(c).queryByRole('button', { name: 'Pause' })).toBeNull();
    await fireEvent.click(within(c).getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(calls.find((x) => x.name === 'WorkerAction')?.args).toEqual(['r1', 't1', 'retry']));
    // The snapshot is read again after the action.
    await waitFor(() => expect(calls.filter((x) => x.name === 'RunSnapshot').length).toBeGreaterThan(1));
  });

  it('puts the task review up while the run waits for it and confirms the changes', async () => {
    answer('RunSnapshot', () => Promise.resolve(snapshot({ run: run({ status: 'confirming', phase: 'taskPlanning', tasksCompleted: 0 }) })));
    answer('ConfirmRun', () => Promise.resolve());
    render(RunView, { runId: 'r1' });
    await screen.findByRole('region', { name: 'Task review' });
    expect(screen.getByRole('list', { name: 'Phases' }).querySelector('[aria-current="step"]')?.textContent).toContain('Review');
    await fireEvent.click(screen.getByRole('checkbox', { name: 'Run t3' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Confirm and start' }));
    await waitFor(() => expect(calls.find((x) => x.name === 'ConfirmRun')?.args[0]).toBe('r1'));
    expect((calls.find((x) => x.name === 'ConfirmRun')?.args[1] as { skip: string[] }).skip).toEqual(['t3']);
  });

  it('shows the results of a finished run read-only and exports the report', async () => {
    const agg = { status: 'success', summary: 'Merged four parts.', conflicts: [{ type: 'overlap', description: 'Both edited README.md', resolution: 'Kept the longer text' }], output_files: ['docs/index.md'] };
    const ver = { status: 'failed', issues: [{ description: 'A link is broken', severity: 'high' }, { description: 'Typo', severity: 'low' }] };
    answer('RunSnapshot', () =>
      Promise.resolve(
        snapshot({
          run: run({ status: 'completed', tasksCompleted: 3, completedAt: '2026-11-22T06:10:00Z' }),
          tasks: [task('t1')],
          workers: [worker('t1', { status: 'completed', progress: 100, outputFiles: ['docs/t1.md'], summary: 'Wrote docs/t1.md' })],
          answers: [
            { id: 1, runId: 'r1', phase: 'aggregation', attempt: 0, status: 'valid', data: agg, repairs: [], errors: [], createdAt: '' },
            { id: 2, runId: 'r1', phase: 'verification', attempt: 0, status: 'valid', data: ver, repairs: [], errors: [], createdAt: '' },
          ],
        }),
      ),
    );
    answer('ExportRunReport', () => Promise.resolve({ cancelled: false, path: '/tmp/report.md' }));
    answer('OpenPath', () => Promise.resolve());
    render(RunView, { runId: 'r1', readOnly: true });
    const results = await screen.findByRole('region', { name: 'Results' });
    expect(within(results).getByText('Both edited README.md')).toBeTruthy();
    expect(within(results).getByText('Kept the longer text')).toBeTruthy();
    expect(within(results).getByRole('heading', { name: 'high (1)' })).toBeTruthy();
    expect(within(results).getByRole('heading', { name: 'low (1)' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Cancel run' })).toBeNull();
    expect(within(card('t1')).queryByRole('button', { name: 'Retry' })).toBeNull();

    await fireEvent.click(within(results).getByRole('button', { name: 'docs/t1.md' }));
    await waitFor(() => expect(calls.find((x) => x.name === 'OpenPath')?.args).toEqual(['r1', 'docs/t1.md']));
    await fireEvent.click(within(results).getByRole('button', { name: 'Export report (Markdown)' }));
    expect(await screen.findByText('/tmp/report.md')).toBeTruthy();
  });

  it('says why a run completed with issues, with the outcome as its badge', async () => {
    const issues = ['The aggregation is partial: Merged what agreed.', '3 conflicts are still open: README.md; docs/api.md; docs/x.md.'];
    answer('RunSnapshot', () =>
      Promise.resolve(
        snapshot({
          run: run({ status: 'completed_with_issues', issues, tasksCompleted: 1, completedAt: '2026-11-22T06:10:00Z' }),
          tasks: [task('t1')],
          workers: [worker('t1', { status: 'completed', progress: 100 })],
        }),
      ),
    );
    render(RunView, { runId: 'r1', readOnly: true });
    const outcome = await screen.findByRole('status', { name: 'Outcome' });
    expect(within(outcome).getByText('Completed with issues:')).toBeTruthy();
    expect(within(outcome).getAllByRole('listitem').map((li) => li.textContent)).toEqual(issues);
    expect(screen.getAllByText('Completed with issues').length).toBeGreaterThan(0);
  });
});

describe('RunView when the host goes away', () => {
  it('shows Reconnecting while the run waits for its host, and the interrupt with Resume after the bound', async () => {
    const rc = { since: '2026-11-24T10:00:00Z', until: '2026-11-24T10:02:00Z', reason: 'browser went away' };
    answer('RunSnapshot', () => Promise.resolve({ ...snapshot(), reconnecting: rc }));
    render(RunView, { runId: 'r1' });
    await waitFor(() => expect(screen.getByTestId('run-status').textContent).toBe('Reconnecting'));
    const banner = screen.getByTestId('reconnecting');
    expect(banner.textContent).toContain('Reconnecting to the session host');
    expect(banner.textContent).toContain('browser went away');

    const message = 'The session host was unreachable for 2m0s, so the run stopped; everything done is kept.';
    answer('RunSnapshot', () => Promise.resolve(snapshot({ run: run({ status: 'interrupted', resumeStatus: 'running', message }) })));
    answer('ResumeRun', () => Promise.resolve());
    emit('orchestrator:statusChanged', { runId: 'r1', status: 'interrupted', message });
    await waitFor(() => expect(screen.getByTestId('run-status').textContent).toBe('Interrupted'));
    expect(screen.getByTestId('interrupted').textContent).toContain('unreachable for 2m0s');
    expect(screen.queryByTestId('reconnecting')).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: 'Resume' }));
    await waitFor(() => expect(calls.filter((x) => x.name === 'ResumeRun').at(-1)?.args).toEqual(['r1']));
  });
});

describe('RunView of a run another process drives', () => {
  it('names the process, offers no actions, follows runs:changed, and offers Resume once nobody drives it', async () => {
    const drivenBy = { pid: 4121, face: 'terminal', self: false, text: 'baton run (process 4121)' };
    answer('RunSnapshot', () => Promise.resolve(snapshot({ run: run({ drivenBy }) })));
    render(RunView, { runId: 'r1' });
    await waitFor(() => expect(screen.getByTestId('driven-by').textContent).toContain('Driven by baton run (process 4121).'));
    expect(screen.queryByRole('button', { name: 'Pause' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Cancel run' })).toBeNull();

    // Ctrl-C in the terminal: the run is paused and let go of; no engine event reaches this window.
    answer('RunSnapshot', () => Promise.resolve(snapshot({ run: run({ status: 'paused', resumeStatus: 'running' }) })));
    emit('runs:changed');
    await waitFor(() => expect(screen.getByTestId('run-status').textContent).toBe('Paused'));
    expect(screen.queryByTestId('driven-by')).toBeNull();
    expect(screen.getByRole('button', { name: 'Resume' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Cancel run' })).toBeTruthy();
  });

  it('says when the main session waits for the model, and when the model cannot be reached', async () => {
    const message = 'the main session is waiting for the model (rate limited), attempt 2 of 10';
    answer('RunSnapshot', () => Promise.resolve(snapshot({ run: run({ status: 'analyzing', message }) })));
    render(RunView, { runId: 'r1' });
    await waitFor(() => expect(screen.getByTestId('model-wait').textContent).toContain('waiting for the model (rate limited), attempt 2 of 10'));

    const rc = { since: '2026-11-24T10:00:00Z', until: '2026-11-24T10:02:00Z', reason: 'connection refused', model: true };
    answer('RunSnapshot', () => Promise.resolve({ ...snapshot(), reconnecting: rc }));
    emit('orchestrator:statusChanged', { runId: 'r1', status: 'running' });
    await waitFor(() => expect(screen.getByTestId('run-status').textContent).toBe('Reconnecting to the model'));
    expect(screen.getByTestId('reconnecting').textContent).toContain('Reconnecting to the model;');
  });
});
