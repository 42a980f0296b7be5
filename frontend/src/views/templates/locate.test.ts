import { describe, expect, it } from 'vitest';
import { lineOf, locate, pointerTokens } from './locate';

const doc = `{
  "id": "mine",
  "extends": "documentation",
  "foo": 1,
  "config": {
    "maxWorkers": 30,
    "bar": true
  },
  "tags": ["ok", "Bad Tag"],
  "variables": {
    "task_id": { "type": "string", "label": "x" },
    "a/b": { "type": "select", "label": "A" }
  }
}
`;

function marked(text: string, pointer: string, message: string): string {
  const r = locate(text, pointer, message);
  return text.slice(r.from, r.to);
}

describe('locate', () => {
  it.each([
    ['a scalar value', '/config/maxWorkers', 'maximum: got 30, want 20', '30'],
    ['an array item', '/tags/1', '"Bad Tag" is not a valid tag', '"Bad Tag"'],
    ['an object by its key', '/config', 'something about config', '"config"'],
    ['an extra property by its key', '', "additional properties 'foo' not allowed", '"foo"'],
    ['an extra nested property by its key', '/config', "additional properties 'bar' not allowed", '"bar"'],
    ['a bad member name named at the end', '/variables', 'variable names must be capital letters: task_id', '"task_id"'],
    ['an escaped pointer token', '/variables/a~1b', "missing property 'options'", '"a/b"'],
    ['the deepest part of a pointer that goes too far', '/config/models/main', "missing property 'x'", '"config"'],
    ['the document', '', "missing property 'name'", '{'],
  ])('marks %s', (_, pointer, message, want) => {
    expect(marked(doc, pointer, message)).toBe(want);
  });

  it('marks a syntax error at its line and column', () => {
    const text = '{\n  "id": ,\n}';
    const r = locate(text, '', "not valid JSON at line 2, column 9: invalid character ',' looking for beginning of value");
    expect(text.slice(r.from, r.to)).toBe(',');
    expect(lineOf(text, r.from)).toBe(2);
  });

  it('marks the end of a document that stops early', () => {
    const text = '{"id": "x"';
    const r = locate(text, '', 'the JSON ends too early');
    expect(r.to).toBe(text.length);
  });

  it('splits pointers as RFC 6901 says', () => {
    expect(pointerTokens('')).toEqual([]);
    expect(pointerTokens('/a~1b/c~0d/0')).toEqual(['a/b', 'c~d', '0']);
  });
});
