import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Session, WebContents } from 'electron';
import { denyWebPermissions, restrictContents } from './contents-policy';

type Listener = (event: { url?: string; preventDefault(): void }) => void;

function fakeContents() {
  const listeners = new Map<string, Listener>();
  let openHandler: ((details: { url: string }) => { action: string }) | null = null;
  const contents = {
    setWindowOpenHandler: (h: typeof openHandler) => { openHandler = h; },
    on: (event: string, listener: Listener) => { listeners.set(event, listener); },
  };
  restrictContents(contents as unknown as WebContents);
  const prevented = (event: string, url?: string) => {
    let stopped = false;
    listeners.get(event)!({ url, preventDefault: () => { stopped = true; } });
    return stopped;
  };
  return { open: (url: string) => openHandler!({ url }).action, prevented };
}

test('pages open no windows, hand nothing to the system browser and navigate only within the app', () => {
  const c = fakeContents();
  for (const url of ['https://evil.example/', 'https://github.com/', 'http://127.0.0.1/', 'file:///etc/passwd', 'app://saccade/index.html']) {
    assert.equal(c.open(url), 'deny', url);
  }
  for (const event of ['will-navigate', 'will-redirect']) {
    assert.equal(c.prevented(event, 'app://saccade/index.html'), false, event);
    for (const url of ['https://evil.example/', 'file:///home/me/scan.pdf', 'app://saccade.evil/', 'app://saccadex/']) assert.equal(c.prevented(event, url), true, `${event} ${url}`);
  }
  assert.equal(c.prevented('will-attach-webview'), true);
});

test('every permission request, permission check and device request is denied', () => {
  const handlers: Record<string, (...args: never[]) => unknown> = {};
  const session = {
    setPermissionRequestHandler: (h: never) => { handlers.request = h; },
    setPermissionCheckHandler: (h: never) => { handlers.check = h; },
    setDevicePermissionHandler: (h: never) => { handlers.device = h; },
  };
  denyWebPermissions(session as unknown as Session);
  for (const permission of ['media', 'notifications', 'geolocation', 'clipboard-read', 'midiSysex', 'openExternal']) {
    let granted: boolean | null = null;
    (handlers.request as (c: null, p: string, cb: (g: boolean) => void) => void)(null, permission, (g) => { granted = g; });
    assert.equal(granted, false, permission);
    assert.equal((handlers.check as (c: null, p: string) => boolean)(null, permission), false, permission);
  }
  assert.equal((handlers.device as (d: object) => boolean)({ deviceType: 'usb' }), false);
});
