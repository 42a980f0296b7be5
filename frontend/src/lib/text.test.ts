import { describe, expect, it } from 'vitest';
import { charCount, prefix, truncate } from './text';

const family = '👨‍👩‍👧'; // one character, 8 UTF-16 units
const flag = '🇫🇷'; // one character, 4 units
const eAcute = 'e\u0301'; // e and a combining accent: one character

describe('charCount', () => {
  it('counts what a reader sees as characters', () => {
    expect(charCount('abc')).toBe(3);
    expect(charCount(`a${family}b`)).toBe(3);
    expect(charCount(`${flag}${eAcute}`)).toBe(2);
    expect(charCount('')).toBe(0);
  });
});

describe('prefix', () => {
  it('keeps whole characters', () => {
    expect(prefix('hello', 10)).toBe('hello');
    expect(prefix('hello', 2)).toBe('he');
    expect(prefix(`ab${family}cd`, 3)).toBe(`ab${family}`);
    expect(prefix(`😀😀😀`, 2)).toBe('😀😀');
    expect(prefix(`caf${eAcute}s`, 4)).toBe(`caf${eAcute}`);
  });
});

describe('truncate', () => {
  it('leaves text that fits alone', () => {
    expect(truncate('hello', 5)).toBe('hello');
    expect(truncate(`${family}${family}`, 2)).toBe(`${family}${family}`);
  });

  it('cuts to max characters, the ellipsis included', () => {
    expect(truncate('hello world', 6)).toBe('hello…');
    expect(charCount(truncate('x'.repeat(500), 160))).toBe(160);
  });

  it('never splits a surrogate pair, a joined emoji or an accent', () => {
    // By UTF-16 unit, slice(0, 2) of '😀😀😀' would end in half an emoji.
    expect(truncate('😀😀😀', 3)).toBe('😀😀😀');
    expect(truncate('😀😀😀😀', 3)).toBe('😀😀…');
    expect(truncate(`ab${family}${flag}cd`, 4)).toBe(`ab${family}…`);
    expect(truncate(`caf${eAcute}${eAcute}${eAcute}`, 5)).toBe(`caf${eAcute}…`);
    const cut = truncate(`${flag}`.repeat(10), 4);
    expect(cut).toBe(`${flag}${flag}${flag}…`);
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});
