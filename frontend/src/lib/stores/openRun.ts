// Which run the Runs view opens, and the ways to get there: a click in the
// app or a clicked desktop notification (run:open).
import { writable } from 'svelte/store';
import { on } from '../events';
import { navigation, type View } from './navigation';

/** The run the Runs view shows (undefined: the dashboard). */
export const openRun = writable<string | undefined>(undefined);

/** Goes to view from the sidebar: Runs opens the list of runs, not the run shown last. */
export function navigateTo(view: View): void {
  if (view === 'runs') openRun.set(undefined);
  navigation.go(view);
}

/** Opens run id in the Runs view. */
export function showRun(id: string): void {
  openRun.set(id);
  navigation.go('runs');
}

/** Follows run:open and inbox:open (a clicked desktop notification); returns the unsubscribe. */
export function listenRunOpen(): () => void {
  const offs = [
    on<string>('run:open', (id) => {
      if (typeof id === 'string' && id !== '') showRun(id);
    }),
    on('inbox:open', () => navigation.go('inbox')),
  ];
  return () => offs.forEach((off) => off());
}
