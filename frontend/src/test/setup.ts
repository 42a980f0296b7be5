import { afterEach } from 'vitest';
import { resetBindings } from './fakes/App';
import { resetEvents } from './fakes/runtime';
import { navigation } from '../lib/stores/navigation';
import { sessionsStore } from '../lib/stores/sessions';
import { activeRuns } from '../lib/stores/activeRuns';
import { historyStore } from '../lib/stores/history';
import { openRun } from '../lib/stores/openRun';
import { inboxStore } from '../lib/stores/inbox';
import { machinesStore } from '../lib/stores/machines';

afterEach(() => {
  resetBindings();
  resetEvents();
  navigation.go('runs');
  sessionsStore.reset();
  openRun.set(undefined);
  activeRuns.reset();
  historyStore.reset();
  inboxStore.reset();
  machinesStore.reset();
  delete document.documentElement.dataset.theme;
});
