// The syntax of a file by its name, for the diff view: each language's
// CodeMirror package is loaded the first time a file of its kind is shown.
import type { Extension } from '@codemirror/state';

type Loader = () => Promise<Extension>;

const loaders: Record<string, Loader> = {
  go: async () => (await import('@codemirror/lang-go')).go(),
  js: async () => (await import('@codemirror/lang-javascript')).javascript(),
  mjs: async () => (await import('@codemirror/lang-javascript')).javascript(),
  cjs: async () => (await import('@codemirror/lang-javascript')).javascript(),
  jsx: async () => (await import('@codemirror/lang-javascript')).javascript({ jsx: true }),
  ts: async () => (await import('@codemirror/lang-javascript')).javascript({ typescript: true }),
  tsx: async () => (await import('@codemirror/lang-javascript')).javascript({ typescript: true, jsx: true }),
  svelte: async () => (await import('@codemirror/lang-html')).html(),
  vue: async () => (await import('@codemirror/lang-html')).html(),
  html: async () => (await import('@codemirror/lang-html')).html(),
  py: async () => (await import('@codemirror/lang-python')).python(),
  md: async () => (await import('@codemirror/lang-markdown')).markdown(),
  markdown: async () => (await import('@codemirror/lang-markdown')).markdown(),
  css: async () => (await import('@codemirror/lang-css')).css(),
  json: async () => (await import('@codemirror/lang-json')).json(),
  rs: async () => (await import('@codemirror/lang-rust')).rust(),
  yaml: async () => (await import('@codemirror/lang-yaml')).yaml(),
  yml: async () => (await import('@codemirror/lang-yaml')).yaml(),
  java: async () => (await import('@codemirror/lang-java')).java(),
  c: async () => (await import('@codemirror/lang-cpp')).cpp(),
  h: async () => (await import('@codemirror/lang-cpp')).cpp(),
  cc: async () => (await import('@codemirror/lang-cpp')).cpp(),
  cpp: async () => (await import('@codemirror/lang-cpp')).cpp(),
  hpp: async () => (await import('@codemirror/lang-cpp')).cpp(),
};

/** The name of the language of path ("" when the diff view has none for it). */
export function languageName(path: string): string {
  const ext = path.toLowerCase().split('/').pop()?.split('.').slice(1).pop() ?? '';
  return ext in loaders ? ext : '';
}

/** The CodeMirror language of path, or undefined when there is none. */
export async function languageFor(path: string): Promise<Extension | undefined> {
  const name = languageName(path);
  return name ? loaders[name]() : undefined;
}
