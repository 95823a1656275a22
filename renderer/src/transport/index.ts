import type { Transport } from './transport';
import { WebSocketTransport } from './websocket-transport';

declare global {
  interface Window {
    /** Present only inside Electron, installed by the preload script. */
    saccade?: Transport;
  }
}

export function connect(): Transport {
  if (window.saccade) return window.saccade;
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  // The server opens its socket only to the page that holds the token it printed in this page's address.
  const token = new URLSearchParams(location.search).get('token') ?? '';
  return new WebSocketTransport(`${scheme}://${location.host}/ws?token=${encodeURIComponent(token)}`);
}
