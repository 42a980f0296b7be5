// Templates as the views use them: the list (kept fresh by the template
// events), the documents behind it, and every change to them. Views go
// through this store, never through the API.
import { writable, type Readable } from 'svelte/store';
import { api, type ResolvedTemplate, type Template, type TemplateInfo, type TemplateProblem } from '../api';
import { on } from '../events';

export type TemplateListState = {
  loading: boolean;
  items: TemplateInfo[];
  error?: Error;
};

export type TemplatesStore = Readable<TemplateListState> & {
  /** Loads the list from Go. */
  load: () => Promise<void>;
  /** Follows template:created/updated/deleted; returns the unsubscribe. */
  listen: () => () => void;

  /** The document as stored, before inheritance: what the editor edits. */
  source: (id: string) => Promise<string>;
  /** A stored template merged with what it inherits. */
  resolve: (id: string) => Promise<ResolvedTemplate>;
  /** A document not saved yet merged with what it inherits. */
  resolveDraft: (doc: string) => Promise<ResolvedTemplate>;
  /** The problems the validator saving uses finds; empty when the document is valid. */
  validate: (doc: string) => Promise<TemplateProblem[]>;
  /** A free template id made from a name. */
  newId: (name: string) => Promise<string>;
  /** Asks where to export and writes the file; the path, or undefined when the user cancelled. */
  exportFile: (id: string, resolved: boolean) => Promise<string | undefined>;

  // Changes: each rejects with Go's reason, and reloads the list once done.
  create: (doc: string) => Promise<Template>;
  update: (id: string, doc: string) => Promise<Template>;
  remove: (id: string) => Promise<void>;
  duplicate: (id: string) => Promise<Template>;
  /** Opens a file picker and imports the file; undefined when the user cancelled. */
  importFile: () => Promise<Template | undefined>;
};

/** The templates: the list loaded through ListTemplates, the documents, and their changes. */
export function createTemplatesStore(): TemplatesStore {
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
  /** Runs a change, then reloads the list (a failed reload shows as the list's error). */
  async function change<T>(fn: () => Promise<T>): Promise<T> {
    const result = await fn();
    await load();
    return result;
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

    source: (id) => api.templates.source(id),
    resolve: (id) => api.templates.resolve(id),
    resolveDraft: (doc) => api.templates.resolveDraft(doc),
    validate: async (doc) => (await api.templates.validate(doc)) ?? [],
    newId: (name) => api.templates.generateId(name),
    async exportFile(id, resolved) {
      const r = await api.templates.export(id, resolved);
      return r.cancelled ? undefined : r.path;
    },

    create: (doc) => change(() => api.templates.create(doc)),
    update: (id, doc) => change(() => api.templates.update(id, doc)),
    remove: (id) => change(() => api.templates.remove(id)),
    duplicate: (id) => change(() => api.templates.duplicate(id, '')),
    async importFile() {
      const r = await api.templates.import();
      if (r.cancelled) return undefined;
      await load();
      return r.template;
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
