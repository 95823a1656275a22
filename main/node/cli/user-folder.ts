// The folder the user typed a command in. `npm run` starts its scripts in the project's folder, so a relative
// path an operator typed (`npm run ocr -- scans -o out`) would be read from and written to the wrong place;
// npm says where the user was in INIT_CWD. The CLI and the batch commands resolve every path they are given
// here, and nowhere else.
import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';

function sameFolder(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/**
 * INIT_CWD counts only while this process runs in the folder of the package npm ran the script for
 * (npm_package_json): both variables are inherited by every process below npm, and a program started
 * elsewhere (a test in a scratch folder, a shell opened from a script) was typed in its own folder.
 */
export function userFolder(env: NodeJS.ProcessEnv = process.env): string {
  const typedIn = env.INIT_CWD;
  const packageJson = env.npm_package_json;
  if (typedIn && isAbsolute(typedIn) && packageJson && isAbsolute(packageJson) && sameFolder(dirname(packageJson), process.cwd())) {
    return typedIn;
  }
  return process.cwd();
}

/** A path as the user typed it, absolute: relative ones are taken from the folder the command was typed in. */
export function userPath(typed: string, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(userFolder(env), typed);
}

/** An absolute path as a line shows it: below the folder the command was typed in, as the user would type it. */
export function shownPath(absolute: string, env: NodeJS.ProcessEnv = process.env): string {
  const below = relative(userFolder(env), absolute);
  return below === '' ? '.' : below.startsWith('..') || isAbsolute(below) ? absolute : below;
}
