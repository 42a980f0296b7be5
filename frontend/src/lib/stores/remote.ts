import { writable, type Readable } from 'svelte/store';
import { api, type RemoteLink, type RemoteStatus } from '../api';

export type RemoteState = {
  status?: RemoteStatus;
  /** The access link just made: shown once, until dismissed. */
  link?: RemoteLink;
  busy: boolean;
  error?: Error;
};

/** Settings → Remote access: whether Baton serves its window to browsers, and the access link once. */
export function createRemoteStore(): Readable<RemoteState> & {
  load: () => Promise<void>;
  start: (listen: string, behindProxy: boolean) => Promise<void>;
  stop: () => Promise<void>;
  newLink: () => Promise<void>;
  dismissLink: () => void;
} {
  const state = writable<RemoteState>({ busy: false });
  const patch = (p: Partial<RemoteState>) => state.update((s) => ({ ...s, ...p }));
  async function act(fn: () => Promise<Partial<RemoteState>>) {
    patch({ busy: true, error: undefined });
    try {
      patch(await fn());
    } catch (error) {
      patch({ error: error as Error });
    } finally {
      patch({ busy: false });
    }
  }
  const shown = (link: RemoteLink): Partial<RemoteState> => ({ status: link.status, link: link.url ? link : undefined });
  return {
    subscribe: state.subscribe,
    load: () => act(async () => ({ status: await api.remote.status() })),
    start: (listen, behindProxy) => act(async () => shown(await api.remote.start(listen, behindProxy))),
    stop: () =>
      act(async () => {
        await api.remote.stop();
        return { status: await api.remote.status(), link: undefined };
      }),
    newLink: () => act(async () => shown(await api.remote.newLink())),
    dismissLink: () => patch({ link: undefined }),
  };
}

export const remoteStore = createRemoteStore();
