// The sample documents shipped with the app (assets/samples, indexed by samples.json).
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { SampleInfo } from '../../../../common/protocol';
import { resourceRoot } from '../../engine/native-addon';

export function samplesDir(): string {
  return join(resourceRoot(), 'assets', 'samples');
}

export function listSamples(): SampleInfo[] {
  const index = join(samplesDir(), 'samples.json');
  if (!existsSync(index)) return [];
  const parsed = JSON.parse(readFileSync(index, 'utf8')) as unknown;
  if (!Array.isArray(parsed)) throw new Error(`${index} must hold a list of {name, title}`);
  return parsed
    .filter((s): s is SampleInfo => typeof s?.name === 'string' && typeof s?.title === 'string')
    .filter((s) => existsSync(join(samplesDir(), s.name)));
}

export function readSample(name: string): { name: string; bytes: Uint8Array } {
  // Only names from the index, so a request cannot reach outside the samples folder.
  if (basename(name) !== name || !listSamples().some((s) => s.name === name)) throw new Error(`no sample named ${JSON.stringify(name)}`);
  return { name, bytes: new Uint8Array(readFileSync(join(samplesDir(), name))) };
}
