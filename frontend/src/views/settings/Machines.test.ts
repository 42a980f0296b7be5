import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { answer, calls } from '../../test/fakes/App';
import Machines from './Machines.svelte';

const path = '/home/ana/.config/baton/machines.json';
const box = { name: 'box', host: 'ana@build.example.com', workspace: '~/baton', claudePath: '', maxWorkers: 2, env: ['ANTHROPIC_API_KEY'] };
const okReport = {
  host: 'machine',
  label: 'Machine box',
  target: 'ana@build.example.com',
  version: '2.1.0',
  ok: true,
  verdict: 'Baton can run up to 2 workers on box with Claude Code 2.1.0.',
  checks: [{ name: 'SSH connection', ok: true, detail: 'ana@build.example.com (one shared connection)' }],
  lists: [],
};
const unknownKey = {
  ...okReport,
  ok: false,
  verdict: '',
  checks: [{ name: 'SSH connection', ok: false, detail: 'unknown host key', fix: 'The SSH host key of build.example.com is not in your known hosts: trust it with `ssh-keyscan build.example.com >> ~/.ssh/known_hosts`.' }],
};

describe('Settings → Machines', () => {
  it('adds a machine, tests it at once and shows its report', async () => {
    let machines: unknown[] = [];
    answer('GetMachines', () => Promise.resolve({ machines, path }));
    answer('SaveMachine', (m) => {
      machines = [m];
      return Promise.resolve({ machines, path });
    });
    answer('TestMachine', () => Promise.resolve(okReport));
    render(Machines);
    expect(await screen.findByText(/No machines yet/)).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Add a machine…' }));
    const form = screen.getByRole('form', { name: 'Add a machine' });
    await fireEvent.input(within(form).getByLabelText('Name'), { target: { value: 'box' } });
    await fireEvent.input(within(form).getByLabelText('SSH destination'), { target: { value: ' ana@build.example.com ' } });
    await fireEvent.input(within(form).getByLabelText('Variables to forward'), { target: { value: 'ANTHROPIC_API_KEY, ' } });
    await fireEvent.click(within(form).getByRole('button', { name: 'Add and test' }));
    await waitFor(() => expect(calls.some((c) => c.name === 'TestMachine')).toBe(true));
    const saved = calls.find((c) => c.name === 'SaveMachine')?.args as [typeof box, boolean];
    expect(saved[1]).toBe(false);
    expect(saved[0]).toMatchObject({ name: 'box', host: 'ana@build.example.com', workspace: '~/baton', maxWorkers: 2, env: ['ANTHROPIC_API_KEY'] });
    const report = await screen.findByLabelText('Report of box');
    expect(report.textContent).toContain('up to 2 workers on box');
    expect(screen.getByTestId('machine-box').textContent).toContain('forwards ANTHROPIC_API_KEY');
    expect(screen.queryByRole('form')).toBeNull();
  });

  it('shows a refused host key with the command that trusts it, and a refused form with its sentence', async () => {
    answer('GetMachines', () => Promise.resolve({ machines: [box], path }));
    answer('TestMachine', () => Promise.resolve(unknownKey));
    answer('SaveMachine', () => Promise.reject('The destination "ana:…@box" holds a password: Baton never stores one.'));
    render(Machines);
    await fireEvent.click(await screen.findByRole('button', { name: 'Test' }));
    const report = await screen.findByLabelText('Report of box');
    expect(report.textContent).toContain('cannot run workers on box yet');
    expect(report.textContent).toContain('ssh-keyscan build.example.com');
    await fireEvent.click(screen.getByRole('button', { name: 'Edit' }));
    const form = screen.getByRole('form', { name: 'Edit box' });
    expect((within(form).getByLabelText('Name') as HTMLInputElement).disabled).toBe(true);
    await fireEvent.input(within(form).getByLabelText('SSH destination'), { target: { value: 'ana:pw@box' } });
    await fireEvent.click(within(form).getByRole('button', { name: 'Save' }));
    expect((await screen.findByRole('alert')).textContent).toContain('never stores one');
    expect((calls.find((c) => c.name === 'SaveMachine')?.args as unknown[])[1]).toBe(true);
    expect(screen.getByRole('form', { name: 'Edit box' })).toBeTruthy();
  });

  it('asks before it forgets a machine', async () => {
    answer('GetMachines', () => Promise.resolve({ machines: [box], path }));
    answer('RemoveMachine', () => Promise.resolve({ machines: [], path }));
    render(Machines);
    await fireEvent.click(await screen.findByRole('button', { name: 'Remove…' }));
    expect(calls.some((c) => c.name === 'RemoveMachine')).toBe(false);
    expect(screen.getByRole('alertdialog').textContent).toContain('Nothing on the machine is touched');
    await fireEvent.click(screen.getByRole('button', { name: 'Remove' }));
    expect(await screen.findByText(/No machines yet/)).toBeTruthy();
    expect(calls.find((c) => c.name === 'RemoveMachine')?.args).toEqual(['box']);
  });

  it('says why the machines file cannot be used', async () => {
    answer('GetMachines', () => Promise.resolve({ machines: [], path, problem: 'machines.json is not a valid machines file: fix it.' }));
    render(Machines);
    expect((await screen.findByRole('alert')).textContent).toContain('not a valid machines file');
    expect((screen.getByRole('button', { name: 'Add a machine…' }) as HTMLButtonElement).disabled).toBe(true);
  });
});
