// Maps the validator's problems (a JSON pointer and a message) to places in
// the text the editor holds, so each error shows where it is.
import { parseTree, type Node } from 'jsonc-parser';

export interface TextRange {
  from: number;
  to: number;
}

/** Splits an RFC 6901 JSON pointer into its tokens. */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '') {
    return [];
  }
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function member(node: Node, token: string): Node | undefined {
  if (node.type === 'object') {
    for (const prop of node.children ?? []) {
      const [key, value] = prop.children ?? [];
      if (key?.value === token) {
        return value ?? prop;
      }
    }
  } else if (node.type === 'array' && /^\d+$/.test(token)) {
    return node.children?.[Number(token)];
  }
  return undefined;
}

function span(node: Node): TextRange {
  return { from: node.offset, to: node.offset + Math.max(1, node.length) };
}

/** The key of a member, or the node itself when it is not a member's value. */
function keyOf(node: Node): TextRange {
  const parent = node.parent;
  if (parent?.type === 'property' && parent.children?.[0]) {
    return span(parent.children[0]);
  }
  return { from: node.offset, to: node.offset + 1 };
}

/** Offset of a 1-based line and column (as Go reports syntax errors). */
function offsetOf(text: string, line: number, column: number): number {
  let off = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf('\n', off);
    if (nl < 0) {
      return text.length;
    }
    off = nl + 1;
  }
  return Math.min(text.length, off + Math.max(0, column - 1));
}

/**
 * Where a problem is in text. A syntax error names its line and column; a
 * schema error its pointer: a scalar is marked whole, an object or array by
 * its key, and a problem about one member of an object (an extra or badly
 * named property) by that member's key. A pointer that goes deeper than the
 * text marks the deepest part that exists.
 */
export function locate(text: string, pointer: string, message: string): TextRange {
  const syntax = /line (\d+), column (\d+)/.exec(message);
  if (syntax && message.startsWith('not valid JSON')) {
    const at = offsetOf(text, Number(syntax[1]), Number(syntax[2]));
    return at >= text.length ? { from: Math.max(0, text.length - 1), to: text.length } : { from: at, to: at + 1 };
  }
  if (/ends too early/.test(message)) {
    return { from: Math.max(0, text.length - 1), to: text.length };
  }
  const root = parseTree(text);
  if (!root) {
    return { from: 0, to: Math.min(1, text.length) };
  }
  let node = root;
  for (const token of pointerTokens(pointer)) {
    const next = member(node, token);
    if (!next) {
      break;
    }
    node = next;
  }
  if (node.type === 'object') {
    for (const prop of node.children ?? []) {
      const key = prop.children?.[0];
      const name = typeof key?.value === 'string' ? key.value : '';
      if (name && (message.includes(`'${name}'`) || message.includes(`"${name}"`) || message.endsWith(`: ${name}`))) {
        return span(key!);
      }
    }
  }
  if (node.type === 'object' || node.type === 'array') {
    return keyOf(node);
  }
  return span(node);
}

/** The 1-based line of an offset, for the problem list. */
export function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
    }
  }
  return line;
}
