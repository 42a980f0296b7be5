import { describe, expect, it } from 'vitest';
import { get } from 'svelte/store';
import { createNavigation, isView } from './navigation';

describe('createNavigation', () => {
  it('goes to a view and mirrors it in the location hash', () => {
    const nav = createNavigation('runs');
    nav.go('history');
    expect(get(nav)).toBe('history');
    expect(location.hash).toBe('#/history');
    expect(get(createNavigation('runs'))).toBe('history');
  });

  it('asks the leave guard, synchronously or by a promise, until it is removed', async () => {
    const nav = createNavigation('templates');
    nav.go('templates');
    let answer: boolean | Promise<boolean> = false;
    const asked: string[] = [];
    const off = nav.guard((to) => (asked.push(to), answer));
    nav.go('runs');
    expect(get(nav)).toBe('templates');
    answer = Promise.resolve(true);
    nav.go('settings');
    expect(get(nav)).toBe('templates');
    await Promise.resolve();
    expect(get(nav)).toBe('settings');
    expect(asked).toEqual(['runs', 'settings']);
    off();
    nav.go('inbox');
    expect(get(nav)).toBe('inbox');
    expect(asked).toHaveLength(2);
  });

  it('knows its views', () => {
    expect(isView('sessions')).toBe(true);
    expect(isView('nowhere')).toBe(false);
  });
});
