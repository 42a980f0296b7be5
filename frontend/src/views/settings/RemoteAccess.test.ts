import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { answer, calls } from '../../test/fakes/App';
import RemoteAccess from './RemoteAccess.svelte';

const off = { running: false, listen: '127.0.0.1:8390', tls: false, behindProxy: false, headless: false, fromBrowser: false, browsers: 0, hasLink: false };
const on = { ...off, running: true, listen: '0.0.0.0:8390', url: 'https://192.168.1.5:8390/', tls: true, fingerprint: 'AB:CD', hasLink: true, browsers: 1 };
const link = { url: 'https://192.168.1.5:8390/login?token=t0k3n', qr: 'data:image/png;base64,iVBORw0KGgo=', status: on };

describe('Settings → Remote access', () => {
  it('turns on, shows the link and its QR code once, then only says browsers stay signed in', async () => {
    answer('RemoteAccessStatus', () => Promise.resolve(off));
    answer('StartRemoteAccess', () => Promise.resolve(link));
    render(RemoteAccess);
    const address = (await screen.findByLabelText('Address')) as HTMLInputElement;
    expect(address.value).toBe('127.0.0.1:8390');
    expect(screen.getByText(/only this machine reaches Baton/)).toBeTruthy();
    await fireEvent.input(address, { target: { value: '0.0.0.0:8390' } });
    expect(screen.getByText(/HTTPS with a self-signed certificate/)).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Turn on' }));
    expect(calls.find((c) => c.name === 'StartRemoteAccess')?.args).toEqual(['0.0.0.0:8390', false]);
    const url = (await screen.findByLabelText('Access link URL')) as HTMLInputElement;
    expect(url.value).toBe(link.url);
    expect((screen.getByAltText('QR code of the access link') as HTMLImageElement).src).toBe(link.qr);
    expect(screen.getByTestId('remote-fingerprint').textContent).toBe('AB:CD');
    expect(screen.getByTestId('remote-state').textContent).toContain('https://192.168.1.5:8390/');
    await fireEvent.click(screen.getByRole('button', { name: 'Done' }));
    expect(screen.queryByLabelText('Access link URL')).toBeNull();
    expect(screen.getByText(/signed in before stay signed in/)).toBeTruthy();
  });

  it('asks before a new link signs every browser out', async () => {
    answer('RemoteAccessStatus', () => Promise.resolve(on));
    answer('NewRemoteLink', () => Promise.resolve({ ...link, url: 'https://192.168.1.5:8390/login?token=new' }));
    render(RemoteAccess);
    await fireEvent.click(await screen.findByRole('button', { name: 'New link…' }));
    expect(calls.some((c) => c.name === 'NewRemoteLink')).toBe(false);
    expect(screen.getByRole('alertdialog').textContent).toContain('signs every browser out');
    await fireEvent.click(screen.getByRole('button', { name: 'Make a new link' }));
    await waitFor(() => expect((screen.getByLabelText('Access link URL') as HTMLInputElement).value).toContain('token=new'));
  });

  it('in a browser, cannot turn itself off, and shows why a call failed', async () => {
    answer('RemoteAccessStatus', () => Promise.resolve({ ...on, fromBrowser: true }));
    answer('NewRemoteLink', () => Promise.reject('Baton could not keep the access token.'));
    render(RemoteAccess);
    await screen.findByRole('button', { name: 'New link…' });
    expect(screen.queryByRole('button', { name: 'Turn off' })).toBeNull();
    expect(screen.getByText(/turned on and off where Baton runs/)).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'New link…' }));
    expect(screen.getByRole('alertdialog').textContent).toContain('this one too');
    await fireEvent.click(screen.getByRole('button', { name: 'Make a new link' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Baton could not keep the access token.');
  });

  it('turns off in the window', async () => {
    let status: Record<string, unknown> = on;
    answer('RemoteAccessStatus', () => Promise.resolve(status));
    answer('StopRemoteAccess', () => {
      status = { ...off, hasLink: true };
      return Promise.resolve();
    });
    render(RemoteAccess);
    await fireEvent.click(await screen.findByRole('button', { name: 'Turn off' }));
    expect(await screen.findByRole('button', { name: 'Turn on' })).toBeTruthy();
  });
});
