// A model folder named by a client: picked in a native dialog, or typed into the browser page, so it is
// read as hostile input. It must be an absolute path to an existing folder holding a config.json; beyond
// what the native loader reads from it (regular files only, each bounded: native/src/util/mapped_file.h),
// only its README.md (the model card) is read, and only when it is a regular file of its own (not a link of
// either kind) holding text, cut at MAX_MODEL_CARD_CHARS.
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { MAX_MODEL_CARD_CHARS, MAX_MODEL_PATH_CHARS } from '../../../common/protocol';

/** The folder's real path, or an Error whose message is one line naming what is wrong. */
export function checkModelFolder(dir: string): string {
  if (dir.length === 0 || dir.length > MAX_MODEL_PATH_CHARS || dir.includes('\0')) {
    throw new Error(`not a folder path (1 to ${MAX_MODEL_PATH_CHARS} characters)`);
  }
  if (!isAbsolute(dir)) throw new Error(`${dir}: give the folder's full path`);
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    throw new Error(`${dir}: no such folder`);
  }
  if (!statSync(real).isDirectory()) throw new Error(`${dir}: not a folder`);
  let config = false;
  try {
    config = statSync(join(real, 'config.json')).isFile();
  } catch {
    // Reported below.
  }
  if (!config) throw new Error(`${dir}: not a model folder (it has no config.json)`);
  return real;
}

/** README.md of the folder as text, at most MAX_MODEL_CARD_CHARS characters; null where there is none. */
export function readModelCard(dir: string): string | null {
  const path = join(dir, 'README.md');
  // A link could point anywhere on the machine, which a card has no reason to; a hard link too (a second name
  // of a file elsewhere). Checked before the open (opening a device can act on it), and again on what was
  // opened, in case the file was swapped meanwhile: O_NOFOLLOW refuses a link then, and O_NONBLOCK opens a
  // pipe at once instead of waiting for a writer.
  const isCard = (stat: Stats) => stat.isFile() && stat.nlink === 1;
  let fd: number;
  try {
    if (!isCard(lstatSync(path))) return null;
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return null;
  }
  try {
    if (!isCard(fstatSync(fd))) return null;
    // UTF-8 takes at most 4 bytes a character; read no more than the kept characters could need.
    const buffer = Buffer.alloc(4 * MAX_MODEL_CARD_CHARS);
    const bytes = readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, bytes).toString('utf8');
    // A card is text: one holding NUL bytes is some other file named README.md.
    if (text.includes('\0')) return null;
    return text.length > MAX_MODEL_CARD_CHARS ? `${text.slice(0, MAX_MODEL_CARD_CHARS)}\n…` : text;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
