// Finds processes the test started, by walking /proc from a known parent (Linux only): used to kill the
// engine process of a test's own server, by id, to check that the UI survives an engine crash.
import { readdirSync, readFileSync } from 'node:fs';

function children(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

/** Descendants of `pid` whose command line contains `needle`. */
export function findDescendants(pid: number, needle: string): number[] {
  const found: number[] = [];
  const queue = [pid];
  while (queue.length) {
    for (const child of children(queue.shift()!)) {
      queue.push(child);
      try {
        if (readFileSync(`/proc/${child}/cmdline`, 'utf8').includes(needle)) found.push(child);
      } catch {
        // As above.
      }
    }
  }
  return found;
}
