import { beforeEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import { answer, calls } from './test/fakes/App';
import App from './App.svelte';

const info = { version: '9.9.9', commit: 'abc123', buildDate: '2026-11-22', platform: 'linux/amd64' };

describe('App shell', () => {
  beforeEach(() => {
    answer('ActiveRuns', () => Promise.resolve([]));
    answer('Inbox', () => Promise.resolve([]));
    answer('History', () => Promise.resolve({ runs: [], total: 0, limit: 25, offset: 0, nextOffset: -1 }));
  });

  it('calls Ready on start and shows the version', async () => {
    answer('Ready', () => Promise.resolve(info));
    render(App);
    expect(await screen.findByText('v9.9.9')).toBeTruthy();
    expect(calls.filter((c) => c.name === 'Ready')).toHaveLength(1);
  });

  it('opens on Runs with its empty state and its action goes to New run', async () => {
    answer('Ready', () => Promise.resolve(info));
    render(App);
    expect(screen.getByRole('heading', { level: 1, name: 'Runs' })).toBeTruthy();
    expect(await screen.findByRole('heading', { name: 'No active runs' })).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Start a new run' }));
    expect(screen.getByRole('heading', { level: 1, name: 'New run' })).toBeTruthy();
    expect(location.hash).toBe('#/new-run');
  });

  it.each([
    ['Templates', 'Templates'],
    ['Sessions', 'Cannot reach the session host'],
    ['History', 'No past runs'],
    ['Settings', 'About Baton'],
  ])('switches to %s from the sidebar', async (label, heading) => {
    answer('Ready', () => Promise.resolve(info));
    render(App);
    const nav = screen.getByRole('navigation', { name: 'Main' });
    const button = [...nav.querySelectorAll('button')].find((b) => b.textContent?.trim() === label);
    expect(button).toBeTruthy();
    await fireEvent.click(button!);
    expect(screen.getByRole('heading', { level: 1, name: label })).toBeTruthy();
    expect(screen.getByRole('heading', { name: heading })).toBeTruthy();
    expect(button!.getAttribute('aria-current')).toBe('page');
  });

  it('says so when the backend cannot be reached', async () => {
    answer('Ready', () => Promise.reject('bindings unavailable'));
    render(App);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('bindings unavailable');
  });
});

describe('the sidebar', () => {
  it("opens the list of runs on Runs, not the run shown last", async () => {
    const { openRun } = await import('./lib/stores/openRun');
    const { snapshot } = await import('./test/fixtures/runs');
    answer('Ready', () => Promise.resolve(info));
    answer('ActiveRuns', () => Promise.resolve([]));
    answer('Inbox', () => Promise.resolve([]));
    answer('RunSnapshot', () => Promise.resolve(snapshot()));
    render(App);
    openRun.set('r1');
    expect(await screen.findByRole('button', { name: '← All runs' })).toBeTruthy();
    const nav = screen.getByRole('navigation', { name: 'Main' });
    await fireEvent.click([...nav.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Runs')!);
    expect(screen.getByRole('heading', { level: 1, name: 'Runs' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: '← All runs' })).toBeNull();
  });
});
