// Cutting text for display by character, never by UTF-16 unit: a cut never
// splits an emoji's surrogate pair, a flag, or a letter from its accent.
// A character is a grapheme cluster (what a reader sees as one) where the
// runtime has Intl.Segmenter, else a code point.

const segmenter = typeof Intl !== 'undefined' && 'Segmenter' in Intl ? new Intl.Segmenter(undefined, { granularity: 'grapheme' }) : undefined;

/** The characters of text, lazily, in order. */
function* characters(text: string): Generator<string> {
  if (segmenter) {
    for (const s of segmenter.segment(text)) yield s.segment;
  } else {
    yield* text; // a string iterates by code point
  }
}

/** How many characters text has. */
export function charCount(text: string): number {
  let n = 0;
  for (const _ of characters(text)) n++;
  return n;
}

/** The first `max` characters of text (all of it when shorter). */
export function prefix(text: string, max: number): string {
  if (text.length <= max) return text; // never more characters than UTF-16 units
  let out = '';
  let n = 0;
  for (const c of characters(text)) {
    if (n === max) break;
    out += c;
    n++;
  }
  return out;
}

/** Text cut to at most `max` characters, the last of them an ellipsis when it was cut. */
export function truncate(text: string, max: number, ellipsis = '…'): string {
  const head = prefix(text, max);
  if (head === text || max < 1) return head;
  return `${prefix(head, max - 1)}${ellipsis}`;
}
