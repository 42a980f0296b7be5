import { writable, type Readable } from 'svelte/store';

export const views = ['runs', 'new-run', 'inbox', 'templates', 'sessions', 'history', 'settings'] as const;
export type View = (typeof views)[number];

export function isView(value: string): value is View {
  return (views as readonly string[]).includes(value);
}

/**
 * Asked before the view changes (for example by an editor with unsaved
 * changes); answering false, or a promise of false, keeps the current view.
 */
export type LeaveGuard = (to: View) => boolean | Promise<boolean>;

/** The view the sidebar selects. It is mirrored in location.hash so a reload keeps it. */
export function createNavigation(
  initial: View = 'runs',
): Readable<View> & { go: (view: View) => void; guard: (fn: LeaveGuard) => () => void } {
  const start = typeof location !== 'undefined' ? location.hash.replace(/^#\/?/, '') : '';
  const { subscribe, set } = writable<View>(isView(start) ? start : initial);
  let current: View = isView(start) ? start : initial;
  let leaveGuard: LeaveGuard | null = null;
  const commit = (view: View) => {
    current = view;
    set(view);
    if (typeof history !== 'undefined') {
      history.replaceState(null, '', `#/${view}`);
    }
  };
  return {
    subscribe,
    go(view: View) {
      const answer = leaveGuard && view !== current ? leaveGuard(view) : true;
      if (answer === true) {
        commit(view);
      } else if (answer !== false) {
        void answer.then((ok) => ok && commit(view));
      }
    },
    /** Installs the leave guard; returns the function that removes it. */
    guard(fn: LeaveGuard) {
      leaveGuard = fn;
      return () => {
        if (leaveGuard === fn) {
          leaveGuard = null;
        }
      };
    },
  };
}

export const navigation = createNavigation();
