// An input file's bytes, for the CLI and the page service.
import { readFileSync, statSync, type Stats } from 'node:fs';
import { MAX_DOCUMENT_BYTES } from '../../common/protocol';

/**
 * One input's bytes. What is not a regular file (a folder, /dev/zero, a pipe) or is larger than the app opens
 * is refused before it is read.
 */
export function readInput(file: string): Uint8Array {
  let stat: Stats;
  try {
    stat = statSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (err as Error).message);
  }
  if (!stat.isFile()) throw new Error('not a regular file');
  if (stat.size > MAX_DOCUMENT_BYTES) {
    throw new Error(`it is ${(stat.size / 2 ** 20).toFixed(0)} MB; the largest file Saccade opens is ${MAX_DOCUMENT_BYTES / 2 ** 20} MB`);
  }
  return new Uint8Array(readFileSync(file));
}
