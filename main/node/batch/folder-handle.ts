// A folder under the root opened once, each folder on the way opened without following a link, and every file
// after that named through the open handle. A check of a path followed by writes to that path leaves a gap: the
// shared storage is writable by others, and a folder swapped for a link between the check and a write would
// send the write outside the root. Through the handle, a write lands in the folder that was opened, wherever
// it has been moved since. Node has no openat(), so the handle is named by Linux's /proc/self/fd/<fd>, which
// the kernel resolves to the open folder itself: the batch workers run on Linux.
import { closeSync, constants, existsSync, mkdirSync, openSync, realpathSync } from 'node:fs';
import { isAbsolute } from 'node:path';

const DIRECTORY = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** One name inside a folder: not empty, no separator, not '.' or '..', no NUL. */
function checkName(name: string): string {
  if (name === '' || name === '.' || name === '..' || /[\\/\0]/.test(name)) throw new Error(`${JSON.stringify(name)} is not a file name`);
  return name;
}

export class FolderHandle {
  private constructor(private fd: number, readonly shown: string) {}

  /**
   * `rel`, a relative path with no '..', under `root` (the worker's own, trusted: links in it are resolved).
   * `create`: folders that do not exist are made. Throws one line where a folder on the way is a link or a file.
   */
  static open(root: string, rel: string, create: boolean): FolderHandle {
    if (!existsSync('/proc/self/fd')) throw new Error('batch workers need Linux (/proc/self/fd) to write outputs through open folders');
    if (isAbsolute(rel)) throw new Error(`${rel} is not relative to the root`);
    let folder = new FolderHandle(openSync(realpathSync(root), DIRECTORY), '.');
    for (const part of rel.split(/[\\/]/).filter((p) => p !== '' && p !== '.')) {
      try {
        const next = folder.sub(part, create);
        folder.close();
        folder = next;
      } catch (err) {
        folder.close();
        throw err;
      }
    }
    return folder;
  }

  /** The path of `name` in this folder, through the handle. */
  at(name: string): string {
    if (this.fd < 0) throw new Error(`${this.shown} was closed`);
    return `/proc/self/fd/${this.fd}/${checkName(name)}`;
  }

  /** A folder in this one, opened without following a link; made first where `create` and missing. */
  sub(name: string, create: boolean): FolderHandle {
    const path = this.at(name);
    const shown = this.shown === '.' ? name : `${this.shown}/${name}`;
    if (create) {
      try {
        mkdirSync(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    try {
      return new FolderHandle(openSync(path, DIRECTORY), shown);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR' || code === 'ELOOP') throw new Error(`${shown} is a link or a file, not a folder: outputs are not written through links`);
      throw err;
    }
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}
