// The template document the editor holds: JSON text is the one source of
// truth; the form reads it parsed and writes it back through these helpers.
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Parses the editor's text; undefined when it is not a JSON object. */
export function parseDocument(text: string): JsonObject | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : undefined;
  } catch {
    return undefined;
  }
}

export function formatDocument(doc: JsonObject): string {
  return JSON.stringify(doc, null, 2) + '\n';
}

/** Reads the value at a path of keys. */
export function getPath(doc: JsonObject, path: string[]): Json | undefined {
  let cur: Json | undefined = doc;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) {
      return undefined;
    }
    cur = cur[key];
  }
  return cur;
}

/**
 * Returns a copy of doc with the value at path set, or removed when value is
 * undefined (so a child template inherits it again). Objects left empty by a
 * removal are removed too.
 */
export function setPath(doc: JsonObject, path: string[], value: Json | undefined): JsonObject {
  const [key, ...rest] = path;
  const out: JsonObject = { ...doc };
  if (rest.length === 0) {
    if (value === undefined) {
      delete out[key];
    } else {
      out[key] = value;
    }
    return out;
  }
  const cur = out[key];
  const child: JsonObject = cur !== null && typeof cur === 'object' && !Array.isArray(cur) ? cur : {};
  const next = setPath(child, rest, value);
  if (Object.keys(next).length === 0 && value === undefined) {
    delete out[key];
  } else {
    out[key] = next;
  }
  return out;
}

/** Renames key `from` to `to` in obj, keeping the order of the keys. */
export function renameKey(obj: JsonObject, from: string, to: string): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) {
    out[k === from ? to : k] = v;
  }
  return out;
}

/** A starting document for a new template that inherits everything. */
export function newDocument(id: string): string {
  return formatDocument({
    $schema: 'https://baton.app/schemas/template.json',
    id,
    name: 'New template',
    description: '',
    version: '1.0.0',
    extends: '_default',
  });
}
