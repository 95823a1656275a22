// Every message between the renderer and the engine session, whatever carries it (Electron message port or
// WebSocket). Requests are answered once; events stream. Validators run on every message that crosses a
// process boundary, so a malformed message is rejected at the edge with a clear reason.
import { DECODE_MODES, type DecodeMode, type DecodeOptions, type EngineEvent, type EngineInfo, type RegionKind } from './engine-types';

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
  /** Pixels per inch of the page as read: a PDF's drawing resolution, an image's own where the file says it. */
  dpi?: number;
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
  /** The checkpoint carries an MTP head, so decode mode 'mtp' is available. */
  mtpHead: boolean;
  /** The checkpoint drafts blocks by masked diffusion (ours, or a GLM-OCR folder converted to dual mode), so
   * modes 'spec' and 'diffusion' are available. */
  drafter: boolean;
  /** 'saccade_ocr' (our own checkpoints) or 'glm_ocr' (a Hugging Face GLM-OCR folder), as the engine reads it. */
  modelType: string;
  /** The folder's README.md (its model card), cut at MAX_MODEL_CARD_CHARS; null where the folder has none. */
  card: string | null;
  /** The model shipped with the app, which every picker offers. */
  embedded: boolean;
}

/** The decode modes a model can run, and for the others the one line the UI shows why not. */
export function modeUnavailable(model: Pick<ModelInfo, 'drafter' | 'mtpHead'>, mode: DecodeMode): string | null {
  if ((mode === 'spec' || mode === 'diffusion') && !model.drafter) {
    return 'this model has no diffusion drafter (a GLM-OCR folder needs the dual-mode conversion)';
  }
  if (mode === 'mtp' && !model.mtpHead) return 'this model has no MTP head';
  return null;
}

/** A model card longer than this is cut: it is shown in a small scroll area, not read as a document. */
export const MAX_MODEL_CARD_CHARS = 64 * 1024;
/** A model folder's path as a client may send it; longer is no folder anyone typed or picked. */
export const MAX_MODEL_PATH_CHARS = 4096;

export interface SampleInfo {
  name: string;
  title: string;
}

/** The largest file the app opens; what the browser server lets one upload message carry follows from it. */
export const MAX_DOCUMENT_BYTES = 200 * 1024 * 1024;

/** Documents one session (a window, a browser tab) may hold open in the engine at once. */
export const MAX_DOCUMENTS_PER_SESSION = 4;

/** Bytes of documents all sessions together may hold open in the engine: two of the largest. */
export const MAX_OPEN_DOCUMENT_BYTES = 2 * MAX_DOCUMENT_BYTES;

/**
 * What a searchable PDF export may carry and lay out, set from what the engine process can afford. Its cost
 * goes with the characters of the words laid out (each word's and the space after it): pdf-lib shapes each
 * word with fontkit and writes its operators in the export's worker, about 50 us and 1 to 2 KB a character,
 * and the engine holds each word's boxes. Measured on 2 cores at this limit (the engine's peak RSS): 100,000
 * one-letter words, the dearest per character, 87 -> 375 MB in 9 to 13 s, and with MAX_EXPORT_EVENTS token
 * events besides 161 -> 524 MB in 20 s; 18,181 ten-letter words 100 -> 216 MB in 9 s; one word of 199,999
 * letters 94 -> 354 MB in 9 s. The old limit of 64 M characters of text took the engine past 5 GB and to
 * SIGABRT.
 * 200,000 characters are 50 to 70 pages of prose; a text with more is refused in one line before anything is
 * laid out (edited-pdf.ts).
 */
export const MAX_EXPORT_WORD_CHARS = 200_000;
/** Characters of an export's text: its words, their Markdown and blank space, but a bound on the split. */
export const MAX_EXPORT_TEXT_CHARS = 2 * 1024 * 1024;
/** Decode events an export may carry: the tokens of its words, read one by one, and the pages' layouts. */
export const MAX_EXPORT_EVENTS = 200_000;
/** What an export's events may be: what places the words, nothing of the rounds or the progress. */
export const EXPORT_EVENT_TYPES = ['page_layout', 'region_start', 'token', 'retract'] as const;
/** The largest searchable PDF the engine answers with: the largest input and its text layer. */
export const MAX_SEARCHABLE_PDF_BYTES = MAX_DOCUMENT_BYTES + 64 * 1024 * 1024;

/** Request name -> [params, result]. */
export interface RequestMap {
  /** `vocab` (token id -> text, '' for special tokens) lets the UI show drafted tokens that were never committed. */
  hello: [Record<string, never>, { engine: EngineInfo; model: ModelInfo; vocab?: string[] }];
  listSamples: [Record<string, never>, SampleInfo[]];
  openSample: [{ name: string }, { doc: DocumentInfo; bytes: string }];
  openDocument: [{ name: string; bytes: string }, { doc: DocumentInfo }];
  /** Everything read comes as events while it runs (a page's cost is bounded, not the document's); the answer says how it ended. */
  decode: [{ docId: string; pages: number[] | null; options: DecodeOptions }, { cancelled: boolean }];
  cancel: [Record<string, never>, { cancelled: boolean }];
  closeDocument: [{ docId: string }, { closed: boolean }];
  /** Model folders loaded before, most recent first, the loaded one included; the embedded default is not listed. */
  recentModels: [Record<string, never>, { folders: string[] }];
  /**
   * Loads another model folder (null: the embedded default) for the whole engine, every window or tab; refused
   * while any decode runs. On failure the previous model stays loaded.
   */
  switchModel: [{ dir: string | null }, { model: ModelInfo; vocab?: string[] }];
  /**
   * The document's pages with an invisible text layer of the user's edited text (`text`, the editor's
   * Markdown), each word where the decode behind it (`events`, of EXPORT_EVENT_TYPES) read it
   * (main/node/exports/edited-words.ts); the PDF's bytes in base64. The window sends the decode it shows, which may be
   * one the engine never ran (a saved run replayed after a reload).
   */
  exportSearchablePdf: [{ docId: string; text: string; events: SessionEvent[] }, { bytes: string }];
}

export type RequestName = keyof RequestMap;
export const REQUEST_NAMES: readonly RequestName[] = [
  'hello', 'listSamples', 'openSample', 'openDocument', 'decode', 'cancel', 'closeDocument', 'recentModels', 'switchModel',
  'exportSearchablePdf',
];

export interface PageLayoutEvent {
  type: 'page_layout';
  docId: string;
  page: number;
  regions: LayoutRegion[];
  /** The direction the page's text runs in, radians in page pixels (y down): 0 upright, pi/2 down the page. */
  textAngle: number;
  /**
   * The crops the page is read in that are text lines: the box their tokens' fixation frames carry, and the
   * line's groups of ink (about its words), all in page pixels. Word boxes are aligned to the ink.
   */
  lines: Array<{ regionId: string; box: Box; inkWords: Box[] }>;
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

/**
 * A line (or table cell) whose reading the model was too unsure of to keep: not in the text, shown on the
 * page for the user to check and type (docs/decisions/0015-line-views.md).
 */
export interface UnsureLineEvent {
  type: 'unsure_line';
  docId: string;
  regionId: string;
  /** The line's box in page pixels. */
  box: Box;
  /** The reading that was not kept, and the geometric mean of its tokens' probabilities. */
  text: string;
  meanProb: number;
}

export interface EngineCrashedEvent {
  type: 'engine_crashed';
  reason: string;
}

export type SessionEvent = EngineEvent | PageLayoutEvent | ProgressEvent | UnsureLineEvent | EngineCrashedEvent;

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

/** Events of one decode, sent only to the session that owns the document. */
export interface EventBatch {
  /** The document the events belong to; null for what concerns the whole engine (its crash). */
  docId: string | null;
  events: SessionEvent[];
}

export interface EventMessage extends EventBatch {
  kind: 'events';
}

export type ServerMessage = ResponseMessage | EventMessage;

/**
 * Browser server -> engine process, over the one Node IPC channel that carries every WebSocket connection:
 * each connection is a session of its own in the engine, named by a number the server picks. Request ids are
 * the server's own (unique on the channel), so two pages that both count from 1 never meet.
 */
export type HostCommand =
  | { kind: 'session_request'; session: number; request: RequestMessage }
  /** The connection closed: its decode stops and its documents are released. */
  | { kind: 'session_end'; session: number };

/** Engine process -> browser server: a message for one session's connection. */
export interface HostReply {
  session: number;
  message: ServerMessage;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** No request nests deeper than this; a deeper one would overflow the stack of whatever copies it next. */
export const MAX_REQUEST_DEPTH = 16;

/** The largest message the app sends: a document of MAX_DOCUMENT_BYTES, base64 in its openDocument request. */
export const MAX_UPLOAD_MESSAGE_BYTES = 4 * Math.ceil(MAX_DOCUMENT_BYTES / 3) + 64 * 1024;
/** An export's text (at most 6 bytes a character in JSON) and its events (about 200 bytes each). */
export const MAX_EXPORT_MESSAGE_BYTES = 48 * 1024 * 1024;
/** An export's events hold about 17 values each (a token, its fixation and their fields), a layout more. */
export const MAX_EXPORT_VALUES = 4_000_000;

/**
 * What one request may cost to parse: its size, and its values, counted as the members of its objects and
 * arrays (an empty one counts one). A parse takes about 75 bytes of memory a value at most (an object of keys;
 * `[[],[],...]` takes 43) besides its strings' characters, so a kind may hold only the values it needs: an
 * upload is one long string, an export a decode's events (4 M values, 300 MB to parse at worst), and every
 * other request a few fields in 64 KiB (a decode's page list of up to 2,000 pages among them).
 */
export interface RequestBudget {
  /** The request, as a refusal names it. */
  kind: string;
  bytes: number;
  values: number;
}

const REQUEST_BUDGETS: Partial<Record<RequestName, Omit<RequestBudget, 'kind'>>> = {
  openDocument: { bytes: MAX_UPLOAD_MESSAGE_BYTES, values: 64 },
  exportSearchablePdf: { bytes: MAX_EXPORT_MESSAGE_BYTES, values: MAX_EXPORT_VALUES },
};
const ORDINARY_BUDGET = { bytes: 64 * 1024, values: 4096 };

/** The budget of the request named `name`; a name that is no request's gets the ordinary one. */
export function requestBudget(name: string | null): RequestBudget {
  const known = (REQUEST_NAMES as readonly unknown[]).includes(name) ? name as RequestName : null;
  return { kind: known ? `${known} request` : 'request', ...(known && REQUEST_BUDGETS[known] || ORDINARY_BUDGET) };
}

/**
 * Why a parsed request is out of shape (nested deeper than MAX_REQUEST_DEPTH, or more values than `maxValues`,
 * counted as request-frame.ts counts them in the raw JSON), found without recursion and with no more work
 * than the bound: a port hands the engine messages already built, whatever they hold.
 */
function shapeRefusal(value: object, maxValues: number): string | null {
  const tooMany = `more than ${maxValues} values`;
  const stack: Array<[object, number]> = [[value, 1]];
  let values = 0;
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (depth > MAX_REQUEST_DEPTH) return `nested deeper than ${MAX_REQUEST_DEPTH} levels`;
    const children: unknown[] = [];
    if (Array.isArray(v)) {
      if (values + v.length > maxValues) return tooMany;
      for (let i = 0; i < v.length; i++) children.push(v[i]);
    } else {
      for (const key in v) {
        if (values + children.length >= maxValues) return tooMany;
        children.push((v as Record<string, unknown>)[key]);
      }
    }
    values += Math.max(children.length, 1);
    if (values > maxValues) return tooMany;
    for (const child of children) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return null;
}

/** Names and ids a request carries: a file's name, a document's id. */
export const MAX_NAME_CHARS = 1024;

const shortString = (v: unknown) => typeof v === 'string' && v.length <= MAX_NAME_CHARS;

/** Validates a request from an untrusted peer; returns a reason when it is malformed. */
export function checkRequest(msg: unknown): { ok: true; value: RequestMessage } | { ok: false; reason: string } {
  if (!isObject(msg)) return { ok: false, reason: 'message is not an object' };
  const shape = shapeRefusal(msg, requestBudget(typeof msg.name === 'string' ? msg.name : null).values);
  if (shape) return { ok: false, reason: shape };
  if (msg.kind !== 'request') return { ok: false, reason: 'kind must be "request"' };
  if (typeof msg.id !== 'number' || !Number.isInteger(msg.id)) return { ok: false, reason: 'id must be an integer' };
  if (typeof msg.name !== 'string' || !(REQUEST_NAMES as readonly string[]).includes(msg.name)) {
    return { ok: false, reason: `unknown request ${JSON.stringify(msg.name)}` };
  }
  if (!isObject(msg.params)) return { ok: false, reason: 'params must be an object' };
  const p = msg.params;
  switch (msg.name as RequestName) {
    case 'openSample':
      if (!shortString(p.name)) return { ok: false, reason: `openSample.name must be a string of at most ${MAX_NAME_CHARS} characters` };
      break;
    case 'openDocument':
      if (!shortString(p.name) || typeof p.bytes !== 'string') {
        return { ok: false, reason: `openDocument needs a name of at most ${MAX_NAME_CHARS} characters and base64 bytes` };
      }
      break;
    case 'switchModel':
      if (p.dir !== null && !(typeof p.dir === 'string' && p.dir.length > 0 && p.dir.length <= MAX_MODEL_PATH_CHARS && !p.dir.includes('\0'))) {
        return { ok: false, reason: `switchModel.dir must be null or a path of 1 to ${MAX_MODEL_PATH_CHARS} characters without NUL` };
      }
      break;
    case 'closeDocument':
      if (!shortString(p.docId)) return { ok: false, reason: `closeDocument.docId must be a string of at most ${MAX_NAME_CHARS} characters` };
      break;
    case 'decode':
      if (!shortString(p.docId)) return { ok: false, reason: `decode.docId must be a string of at most ${MAX_NAME_CHARS} characters` };
      // Each page once: a page listed again would be read again, a document's cost for a message's size.
      if (p.pages !== null && !(Array.isArray(p.pages) && p.pages.every((n) => Number.isInteger(n)) && new Set(p.pages).size === p.pages.length)) {
        return { ok: false, reason: 'decode.pages must be null or distinct integers' };
      }
      if (!isObject(p.options) || !(DECODE_MODES as readonly string[]).includes(String(p.options.mode))) {
        return { ok: false, reason: `decode.options.mode must be one of ${DECODE_MODES.join(', ')}` };
      }
      break;
    case 'exportSearchablePdf': {
      if (!shortString(p.docId)) return { ok: false, reason: `exportSearchablePdf.docId must be a string of at most ${MAX_NAME_CHARS} characters` };
      if (typeof p.text !== 'string' || p.text.length > MAX_EXPORT_TEXT_CHARS) {
        return { ok: false, reason: `exportSearchablePdf.text must be a string of at most ${MAX_EXPORT_TEXT_CHARS} characters` };
      }
      if (!Array.isArray(p.events) || p.events.length > MAX_EXPORT_EVENTS) {
        return { ok: false, reason: `exportSearchablePdf.events must be an array of at most ${MAX_EXPORT_EVENTS} events` };
      }
      const types: readonly unknown[] = EXPORT_EVENT_TYPES;
      for (const e of p.events) {
        const reason = checkSessionEvent(e) ?? (types.includes((e as { type: unknown }).type) ? null : `a ${(e as { type: string }).type} event is not for an export`);
        if (reason) return { ok: false, reason: `exportSearchablePdf.events: ${reason}` };
      }
      break;
    }
    default:
      break;
  }
  return { ok: true, value: msg as unknown as RequestMessage };
}

const EVENT_TYPES = new Set(['region_start', 'round', 'token', 'retract', 'region_end', 'page_layout', 'progress', 'unsure_line', 'engine_crashed']);

/** Checks the fields the UI relies on for one event; returns a reason when it is malformed. */
export function checkSessionEvent(e: unknown): string | null {
  if (!isObject(e) || typeof e.type !== 'string' || !EVENT_TYPES.has(e.type)) {
    return `unknown event ${JSON.stringify(isObject(e) ? e.type : e)}`;
  }
  const num = (k: string) => typeof e[k] === 'number' && Number.isFinite(e[k]);
  const str = (k: string) => typeof e[k] === 'string';
  switch (e.type) {
    case 'region_start':
      if (!str('regionId') || !isObject(e.grid) || typeof e.grid.rows !== 'number' || typeof e.grid.cols !== 'number') {
        return 'region_start needs regionId and grid';
      }
      return null;
    case 'round':
      if (!str('regionId') || !num('round') || !num('blockSize') || !num('forwards')
        || !Array.isArray(e.draft) || !Array.isArray(e.verify) || !Array.isArray(e.committed)) {
        return 'round needs regionId, round, blockSize, forwards, draft, verify and committed';
      }
      if (e.drafter !== 'diffusion' && e.drafter !== 'mtp') return 'round.drafter must be diffusion or mtp';
      return null;
    case 'token':
      if (!str('regionId') || !num('index') || !num('id') || !str('text') || !num('round') || !str('source')
        || !num('arProb') || !num('decoderProb') || !num('readProb')) {
        return 'token needs regionId, index, id, text, round, source, arProb, decoderProb and readProb';
      }
      if (e.fixation !== null && !(isObject(e.fixation) && Array.isArray(e.fixation.indices)
        && Array.isArray(e.fixation.weights) && e.fixation.indices.length === e.fixation.weights.length)) {
        return 'token.fixation must be null or matching indices and weights';
      }
      return null;
    case 'retract':
      return str('regionId') && num('index') ? null : 'retract needs regionId and index';
    case 'region_end':
      if (e.tail !== undefined && typeof e.tail !== 'string') return 'region_end.tail must be a string';
      return str('regionId') && str('text') && isObject(e.stats) ? null : 'region_end needs regionId, text and stats';
    case 'page_layout':
      return str('docId') && num('page') && num('textAngle') && Array.isArray(e.regions) && e.regions.every((r) => isObject(r) && typeof r.id === 'string' && isObject(r.box))
        && Array.isArray(e.lines) ? null : 'page_layout needs docId, page, textAngle, regions with id and box, and lines';
    case 'progress':
      return str('docId') && num('regionsDone') && num('regionsTotal') ? null : 'progress needs docId, regionsDone and regionsTotal';
    case 'unsure_line':
      return str('docId') && str('regionId') && isObject(e.box) && str('text') && num('meanProb')
        ? null : 'unsure_line needs docId, regionId, box, text and meanProb';
    default:
      return str('reason') ? null : 'engine_crashed needs a reason';
  }
}

/** Validates a message from the engine session before the UI acts on it. Malformed events are dropped. */
export function checkServerMessage(msg: unknown): { ok: true; value: ServerMessage; dropped: string[] } | { ok: false; reason: string } {
  if (!isObject(msg)) return { ok: false, reason: 'message is not an object' };
  if (msg.kind === 'response') {
    if (typeof msg.id !== 'number' || typeof msg.ok !== 'boolean') return { ok: false, reason: 'response needs id and ok' };
    if (!msg.ok && typeof msg.error !== 'string') return { ok: false, reason: 'a failed response needs an error' };
    return { ok: true, value: msg as unknown as ResponseMessage, dropped: [] };
  }
  if (msg.kind !== 'events' || !Array.isArray(msg.events)) return { ok: false, reason: 'kind must be "response" or "events"' };
  if (msg.docId !== null && typeof msg.docId !== 'string') return { ok: false, reason: 'events need the docId they belong to (or null)' };
  const dropped: string[] = [];
  const events = msg.events.filter((e) => {
    const reason = checkSessionEvent(e);
    if (reason) dropped.push(reason);
    return reason === null;
  }) as SessionEvent[];
  return { ok: true, value: { kind: 'events', docId: msg.docId, events }, dropped };
}
