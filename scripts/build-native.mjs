// Builds the native engine with cmake-js against the Node-API headers package (no header download), so the
// same .node file loads in Node and in Electron. Missing tools are reported in one line, not a stack trace.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

function need(cmd, hint) {
  const r = spawnSync(cmd, ['--version'], { stdio: 'ignore' });
  if (r.error || r.status !== 0) {
    console.error(`saccade: '${cmd}' was not found. ${hint}`);
    process.exit(1);
  }
}

need('cmake', 'Install CMake 3.20+ (Debian/Ubuntu: apt-get install cmake).');
need('c++', 'Install a C++17 compiler (Debian/Ubuntu: apt-get install g++).');

const cmakeJs = 'node_modules/cmake-js/bin/cmake-js';
if (!existsSync(cmakeJs)) {
  console.error("saccade: cmake-js is missing from node_modules; run 'npm install' first.");
  process.exit(1);
}
const args = [cmakeJs, 'compile', '--directory', 'native', '--out', 'native/build', '--config', 'Release'];
if (process.env.SACCADE_NO_CUDA === '1') args.push('--CDSACCADE_CUDA=OFF');
const r = spawnSync(process.execPath, args, { stdio: 'inherit' });
process.exit(r.status ?? 1);
