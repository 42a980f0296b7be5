// How Settings shows the settings a session host kind owns. Go says which
// kinds there are and which settings.json keys each one reads (HostKinds);
// this table says how each key looks in the form, once. A key the table does
// not know yet still shows, as an input of its value's type named by the key.
import type { Settings, SettingsView } from '../lib/api';

/** The input a field gets: a text box, a number box or a checkbox. */
export type FieldInput = 'text' | 'number' | 'check';

/** Something Settings says under a kind's fields, when a field asks for it. */
export type FieldNote = { tone: 'advice' | 'warn'; title?: string; text: string };

export type FieldSpec = {
  label: string;
  input: FieldInput;
  placeholder?: string;
  min?: number;
  max?: number;
  step?: number;
  /** One sentence under the fields on what the setting does. */
  help?: string;
  /** A note the field shows, from the form as it is and the settings view. */
  note?: (form: Settings, view: SettingsView | undefined) => FieldNote | undefined;
};

/** The settings the host kinds own, by settings.json key. */
export const hostFields: Record<string, FieldSpec> = {
  cdpEndpoint: {
    label: 'CDP endpoint',
    input: 'text',
    note: (_, view) => (view?.startAdvice ? { tone: 'advice', title: 'Start Claude Desktop for Baton:', text: view.startAdvice } : undefined),
  },
  pagePattern: { label: 'Page pattern', input: 'text', placeholder: 'automatic: claude.ai, app://localhost, the simulator' },
  allowRemoteCdp: {
    label: 'Allow an endpoint on another machine',
    input: 'check',
    note: (form) =>
      form.allowRemoteCdp
        ? {
            tone: 'warn',
            text: 'The DevTools port has no password: anyone who can reach it can run code in Claude Desktop. Only allow this on a network you trust.',
          }
        : undefined,
  },
  claudePath: { label: 'CLI path', input: 'text', placeholder: 'claude on PATH' },
  chromePath: { label: 'Chrome or Chromium', input: 'text', placeholder: 'found automatically' },
  headless: { label: "Run the simulator's browser without a window", input: 'check' },
  pollIntervalMs: {
    label: 'Poll interval (ms)',
    input: 'number',
    min: 100,
    max: 60000,
    step: 100,
    help: 'Baton reacts to pushed changes at once; polling is the fallback for hosts that cannot push.',
  },
};

/** How field name shows: from the table, or made from its key and the type of its value. */
export function fieldSpec(name: string, value: unknown): FieldSpec {
  const known = hostFields[name];
  if (known) return known;
  const input: FieldInput = typeof value === 'boolean' ? 'check' : typeof value === 'number' ? 'number' : 'text';
  return { label: name, input };
}
