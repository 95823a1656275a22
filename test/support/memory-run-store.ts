// The run store's contract in memory, for the renderer's state tests; `quota` (bytes over all runs) makes it
// refuse a write the way a full IndexedDB does, by rejecting.
import type { RunStore } from '../../renderer/src/state/run-store';

export interface MemoryRunStore extends RunStore {
  map: Map<string, Uint8Array>;
  quota: number;
}

export function memoryRunStore(quota = Infinity): MemoryRunStore {
  const map = new Map<string, Uint8Array>();
  const store: MemoryRunStore = {
    map,
    quota,
    put: async (key, bytes) => {
      const used = [...map].reduce((n, [k, v]) => n + (k === key ? 0 : v.length), 0);
      if (used + bytes.length > store.quota) throw new Error('QuotaExceededError');
      map.set(key, bytes.slice());
    },
    get: async (key) => map.get(key) ?? null,
    delete: async (key) => void map.delete(key),
    keys: async () => [...map.keys()],
  };
  return store;
}
