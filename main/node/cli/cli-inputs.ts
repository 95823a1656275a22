// What the CLI's arguments name, listed before any work. A file is taken as it is. A folder is walked
// through its subfolders in sorted order (by code point, the same on every machine), and a quoted glob
// (`'scans/**/*.tif'`) the same way from its fixed leading folder; each keeps its place below them, so the
// outputs mirror the tree. Below a folder or glob a file is taken by its content (a PDF, PNG, JPEG or TIFF
// signature, whatever its name) or by a document's extension (then one whose content is not a document fails
// with a line, as a named file does). Hidden names (a leading dot) and an output folder inside are passed over
// silently; other files, symbolic links that leave the folder or lead to a folder, and a file met a second
// time get one line each. `-` is standard input.
import { closeSync, constants, openSync, readdirSync, readSync, realpathSync, statSync, type Dirent, type Stats } from 'node:fs';
import { basename, extname, isAbsolute, join, relative } from 'node:path';
import { isGlob, parseGlob } from './path-glob';
import { detectFormat } from '../pipeline/source/page-source';
import { shownPath, userPath } from './user-folder';

export interface CliInput {
  /** Where its bytes are: an absolute path, or null for standard input. */
  path: string | null;
  /** How lines name it. */
  shown: string;
  /** Its outputs' folder below -o's: its own below the folder or glob that named it; '' for a file named itself. */
  folder: string;
  /** Its file name, which its outputs are named after. */
  name: string;
}

export interface ExpandedInputs {
  inputs: CliInput[];
  /** One line for each thing a folder or glob held that is not read, saying why; the run goes on. */
  skipped: string[];
  /** What could not be listed (a folder it may not read, a glob matching nothing), and why: the run fails. */
  failed: Array<{ shown: string; reason: string }>;
  /** A folder or a glob was named, or several inputs: the outputs need a folder. */
  needsFolder: boolean;
}

export const STANDARD_INPUT = '-';
const DOCUMENT_EXTENSIONS = new Set(['.pdf', '.png', '.jpg', '.jpeg', '.tif', '.tiff']);
/** How far into a file a PDF's header may start (page-source.ts's detectFormat). */
const SIGNATURE_BYTES = 1024;

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

function reason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' ? 'no such file or folder' : code === 'EACCES' ? 'permission denied' : (err as Error).message;
}

/** Whether a file's first bytes are a document's signature; null where they cannot be read. */
function hasDocumentSignature(path: string): boolean | null {
  let fd: number;
  try {
    // Non-blocking: a file that became a FIFO since it was listed is not waited on.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const head = Buffer.alloc(SIGNATURE_BYTES);
    return detectFormat(head.subarray(0, readSync(fd, head, 0, SIGNATURE_BYTES, 0))) !== null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

function isBelow(folder: string, path: string): boolean {
  const below = relative(folder, path);
  return below !== '' && !below.startsWith('..') && !isAbsolute(below);
}

const byCodePoint = (a: Dirent, b: Dirent): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

class InputLister {
  readonly list: ExpandedInputs = { inputs: [], skipped: [], failed: [], needsFolder: false };
  /** Files taken, by device and inode: a link or a second name is not read twice. */
  private readonly taken = new Map<string, string>();
  private readonly outId: string | null;

  constructor(out: string | null) {
    const stat = out === null ? null : statOrNull(out);
    this.outId = stat?.isDirectory() ? `${stat.dev}:${stat.ino}` : null;
  }

  /** Adds a file; false when it is one taken already. */
  add(path: string | null, folder: string, name: string): boolean {
    const shown = path === null ? 'standard input' : shownPath(path);
    const stat = path === null ? null : statOrNull(path);
    if (stat) {
      const id = `${stat.dev}:${stat.ino}`;
      const first = this.taken.get(id);
      if (first !== undefined) {
        this.list.skipped.push(`skipped ${shown}: the same file as ${first}`);
        return false;
      }
      this.taken.set(id, shown);
    }
    this.list.inputs.push({ path, shown, folder, name });
    return true;
  }

  /** Takes the documents below `root` whose path below it `accepts`, at most `depth` folders down. */
  walk(root: string, depth: number, accepts: (below: string) => boolean): void {
    let rootReal: string;
    try {
      rootReal = realpathSync(root);
    } catch (err) {
      this.list.failed.push({ shown: shownPath(root), reason: reason(err) });
      return;
    }
    const visit = (dir: string, parts: string[]): void => {
      let entries: Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true }).sort(byCodePoint);
      } catch (err) {
        this.list.failed.push({ shown: shownPath(dir), reason: reason(err) });
        return;
      }
      for (const entry of entries) {
        if (entry.name.startsWith('.')) continue;
        const path = join(dir, entry.name);
        const below = [...parts, entry.name];
        if (entry.isDirectory()) {
          if (below.length <= depth && !this.isOutFolder(path)) visit(path, below);
          continue;
        }
        if (!accepts(below.join('/'))) continue;
        const skip = (why: string) => this.list.skipped.push(`skipped ${shownPath(path)}: ${why}`);
        if (entry.isSymbolicLink()) {
          const target = statOrNull(path);
          let real: string | null = null;
          try {
            real = realpathSync(path);
          } catch {
            // A broken link: said below.
          }
          if (!target || real === null) skip('a broken link');
          else if (!isBelow(rootReal, real)) skip('a link that leads outside the folder');
          else if (!target.isFile()) skip(target.isDirectory() ? 'a link to a folder' : 'not a regular file');
          else this.take(path, parts, entry.name, skip);
        } else if (entry.isFile()) this.take(path, parts, entry.name, skip);
        else skip('not a regular file');
      }
    };
    visit(root, []);
  }

  private isOutFolder(path: string): boolean {
    if (this.outId === null) return false;
    const stat = statOrNull(path);
    return stat !== null && `${stat.dev}:${stat.ino}` === this.outId;
  }

  private take(path: string, parts: string[], name: string, skip: (why: string) => void): void {
    if (hasDocumentSignature(path) === false && !DOCUMENT_EXTENSIONS.has(extname(name).toLowerCase())) {
      skip('not a PDF, PNG, JPEG or TIFF file');
      return;
    }
    this.add(path, parts.length === 0 ? '' : join(...parts), name);
  }
}

/** The inputs the typed arguments name, in order; `out`: the output folder (absolute), never read itself. */
export function expandInputs(typed: string[], out: string | null): ExpandedInputs {
  const lister = new InputLister(out);
  const { list } = lister;
  list.needsFolder = typed.length > 1;
  for (const arg of typed) {
    if (arg === STANDARD_INPUT) {
      lister.add(null, '', 'stdin');
      continue;
    }
    const path = userPath(arg);
    const stat = statOrNull(path);
    const taken = list.inputs.length;
    const failures = list.failed.length;
    // A folder or glob that gives nothing to read fails, unless a failure below it says why already.
    const nothingFrom = (shown: string, why: string) => {
      if (list.inputs.length === taken && list.failed.length === failures) list.failed.push({ shown, reason: why });
    };
    if (stat?.isDirectory()) {
      list.needsFolder = true;
      lister.walk(path, Infinity, () => true);
      nothingFrom(shownPath(path), 'no PDF, PNG, JPEG or TIFF file in it');
    } else if (!stat && isGlob(arg)) {
      list.needsFolder = true;
      const glob = parseGlob(arg);
      lister.walk(userPath(glob.base), glob.depth, glob.matches);
      nothingFrom(arg, 'no PDF, PNG, JPEG or TIFF file matches it');
    } else {
      // A file named itself is read whatever it holds, and fails with a line where it is not a document.
      lister.add(path, '', basename(path));
    }
  }
  return list;
}
