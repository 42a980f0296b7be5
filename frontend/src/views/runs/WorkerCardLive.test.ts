// The worker cards and the main session's card follow the events: after a
// permission answer the card says what the worker does now, a running tool
// shows its name, its input and its time since the call, and the times
// tick between events from the one clock.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { answer, calls } from '../../test/fakes/App';
import { emit } from '../../test/fakes/runtime';
import { run, snapshot, worker } from '../../test/fixtures/runs';
import type { RunningTool } from '../../lib/api';
import { mainActivity } from '../../lib/stores/run';
import { workerActivity } from './activity';
import RunView from './RunView.svelte';

const card = (taskId: string) => screen.getByRole('article', { name: `Task ${taskId}` });
const bash = (startedAt: string) => ({ name: 'Bash', input: 'go test ./...', startedAt }) as unknown as RunningTool;

afterEach(() => vi.useRealTimers());

describe('workerActivity', () => {
  const at = Date.parse('2026-11-22T06:01:00Z');
  const as = (over: Record<string, unknown>) => snapshot({ workers: [worker('t1', over)] }).workers[0];
  it('is the prompt, else the running tool with its time, else the latest action', () => {
    const tools = { total: 1, reads: 0, writes: 0, edits: 0, bash: 1, search: 0, web: 0, task: 0, other: 0 };
    const waiting = { requestId: 'p1', toolName: 'Bash', input: {} };
    expect(workerActivity(as({ waiting, tools: { ...tools, running: bash('2026-11-22T06:00:15Z') }, currentAction: 'x' }), at)).toEqual({ kind: 'waiting' });
    expect(workerActivity(as({ tools: { ...tools, running: bash('2026-11-22T06:00:15Z') }, currentAction: 'waiting for permission to use Bash' }), at)).toEqual({
      kind: 'tool',
      name: 'Bash',
      input: 'go test ./...',
      time: '45s',
    });
    expect(workerActivity(as({ tools, currentAction: 'Read a.go' }), at)).toEqual({ kind: 'action', text: 'Read a.go' });
    expect(workerActivity(as({ tools, currentAction: '' }), at)).toEqual({ kind: 'idle' });
  });
});

describe('mainActivity', () => {
  it('takes the action and the tool of progress events and starts afresh at a new phase', () => {
    const p = { runId: 'r1', status: 'analyzing' };
    let m = mainActivity({}, 'orchestrator:progress', { ...p, message: 'Read go.mod', tool: bash('2026-11-22T06:00:00Z') });
    expect(m).toEqual({ action: 'Read go.mod', tool: bash('2026-11-22T06:00:00Z') });
    m = mainActivity(m, 'orchestrator:progress', { ...p, message: '' });
    expect(m).toEqual({ action: 'Read go.mod', tool: undefined });
    expect(mainActivity(m, 'worker:progress', p)).toBe(m);
    expect(mainActivity(m, 'orchestrator:phaseChanged', p)).toEqual({});
  });
});

describe('worker cards follow the events', () => {
  it('after Allow once the card shows the tool that runs, not the prompt, and its time ticks without events', async () => {
    vi.useFakeTimers({ now: new Date('2026-11-22T06:01:00Z'), toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const waiting = worker('t1', {
      currentAction: 'waiting for permission to use Bash',
      waiting: { requestId: 'p1', toolName: 'Bash', input: { command: 'go test ./...' } },
      startedAt: '2026-11-22T06:00:00Z',
      tools: { total: 1, reads: 0, writes: 0, edits: 0, bash: 1, search: 0, web: 0, task: 0, other: 0, running: bash('2026-11-22T06:00:50Z') },
    });
    const answered = { ...waiting, waiting: undefined, currentAction: 'Bash go test ./...' };
    let current = waiting;
    answer('RunSnapshot', () => Promise.resolve(snapshot({ workers: [current] })));
    answer('AnswerWorker', () => {
      current = answered;
      return Promise.resolve();
    });
    render(RunView, { runId: 'r1' });
    const c = await vi.waitFor(() => card('t1'));
    expect(within(c).getByText('Waits for you')).toBeTruthy();
    await fireEvent.click(within(c).getByRole('button', { name: 'Allow once' }));
    expect(calls.find((x) => x.name === 'AnswerWorker')?.args).toEqual(['r1', 't1', 'once']);

    // The engine's answer: the prompt is gone, the tool runs since its call.
    emit('worker:permission', {
      runId: 'r1',
      status: 'running',
      taskId: 't1',
      message: 'permission answered: once',
      worker: answered,
    });
    await vi.waitFor(() => expect(within(card('t1')).getByTestId('running-tool')).toBeTruthy());
    const tool = within(card('t1')).getByTestId('running-tool');
    expect(tool.textContent).toContain('Bash');
    expect(tool.textContent).toContain('go test ./...');
    expect(tool.textContent).toContain('10s');
    expect(card('t1').textContent).not.toMatch(/waiting for permission/i);
    expect(within(card('t1')).getByText('1m 00s')).toBeTruthy();

    // No event for 35 s: the tool's time and the card's time go on.
    await vi.advanceTimersByTimeAsync(35_000);
    expect(within(card('t1')).getByTestId('running-tool').textContent).toContain('45s');
    expect(within(card('t1')).getByText('1m 35s')).toBeTruthy();

    // Its result: the tool is gone, the card shows the next action.
    emit('worker:progress', { runId: 'r1', status: 'running', workers: [worker('t1', { currentAction: 'Edit api.go', startedAt: '2026-11-22T06:00:00Z' })] });
    await vi.waitFor(() => expect(within(card('t1')).getByText('Edit api.go')).toBeTruthy());
    expect(within(card('t1')).queryByTestId('running-tool')).toBeNull();
  });

  it('gives the main session its own card during analysis, with its running tool', async () => {
    vi.useFakeTimers({ now: new Date('2026-11-22T06:01:00Z'), toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    answer('RunSnapshot', () => Promise.resolve(snapshot({ run: run({ status: 'analyzing', phase: 'analysis', mainSessionId: 'm1' }), workers: [] })));
    answer('PendingPermissions', () => Promise.resolve([]));
    render(RunView, { runId: 'r1' });
    const main = await vi.waitFor(() => screen.getByRole('article', { name: 'Main session' }));
    expect(main.textContent).toContain('Analyzing the project');
    emit('orchestrator:progress', { runId: 'r1', status: 'analyzing', message: 'Bash find . -name "*.go"', tool: { name: 'Bash', input: 'find . -name "*.go"', startedAt: '2026-11-22T06:00:58Z' } });
    await vi.waitFor(() => expect(within(main).getByTestId('main-tool').textContent).toContain('2s'));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(within(main).getByTestId('main-tool').textContent).toContain('7s');
    emit('orchestrator:progress', { runId: 'r1', status: 'analyzing', message: 'Read go.mod' });
    await vi.waitFor(() => expect(within(main).getByText('Read go.mod')).toBeTruthy());
    expect(within(main).queryByTestId('main-tool')).toBeNull();
  });

  it('shows no main session card once the workers run', async () => {
    answer('RunSnapshot', () => Promise.resolve(snapshot({ workers: [worker('t1')] })));
    render(RunView, { runId: 'r1' });
    await waitFor(() => card('t1'));
    expect(screen.queryByRole('article', { name: 'Main session' })).toBeNull();
  });
});
