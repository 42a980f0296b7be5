// In-memory stand-in for wailsjs/runtime: EventsOn registers, emit fires.
type Callback = (...data: any[]) => void;

const listeners = new Map<string, Set<Callback>>();

export function EventsOn(name: string, callback: Callback): () => void {
  const set = listeners.get(name) ?? new Set<Callback>();
  set.add(callback);
  listeners.set(name, set);
  return () => set.delete(callback);
}

export function EventsOff(name: string): void {
  listeners.delete(name);
}

/** Fires an event as Go's runtime.EventsEmit would. */
export function emit(name: string, ...data: unknown[]): void {
  for (const cb of listeners.get(name) ?? []) {
    cb(...data);
  }
}

export function listenerCount(name: string): number {
  return listeners.get(name)?.size ?? 0;
}

export function resetEvents(): void {
  listeners.clear();
}
