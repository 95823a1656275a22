// localStorage's contract in memory, for the renderer's state tests; `quota` (characters over keys and
// values) makes it refuse a write the way a full localStorage does, by throwing.
import type { KeyValueStore } from '../../renderer/src/state/persisted';

export interface MemoryStorage extends KeyValueStore {
  map: Map<string, string>;
  quota: number;
}

export function memoryStorage(quota = Infinity): MemoryStorage {
  const map = new Map<string, string>();
  const used = () => [...map].reduce((n, [k, v]) => n + k.length + v.length, 0);
  const storage: MemoryStorage = {
    map,
    quota,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => {
      if (used() - (map.has(k) ? k.length + map.get(k)!.length : 0) + k.length + v.length > storage.quota) {
        throw new Error("QuotaExceededError: the quota has been exceeded");
      }
      map.set(k, v);
    },
    removeItem: (k) => void map.delete(k),
  };
  return storage;
}
