// Every message between the renderer and the engine session, whatever carries it (Electron message port or
// WebSocket). Requests are answered once; events stream. Validators run on every message that crosses a
// process boundary, so a malformed message is rejected at the edge with a clear reason.
import type { DecodeOptions, DecodeResult, EngineEvent, EngineInfo, RegionKind } from './engine-types';

export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface LayoutRegion {
  id: string;
  page: number;
  kind: RegionKind | 'title' | 'header' | 'footer' | 'list' | 'figure';
  box: Box;
  /** Reading order within the page; null for regions that are not read (figures). */
  order: number | null;
}

export interface PageInfo {
  index: number;
  width: number;
  height: number;
}

export interface DocumentInfo {
  docId: string;
  name: string;
  format: 'pdf' | 'png' | 'jpeg' | 'tiff';
  pages: PageInfo[];
}

export interface ModelInfo {
  name: string;
  parameters: number;
  path: string;
}

export interface SampleInfo {
  name: string;
  title: string;
}

/** Request name -> [params, result]. */
export interface RequestMap {
  hello: [Record<string, never>, { engine: EngineInfo; model: ModelInfo }];
  listSamples: [Record<string, never>, SampleInfo[]];
  openSample: [{ name: string }, { doc: DocumentInfo; bytes: string }];
  openDocument: [{ name: string; bytes: string }, { doc: DocumentInfo }];
  decode: [{ docId: string; pages: number[] | null; options: DecodeOptions }, DecodeResult];
  cancel: [Record<string, never>, { cancelled: boolean }];
}

export type RequestName = keyof RequestMap;
export const REQUEST_NAMES: readonly RequestName[] = [
  'hello', 'listSamples', 'openSample', 'openDocument', 'decode', 'cancel',
];

export interface PageLayoutEvent {
  type: 'page_layout';
  docId: string;
  page: number;
  regions: LayoutRegion[];
}

export interface ProgressEvent {
  type: 'progress';
  docId: string;
  regionsDone: number;
  regionsTotal: number;
  elapsedMs: number;
  /** Estimated from the measured rate so far; null until one region has finished. */
  remainingMs: number | null;
}

export interface EngineCrashedEvent {
  type: 'engine_crashed';
  reason: string;
}

export type SessionEvent = EngineEvent | PageLayoutEvent | ProgressEvent | EngineCrashedEvent;

export interface RequestMessage<N extends RequestName = RequestName> {
  kind: 'request';
  id: number;
  name: N;
  params: RequestMap[N][0];
}

export interface ResponseMessage {
  kind: 'response';
  id: number;
  ok: boolean;
  result?: unknown;
  error?: string;
}

export interface EventMessage {
  kind: 'events';
  events: SessionEvent[];
}

export type ServerMessage = ResponseMessage | EventMessage;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Validates a request from an untrusted peer; returns a reason when it is malformed. */
export function checkRequest(msg: unknown): { ok: true; value: RequestMessage } | { ok: false; reason: string } {
  if (!isObject(msg)) return { ok: false, reason: 'message is not an object' };
  if (msg.kind !== 'request') return { ok: false, reason: 'kind must be "request"' };
  if (typeof msg.id !== 'number' || !Number.isInteger(msg.id)) return { ok: false, reason: 'id must be an integer' };
  if (typeof msg.name !== 'string' || !(REQUEST_NAMES as readonly string[]).includes(msg.name)) {
    return { ok: false, reason: `unknown request ${JSON.stringify(msg.name)}` };
  }
  if (!isObject(msg.params)) return { ok: false, reason: 'params must be an object' };
  const p = msg.params;
  switch (msg.name as RequestName) {
    case 'openSample':
      if (typeof p.name !== 'string') return { ok: false, reason: 'openSample.name must be a string' };
      break;
    case 'openDocument':
      if (typeof p.name !== 'string' || typeof p.bytes !== 'string') {
        return { ok: false, reason: 'openDocument needs name and base64 bytes' };
      }
      break;
    case 'decode':
      if (typeof p.docId !== 'string') return { ok: false, reason: 'decode.docId must be a string' };
      if (p.pages !== null && !(Array.isArray(p.pages) && p.pages.every((n) => Number.isInteger(n)))) {
        return { ok: false, reason: 'decode.pages must be null or integers' };
      }
      if (!isObject(p.options) || !['ar', 'spec', 'diffusion'].includes(String(p.options.mode))) {
        return { ok: false, reason: 'decode.options.mode must be ar, spec or diffusion' };
      }
      break;
    default:
      break;
  }
  return { ok: true, value: msg as unknown as RequestMessage };
}
