// What a WebSocket message may cost the server before it is parsed. JSON.parse builds every array, object and
// string a message holds: a message of `[[],[],...]` costs about 50 times its size (20 MB of it took the server
// and the engine to 1.1 GB each). So the raw bytes are scanned first, in one pass that jumps over strings with
// memchr, and a message is parsed only if its size, nesting and count of values are within what its request
// kind may carry (common/protocol.ts, requestBudget); the kind is read from the same scan.
import { MAX_EXPORT_MESSAGE_BYTES, MAX_EXPORT_VALUES, MAX_REQUEST_DEPTH, requestBudget } from '../../../common/protocol';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
/** A request name is a short identifier: a longer top-level `name` names no request. */
const MAX_NAME_BYTES = 64;

export interface FrameShape {
  /** The top-level `name` as JSON.parse would read it; null where it is absent or not a short string. */
  name: string | null;
  /**
   * Members of every object and array (an empty one counts one), as checkRequest's walk counts them: a bound
   * on the values a parse would make besides the strings' characters.
   */
  values: number;
  /** The deepest nesting of objects and arrays; the scan stops counting past MAX_REQUEST_DEPTH. */
  depth: number;
  /** Bytes read outside strings (its structure, numbers, blank space), one at a time where strings are jumped. */
  bare: number;
}

/** Where the string starting after the quote at `from - 1` ends (its closing quote), or -1 if it does not. */
function stringEnd(bytes: Buffer, from: number): number {
  for (let at = from; ;) {
    const quote = bytes.indexOf(QUOTE, at);
    if (quote < 0) return -1;
    // Escaped when an odd run of backslashes stands before it; the run stops at the opening quote at the latest.
    let slashes = 0;
    while (bytes[quote - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote;
    at = quote + 1;
  }
}

/** The most values a request of any kind may hold (an export's): the scan stops counting past it. */
const MOST_VALUES = MAX_EXPORT_VALUES;
/**
 * A message larger than any budget but an upload's can only be an upload, whose bulk is one string: past this
 * many bytes outside strings the scan stops, so 270 MB of blank space or digits is not read a byte at a time
 * (3 to 6 s of the server's one thread, against 40 ms for an upload's base64).
 */
const UPLOAD_BARE_BYTES = 64 * 1024;

/**
 * The shape of a message's JSON, without parsing it. Exact for valid JSON; for anything else the count is of
 * the part JSON.parse would read before failing, which is all it builds. The scan stops where the message is
 * past every budget (too deep, or more values than any request holds), so its work is bounded as well.
 */
export function frameShape(bytes: Buffer, maxBare = Infinity): FrameShape {
  let name: string | null = null;
  let values = 0;
  let bare = 0;
  let depth = 0;
  let deepest = 0;
  /** At the top level: the next string is a key (after `{` or `,`), and whether the last key was `name`. */
  let keyNext = false;
  let nameKey = false;
  let rootObject = false;
  for (let i = 0; i < bytes.length; i++) {
    if (++bare > maxBare) break;
    const c = bytes[i];
    if (c === QUOTE) {
      const end = stringEnd(bytes, i + 1);
      if (end < 0) break;
      if (depth === 1) {
        if (keyNext) nameKey = isNameKey(bytes, i, end);
        else if (nameKey) name = end - i - 1 <= MAX_NAME_BYTES ? decodeString(bytes, i, end) : null;
        keyNext = false;
      }
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++values > MOST_VALUES) break;
      depth++;
      deepest = Math.max(deepest, depth);
      if (depth > MAX_REQUEST_DEPTH) break;
      if (depth === 1) rootObject = keyNext = c === OPEN_OBJECT;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
    } else if (c === COMMA) {
      if (++values > MOST_VALUES) break;
      if (depth === 1) keyNext = rootObject;
    }
  }
  return { name, values, depth: deepest, bare };
}

/** Whether the key between the quotes at `open` and `close` reads `name`, escapes decoded as JSON.parse does. */
function isNameKey(bytes: Buffer, open: number, close: number): boolean {
  if (close - open - 1 === 4 && bytes.toString('latin1', open + 1, close) === 'name') return true;
  return close - open - 1 <= MAX_NAME_BYTES && bytes.subarray(open, close).includes(BACKSLASH) && decodeString(bytes, open, close) === 'name';
}

function decodeString(bytes: Buffer, open: number, close: number): string | null {
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8', open, close + 1));
    return typeof value === 'string' ? value : null;
  } catch {
    return null;
  }
}

/** Why a message is refused before it is parsed, in one line; null when it may be parsed. */
export function frameRefusal(bytes: Buffer): string | null {
  const maxBare = bytes.length > MAX_EXPORT_MESSAGE_BYTES ? UPLOAD_BARE_BYTES : Infinity;
  const shape = frameShape(bytes, maxBare);
  if (shape.bare > maxBare) {
    return `a message over ${MAX_EXPORT_MESSAGE_BYTES} bytes is an upload, with at most ${UPLOAD_BARE_BYTES} bytes outside its strings`;
  }
  if (shape.depth > MAX_REQUEST_DEPTH) return `nested deeper than ${MAX_REQUEST_DEPTH} levels`;
  if (shape.values > MOST_VALUES) return `no request holds more than ${MOST_VALUES} values`;
  const budget = requestBudget(shape.name);
  if (bytes.length > budget.bytes) return `${budget.kind}s are at most ${budget.bytes} bytes, this one is ${bytes.length}`;
  if (shape.values > budget.values) return `${budget.kind}s hold at most ${budget.values} values, this one ${shape.values}`;
  return null;
}
