// The model folders the user loaded before, most recent first, kept in one small JSON file: Electron's
// user-data folder, or the user's config folder in browser mode (main/node/engine-host.ts picks it). The
// file is ours but may be edited or stale, so what it holds is read as untrusted: entries that are not
// paths of existing folders are dropped, and the list is cut to MAX_RECENT_MODEL_FOLDERS.
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import { MAX_MODEL_PATH_CHARS } from '../../../common/protocol';
import { readRegularFile } from '../inputs/input-file';

export const MAX_RECENT_MODEL_FOLDERS = 8;

/** The list's file at its longest: every path at its longest, each character escaped as \uXXXX. */
const MAX_RECENT_FILE_BYTES = MAX_RECENT_MODEL_FOLDERS * (6 * MAX_MODEL_PATH_CHARS + 3) + 2;

function isFolder(path: unknown): path is string {
  if (typeof path !== 'string' || path.length === 0 || path.length > MAX_MODEL_PATH_CHARS || !isAbsolute(path)) return false;
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export class RecentModelFolders {
  /** `file`: where the list lives; null keeps it in memory only (tests, a config folder that cannot be found). */
  constructor(private readonly file: string | null) {}

  private memory: string[] = [];

  list(): string[] {
    let stored: unknown = this.memory;
    if (this.file) {
      try {
        // Read as any file a user could swap: a pipe or /dev/zero in its place must not stall every session.
        const bytes = readRegularFile(this.file, MAX_RECENT_FILE_BYTES, `the list is at most ${MAX_RECENT_FILE_BYTES} bytes`);
        stored = JSON.parse(new TextDecoder().decode(bytes));
      } catch {
        stored = [];
      }
    }
    if (!Array.isArray(stored)) return [];
    return [...new Set(stored.filter(isFolder))].slice(0, MAX_RECENT_MODEL_FOLDERS);
  }

  /** Puts `folder` first (once), keeping the list's bound. */
  add(folder: string): string[] {
    const list = [folder, ...this.list().filter((p) => p !== folder)].filter(isFolder).slice(0, MAX_RECENT_MODEL_FOLDERS);
    this.memory = list;
    if (this.file) {
      try {
        mkdirSync(dirname(this.file), { recursive: true });
        writeFileSync(this.file, JSON.stringify(list));
      } catch {
        // Not remembering a folder is harmless: the picker still loads any folder given again.
      }
    }
    return list;
  }
}
