import { describe, expect, it } from 'vitest';
import { formatDocument, getPath, parseDocument, renameKey, setPath } from './document';

describe('document helpers', () => {
  it('sets a nested value without touching the original', () => {
    const doc = { name: 'x' };
    const next = setPath(doc, ['config', 'maxWorkers'], 4);
    expect(next).toEqual({ name: 'x', config: { maxWorkers: 4 } });
    expect(doc).toEqual({ name: 'x' });
  });

  it('removes a value, and the objects it leaves empty, so a child inherits again', () => {
    const doc = { name: 'x', config: { maxWorkers: 4 } };
    expect(setPath(doc, ['config', 'maxWorkers'], undefined)).toEqual({ name: 'x' });
    expect(setPath({ config: { a: 1, b: 2 } }, ['config', 'a'], undefined)).toEqual({ config: { b: 2 } });
  });

  it('renames a key in place', () => {
    expect(Object.keys(renameKey({ A: 1, B: 2, C: 3 }, 'B', 'X'))).toEqual(['A', 'X', 'C']);
  });

  it('parses only JSON objects and formats with two spaces', () => {
    expect(parseDocument('[1]')).toBeUndefined();
    expect(parseDocument('{"a":')).toBeUndefined();
    const doc = parseDocument('{"a":{"b":true}}')!;
    expect(getPath(doc, ['a', 'b'])).toBe(true);
    expect(formatDocument(doc)).toBe('{\n  "a": {\n    "b": true\n  }\n}\n');
  });
});
