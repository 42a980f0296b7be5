/** A debounced call: the first call starts a timer, calls until it fires fold into one. */
export type Debounced = { (): void; cancel: () => void };

/** Calls fn at most once per `ms` (trailing): bursts of events become one re-fetch. */
export function debounce(fn: () => void, ms: number): Debounced {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const d = () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      fn();
    }, ms);
  };
  d.cancel = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
  return d;
}
