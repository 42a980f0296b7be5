import { writable, type Readable } from 'svelte/store';
import { api, type TemplateInfo } from '../api';
import { on } from '../events';

export type TemplateListState = {
  loading: boolean;
  items: TemplateInfo[];
  error?: Error;
};

export type TemplateListStore = Readable<TemplateListState> & {
  /** Loads the list from Go. */
  load: () => Promise<void>;
  /** Follows template:created/updated/deleted; returns the unsubscribe. */
  listen: () => () => void;
};

/** The template list: loaded through ListTemplates, kept fresh by the template events. */
export function createTemplateList(): TemplateListStore {
  const { subscribe, update } = writable<TemplateListState>({ loading: true, items: [] });
  let seq = 0;
  async function load() {
    const mine = ++seq;
    update((s) => ({ ...s, loading: true }));
    try {
      const items = await api.templates.list();
      if (mine === seq) {
        update(() => ({ loading: false, items: items ?? [] }));
      }
    } catch (error) {
      if (mine === seq) {
        update((s) => ({ ...s, loading: false, error: error as Error }));
      }
    }
  }
  return {
    subscribe,
    load,
    listen() {
      // The payload of created/updated is a TemplateInfo; the list is small, so
      // a reload keeps its order (system first, then by name) exactly as Go sorts it.
      const offs = [
        on('template:created', () => void load()),
        on('template:updated', () => void load()),
        on<string>('template:deleted', (id) => {
          update((s) => ({ ...s, items: s.items.filter((t) => t.id !== id) }));
        }),
      ];
      return () => offs.forEach((off) => off());
    },
  };
}

/** Case-insensitive search over name, description, id and tags; every word must match. */
export function filterTemplates(items: TemplateInfo[], query: string): TemplateInfo[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) {
    return items;
  }
  return items.filter((t) => {
    const hay = [t.name, t.description, t.id, ...(t.tags ?? [])].join(' ').toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}
