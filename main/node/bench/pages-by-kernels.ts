// The bench's page section once per CPU kernel set, each in a process of its own with SACCADE_CPU_KERNELS set:
// the engine picks its kernels when a backend is made and the page networks are loaded once per process, so a
// set can only be measured whole in a fresh one. Most users' CPUs run AVX2 and no AVX-512; this is how a
// machine with AVX-512 measures their path beside its own, in the same run.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PagesRunArgs {
  script: string;
  pages: number;
  model: string;
  data: string | null;
}

/** The sets measured unless told: every one the CPU runs but the portable kernels, which no user is left with. */
export function defaultKernelSets(runnable: readonly string[]): string[] {
  return runnable.filter((s) => s !== 'generic');
}

/** `bench --pages-only` under each kernel set: its page section, or the reason it has none. */
export function pagesByKernelSet(sets: readonly string[], run: PagesRunArgs, log: (line: string) => void): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const set of sets) {
    const dir = mkdtempSync(join(tmpdir(), 'saccade-bench-kernels-'));
    const json = join(dir, 'pages.json');
    log(`bench: the page section on the ${set} kernels`);
    const r = spawnSync(process.execPath, [run.script, '--pages-only', '--pages', String(run.pages), '--model', run.model,
      ...(run.data ? ['--data', run.data] : []), '--json', json], {
      env: { ...process.env, SACCADE_CPU_KERNELS: set }, stdio: ['ignore', 'inherit', 'inherit'],
    });
    try {
      out[set] = r.status === 0 ? (JSON.parse(readFileSync(json, 'utf8')) as { pages: unknown }).pages : { error: `exit status ${r.status}` };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}
