// Files read whole from wherever a user points: an input document (the CLI, the page service, the batch, the
// app's File > Open), the list of recent model folders. What bounds a read is the bytes it gives, not the size
// stat reports: /proc and /sys files report 0 or 4096 bytes whatever they hold (/proc/self/pagemap gives
// gigabytes), and a file may grow while it is read.
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { MAX_DOCUMENT_BYTES } from '../../../common/protocol';

// What each read past the size stat reported asks for, and the least first read: /proc/self/pagemap refuses
// reads that are not a multiple of 8 bytes.
const CHUNK_BYTES = 1 << 20;

const sizeText = (bytes: number) => (bytes >= 2 ** 20 ? `${(bytes / 2 ** 20).toFixed(0)} MB` : `${bytes} bytes`);

function oneLine(err: unknown): Error {
  const code = (err as NodeJS.ErrnoException).code;
  return new Error(code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (err as Error).message);
}

/**
 * Everything `fd` gives until its end, or null once it gives more than `max` bytes: while reading, no more
 * than `max` plus one chunk is held. `expected` (what stat says) sizes the first read, so that an honest file
 * is read into one buffer that it fills but for one byte; one that gives more is joined from its parts.
 */
function readAtMost(fd: number, expected: number, max: number): Uint8Array | null {
  const parts: Uint8Array[] = [];
  let total = 0;
  let part = new Uint8Array(Math.max(Math.min(expected, max) + 1, CHUNK_BYTES));
  let filled = 0;
  for (;;) {
    const n = readSync(fd, part, filled, part.length - filled, null);
    if (n === 0) break;
    filled += n;
    total += n;
    if (total > max) return null;
    if (filled === part.length) {
      parts.push(part);
      part = new Uint8Array(CHUNK_BYTES);
      filled = 0;
    }
  }
  // An honest file's buffer is its own; a short file's is cut to size rather than held whole.
  if (parts.length === 0) return filled === part.length - 1 ? part.subarray(0, filled) : part.slice(0, filled);
  parts.push(part.subarray(0, filled));
  const whole = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    whole.set(p, at);
    at += p.length;
  }
  return whole;
}

/**
 * The whole of a regular file, read by what it gives. What is not a regular file (a folder, /dev/zero, a pipe),
 * or holds more than `maxBytes` by its size or by what reading it gives, is refused in one line, which ends
 * with `largest` (what the bound is, to the reader's user).
 */
export function readRegularFile(file: string, maxBytes: number, largest: string): Uint8Array {
  const checkRegular = (stat: Stats) => {
    if (!stat.isFile()) throw new Error('not a regular file');
    if (stat.size > maxBytes) throw new Error(`it is ${sizeText(stat.size)}; ${largest}`);
  };
  let fd: number;
  try {
    // Checked before the open, since opening a device can act on it (a tape rewinds, a watchdog starts).
    checkRegular(statSync(file));
    // Checked again on what was opened, in case the file was swapped for a pipe meanwhile: O_NONBLOCK makes
    // opening a pipe return at once rather than wait for a writer.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    throw oneLine(err);
  }
  try {
    const stat = fstatSync(fd);
    checkRegular(stat);
    const bytes = readAtMost(fd, stat.size, maxBytes);
    if (!bytes) throw new Error(`it holds more than ${sizeText(maxBytes)}, whatever size it reports; ${largest}`);
    return bytes;
  } catch (err) {
    throw oneLine(err);
  } finally {
    closeSync(fd);
  }
}

/** One input document's bytes, or an Error whose message is one line. */
export function readInput(file: string): Uint8Array {
  return readRegularFile(file, MAX_DOCUMENT_BYTES, `the largest file Saccade opens is ${sizeText(MAX_DOCUMENT_BYTES)}`);
}
