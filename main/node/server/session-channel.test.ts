// The engine's side of a window's message port: what a port hands over arrives built, whatever it holds, so
// the channel's check must cost no more than the request's budget allows before anything acts on it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { ServerMessage } from '../../../common/protocol';
import { SessionChannel } from './session-channel';
import { SharedEngine } from '../engine/shared-engine';

/** The most memory this process has held so far, in MB (Linux reports it as VmHWM). */
const peakRssMb = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;

test('a request built wider than its kind holds is refused by a check that stops at the bound', async () => {
  const sent: ServerMessage[] = [];
  const channel = new SessionChannel(new SharedEngine(null), (m) => sent.push(m));
  // 10 M members, walked whole by the check before, took the engine 650 MB more; 100,000 keys as many.
  const wide = { kind: 'request', id: 1, name: 'hello', params: { x: new Array<number>(10_000_000).fill(0) } };
  const keys = { kind: 'request', id: 2, name: 'decode', params: Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i])) };
  const before = peakRssMb();
  await channel.receive(wide);
  await channel.receive(keys);
  const grown = peakRssMb() - before;
  assert.deepEqual(sent, [
    { kind: 'response', id: 1, ok: false, error: 'rejected: more than 4096 values' },
    { kind: 'response', id: 2, ok: false, error: 'rejected: more than 4096 values' },
  ]);
  assert.ok(grown < 32, `checking grew the engine by ${grown.toFixed(0)} MB`);
  channel.end();
});
