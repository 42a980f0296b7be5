import { describe, expect, it } from 'vitest';
import { answer, calls } from '../test/fakes/App';
import { ApiError, api, call, toError } from './api';

describe('toError', () => {
  it.each([
    ['a plain string from Wails', 'The folder does not exist.', 'The folder does not exist.'],
    ['an empty string', '', 'Baton could not complete "X" and gave no reason.'],
    ['an object with a message', { message: 'boom' }, 'boom'],
    ['undefined', undefined, 'Baton could not complete "X" and gave no reason.'],
  ])('wraps %s in an ApiError', (_, reason, message) => {
    const err = toError('X', reason);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe(message);
    expect((err as ApiError).binding).toBe('X');
  });

  it('keeps an Error as it is', () => {
    const original = new TypeError('bad');
    expect(toError('X', original)).toBe(original);
  });
});

describe('call', () => {
  it('resolves with the binding result', async () => {
    await expect(call('X', () => Promise.resolve(42))).resolves.toBe(42);
  });

  it('rejects a string rejection as an Error', async () => {
    await expect(call('X', () => Promise.reject('nope'))).rejects.toThrowError(new ApiError('X', 'nope'));
  });
});

describe('api.ready', () => {
  it('calls the Ready binding and rejects with an Error when it fails', async () => {
    answer('Ready', () => Promise.reject('backend down'));
    const err = await api.ready().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toBe('backend down');
    expect(calls.map((c) => c.name)).toEqual(['Ready']);
  });
});
