import { readable } from 'svelte/store';

/**
 * The one clock of every elapsed time in the window (worker cards, running
 * tools, runs): it ticks on each whole second while someone listens, so all
 * timers move together between events and none drifts on its own interval.
 */
export const now = readable(Date.now(), (set) => {
  set(Date.now());
  let timer: ReturnType<typeof setTimeout>;
  const tick = () => {
    set(Date.now());
    timer = setTimeout(tick, 1000 - (Date.now() % 1000) || 1000);
  };
  timer = setTimeout(tick, 1000 - (Date.now() % 1000) || 1000);
  return () => clearTimeout(timer);
});
