// Open Recent: the last files opened through main, kept in the user's data folder.
import { app } from 'electron';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const MAX = 10;
const file = () => join(app.getPath('userData'), 'recent-files.json');

export function recentFiles(): string[] {
  try {
    const list = JSON.parse(readFileSync(file(), 'utf8')) as unknown;
    return Array.isArray(list) ? list.filter((p): p is string => typeof p === 'string' && existsSync(p)) : [];
  } catch {
    return [];
  }
}

export function addRecentFile(path: string): void {
  const list = [path, ...recentFiles().filter((p) => p !== path)].slice(0, MAX);
  try {
    writeFileSync(file(), JSON.stringify(list));
  } catch {
    // Not remembering a recent file is harmless.
  }
  app.addRecentDocument(path);
}

export function clearRecentFiles(): void {
  try {
    writeFileSync(file(), '[]');
  } catch {
    // As above.
  }
  app.clearRecentDocuments();
}
