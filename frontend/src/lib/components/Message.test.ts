import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import { createRawSnippet } from 'svelte';
import Message from './Message.svelte';

const text = (t: string) => createRawSnippet(() => ({ render: () => `<span>${t}</span>` }));

describe('Message', () => {
  it.each([
    ['success', 'status'],
    ['warning', 'status'],
    ['error', 'alert'],
    ['info', 'status'],
  ] as const)('a %s message has its tone, its icon and the role %s', (tone, role) => {
    render(Message, { tone, children: text(`It is ${tone}`) });
    const m = screen.getByRole(role);
    expect(m.dataset.tone).toBe(tone);
    expect(m.textContent).toContain(`It is ${tone}`);
    expect(m.querySelector('svg.icon')).toBeTruthy();
  });
});
