// The one list of system packages: the README's install command names exactly its packages, and the check
// `npm test` runs first names what is missing, with the command that installs it, in one line.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const root = join(__dirname, '..', '..');
const listPath = join(root, 'scripts', 'system-packages.txt');
const hasDpkg = !spawnSync('dpkg-query', ['--version'], { stdio: 'ignore' }).error;

/** The list's names: whitespace-separated, '#' comments. */
function listed(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n').flatMap((l) => l.replace(/#.*/, '').trim().split(/\s+/)).filter(Boolean);
}

function check(list: string | null, env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync(process.execPath, ['scripts/check-system-packages.mjs', ...(list ? [list] : [])], { cwd: root, env, encoding: 'utf8' });
  return { status: r.status, lines: r.stderr.trim().split('\n').filter(Boolean) };
}

test("the README's apt-get command installs exactly the listed packages", () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const prerequisites = readme.slice(readme.indexOf('## Prerequisites'), readme.indexOf('\n## ', readme.indexOf('## Prerequisites') + 1));
  const commands = prerequisites.replace(/\\\n/g, ' ').split('\n').filter((l) => /apt-get install/.test(l));
  assert.equal(commands.length, 1, 'the Prerequisites show one install command');
  const names = commands[0]!.slice(commands[0]!.indexOf('apt-get install') + 'apt-get install'.length).trim().split(/\s+/).filter((w) => !w.startsWith('-'));
  assert.deepEqual(names, listed(listPath));
  assert.ok(names.includes('python3-opencv') && names.includes('python3-onnx') && names.includes('tesseract-ocr'));
});

test('a package missing from a Debian system is named in one line with its install command', { skip: hasDpkg ? false : 'no dpkg-query here' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'saccade-packages-'));
  const list = join(dir, 'packages.txt');
  writeFileSync(list, '# installed wherever the check runs\ncoreutils\nsaccade-no-such-package # never\n');
  const { status, lines } = check(list);
  rmSync(dir, { recursive: true });
  assert.equal(status, 1);
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /missing system packages .*: saccade-no-such-package; install them with: sudo apt-get install --no-install-recommends saccade-no-such-package$/);
  assert.doesNotMatch(lines[0]!, /coreutils/);
});

test('without dpkg, the Python modules, executables and browser the tests use are checked', () => {
  // A PATH holding only node: no dpkg-query, no tesseract, no pdftoppm.
  const bin = mkdtempSync(join(tmpdir(), 'saccade-path-'));
  symlinkSync(process.execPath, join(bin, 'node'));
  const { status, lines } = check(null, { PATH: bin, SACCADE_PYTHON: '/usr/bin/python3', SACCADE_CHROMIUM: join(bin, 'no-chromium') });
  rmSync(bin, { recursive: true });
  assert.equal(status, 1);
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^saccade: missing for the tests: tesseract, pdftoppm, Chromium \(.*no-chromium\); install .*scripts\/system-packages\.txt \(on Debian: sudo apt-get install --no-install-recommends cmake g\+\+/);
  assert.doesNotMatch(lines[0]!, /Python/, "this machine's Python has every module the tests import");
});
