// Whether this machine has what scripts/system-packages.txt lists, so that `npm test` can say in one line
// what is missing and how to install it, before a suite fails on it with a stack trace. On Debian the list
// is checked package by package with dpkg-query; elsewhere the names mean nothing, so the Python modules and
// executables the tests use are checked instead. Prints that line and exits 1 when something is missing:
// `node scripts/check-system-packages.mjs [list]` (the list defaults to scripts/system-packages.txt).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const INSTALL_COMMAND = 'sudo apt-get install --no-install-recommends';

const PYTHON_MODULES = ['cv2', 'torch', 'numpy', 'PIL', 'pytest', 'matplotlib', 'onnx'];
const EXECUTABLES = ['tesseract', 'pdftoppm'];

function readPackageList(path) {
  return readFileSync(path, 'utf8').split('\n').flatMap((line) => line.replace(/#.*/, '').trim().split(/\s+/)).filter(Boolean);
}

function hasDpkg() {
  const r = spawnSync('dpkg-query', ['--version'], { stdio: 'ignore' });
  return !r.error && r.status === 0;
}

function missingDebianPackages(packages) {
  // Packages dpkg has never heard of are reported on stderr and are simply absent from stdout.
  const r = spawnSync('dpkg-query', ['-W', '-f=${Package} ${Status}\n', ...packages], { encoding: 'utf8' });
  const installed = new Set((r.stdout ?? '').split('\n').filter((l) => l.endsWith(' install ok installed')).map((l) => l.split(' ')[0]));
  return packages.filter((p) => !installed.has(p));
}

function onPath(name) {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, name)));
}

function missingPythonModules(python) {
  // find_spec looks a module up without importing it (importing torch alone takes seconds).
  const probe = 'import importlib.util, sys; print(" ".join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))';
  const r = spawnSync(python, ['-c', probe, ...PYTHON_MODULES], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return null;
  return r.stdout.trim().split(/\s+/).filter(Boolean);
}

/**
 * One line naming what is missing and the command that installs it, or null when nothing is. `python` and
 * `chromium` are the interpreter and browser the tests will run.
 */
function missingPrerequisites({ python, chromium, listPath }) {
  const packages = readPackageList(listPath);
  if (hasDpkg()) {
    const missing = missingDebianPackages(packages);
    return missing.length === 0 ? null
      : `saccade: missing system packages (scripts/system-packages.txt): ${missing.join(' ')}; install them with: ${INSTALL_COMMAND} ${missing.join(' ')}`;
  }
  const modules = missingPythonModules(python);
  const parts = [
    modules === null ? `Python itself (${python})` : modules.length > 0 ? `Python modules ${modules.join(', ')} (for ${python})` : null,
    ...EXECUTABLES.filter((e) => !onPath(e)),
    existsSync(chromium) ? null : `Chromium (${chromium})`,
  ].filter(Boolean);
  return parts.length === 0 ? null
    : `saccade: missing for the tests: ${parts.join(', ')}; install this system's equivalents of scripts/system-packages.txt (on Debian: ${INSTALL_COMMAND} ${packages.join(' ')})`;
}

const line = missingPrerequisites({
  python: process.env.SACCADE_PYTHON ?? '/usr/bin/python3',
  chromium: process.env.SACCADE_CHROMIUM ?? '/usr/bin/chromium',
  listPath: process.argv[2] ?? fileURLToPath(new URL('system-packages.txt', import.meta.url)),
});
if (line) console.error(line);
process.exit(line ? 1 : 0);
