import { readable } from 'svelte/store';

/** A clock for elapsed times: ticks every second while someone listens. */
export const now = readable(Date.now(), (set) => {
  const timer = setInterval(() => set(Date.now()), 1000);
  return () => clearInterval(timer);
});
