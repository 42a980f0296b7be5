import { get, writable, type Readable } from 'svelte/store';
import { api, type PermissionDecision, type PermissionPrompt, type SessionInfo, type SessionTranscript } from '../api';
import { navigation } from './navigation';

export type SessionsState = {
  loading: boolean;
  error?: Error;
  includeHidden: boolean;
  sessions: SessionInfo[];
  permissions: PermissionPrompt[];
  selected?: string;
  transcript?: SessionTranscript;
  transcriptError?: Error;
  sending: boolean;
  sendError?: Error;
  starting: boolean;
  startError?: Error;
  /** Request ids being answered right now. */
  answering: string[];
  answerError?: Error;
};

const initial: SessionsState = {
  loading: false,
  includeHidden: false,
  sessions: [],
  permissions: [],
  sending: false,
  starting: false,
  answering: [],
};

/**
 * Identical pending prompts (same run, or none, and same key), shown and
 * answered together under the first of them; a question is always alone.
 */
export type PromptGroup = { key: string; prompt: PermissionPrompt; prompts: PermissionPrompt[] };

/** Groups the pending prompts, in their order, as the Inbox groups a run's. */
export function groupPrompts(prompts: PermissionPrompt[]): PromptGroup[] {
  const out: PromptGroup[] = [];
  const byKey = new Map<string, PromptGroup>();
  for (const p of prompts) {
    const k = !p.question && p.key ? `${p.runId ?? ''}\u0000${p.key}` : '';
    const g = k ? byKey.get(k) : undefined;
    if (g) {
      g.prompts.push(p);
      continue;
    }
    const group = { key: p.requestId, prompt: p, prompts: [p] };
    if (k) byKey.set(k, group);
    out.push(group);
  }
  return out;
}

/** "Bash go test ./... — 3 sessions": what a group asks, and of how many. */
export function promptTitle(g: PromptGroup): string {
  const p = g.prompt;
  if (p.question) return 'A session asks you';
  if (g.prompts.length < 2) return `${p.tool} wants permission`;
  return `${p.summary} — ${g.prompts.length} ${g.prompts.every((q) => q.taskId) ? 'workers' : 'sessions'}`;
}

/** The Sessions view's data: the host's sessions, one transcript, and pending prompts. */
export function createSessionsStore(): Readable<SessionsState> & {
  refresh: () => Promise<void>;
  setIncludeHidden: (on: boolean) => Promise<void>;
  select: (id: string) => Promise<void>;
  send: (text: string) => Promise<boolean>;
  start: (cwd: string, message: string) => Promise<boolean>;
  respond: (requestId: string, decision: PermissionDecision) => Promise<void>;
  /** Answers every prompt of a group alike (a run's through the run, which logs it). */
  respondAll: (requestIds: string[], decision: PermissionDecision) => Promise<void>;
  /** Allows rule for the rest of a run: the engine answers every pending prompt of it the rule covers. */
  allowForRun: (runId: string, rule: string, requestIds: string[]) => Promise<void>;
  /** The native folder dialog for a new session's folder; '' when the user cancelled. */
  chooseFolder: () => Promise<string>;
  reset: () => void;
} {
  const state = writable<SessionsState>({ ...initial });
  const patch = (p: Partial<SessionsState>) => state.update((s) => ({ ...s, ...p }));

  async function loadTranscript(id: string) {
    try {
      const transcript = await api.sessions.transcript(id);
      if (get(state).selected === id) patch({ transcript, transcriptError: undefined });
    } catch (error) {
      if (get(state).selected === id) patch({ transcriptError: error as Error });
    }
  }

  async function refresh() {
    const { includeHidden, selected } = get(state);
    patch({ loading: true });
    try {
      const [sessions, permissions] = await Promise.all([api.sessions.list(includeHidden), api.sessions.permissions()]);
      patch({ sessions, permissions, error: undefined });
      if (selected) await loadTranscript(selected);
    } catch (error) {
      patch({ error: error as Error });
    } finally {
      patch({ loading: false });
    }
  }

  /** Runs fn, which answers the prompts requestIds; its error is shown above the prompts. */
  async function answer(requestIds: string[], fn: () => Promise<void>) {
    patch({ answering: [...get(state).answering, ...requestIds], answerError: undefined });
    try {
      await fn();
      patch({ permissions: get(state).permissions.filter((p) => !requestIds.includes(p.requestId)) });
      await refresh();
    } catch (error) {
      patch({ answerError: error as Error });
    } finally {
      patch({ answering: get(state).answering.filter((r) => !requestIds.includes(r)) });
    }
  }

  return {
    subscribe: state.subscribe,
    refresh,
    async setIncludeHidden(on: boolean) {
      patch({ includeHidden: on });
      await refresh();
    },
    async select(id: string) {
      patch({ selected: id, transcript: undefined, transcriptError: undefined, sendError: undefined });
      await loadTranscript(id);
    },
    async send(text: string) {
      const id = get(state).selected;
      if (!id) return false;
      patch({ sending: true, sendError: undefined });
      try {
        await api.sessions.send(id, text);
        await loadTranscript(id);
        return true;
      } catch (error) {
        patch({ sendError: error as Error });
        return false;
      } finally {
        patch({ sending: false });
      }
    },
    /** Starts a session and selects it; false (with startError) when Go refused. */
    async start(cwd: string, message: string) {
      patch({ starting: true, startError: undefined });
      try {
        const id = await api.sessions.start(cwd, message);
        patch({ selected: id, transcript: undefined, transcriptError: undefined });
        await refresh();
        return true;
      } catch (error) {
        patch({ startError: error as Error });
        return false;
      } finally {
        patch({ starting: false });
      }
    },
    respond: (requestId: string, decision: PermissionDecision) => answer([requestId], () => api.sessions.respond(requestId, decision)),
    respondAll: (requestIds: string[], decision: PermissionDecision) =>
      answer(requestIds, async () => {
        for (const id of requestIds) await api.sessions.respond(id, decision);
      }),
    allowForRun: (runId: string, rule: string, requestIds: string[]) => answer(requestIds, () => api.runs.allowForRun(runId, rule)),
    chooseFolder: () => api.chooseFolder('Choose the folder the session works in'),
    reset() {
      state.set({ ...initial });
    },
  };
}

export const sessionsStore = createSessionsStore();

/** Shows a worker's session in the Sessions view (hidden sessions included). */
export function openTranscript(sessionId: string): void {
  void sessionsStore.setIncludeHidden(true);
  void sessionsStore.select(sessionId);
  navigation.go('sessions');
}
