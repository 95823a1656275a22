// Where kept decodes live: IndexedDB, in the browser and in Electron's windows alike (the app:// scheme is a
// standard, secure one, so its pages have their own). localStorage holds about five million characters in all,
// a few dense pages' decodes; IndexedDB holds what the disk allows, and stores bytes as bytes.
export interface RunStore {
  /** Rejects when storage refuses the bytes (full, or unavailable). */
  put(key: string, bytes: Uint8Array): Promise<void>;
  get(key: string): Promise<Uint8Array | null>;
  delete(key: string): Promise<void>;
  keys(): Promise<string[]>;
}

const DATABASE = 'saccade';
const RUNS = 'runs';

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new Error('IndexedDB request failed'));
  });
}

/** The browser's store of kept decodes; null where the page has no IndexedDB. */
export function indexedDbRunStore(): RunStore | null {
  if (typeof indexedDB === 'undefined') return null;
  let opened: Promise<IDBDatabase> | null = null;
  const database = () => {
    opened ??= new Promise((resolve, reject) => {
      const open = indexedDB.open(DATABASE, 1);
      open.onupgradeneeded = () => open.result.createObjectStore(RUNS);
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => {
        opened = null;
        reject(open.error ?? new Error('IndexedDB could not be opened'));
      };
    });
    return opened;
  };
  const runs = async (mode: IDBTransactionMode) => (await database()).transaction(RUNS, mode).objectStore(RUNS);
  return {
    async put(key, bytes) {
      const store = await runs('readwrite');
      // A write counts once its transaction commits: a full disk or quota surfaces there.
      const committed = new Promise<void>((resolve, reject) => {
        store.transaction.oncomplete = () => resolve();
        store.transaction.onerror = store.transaction.onabort = () => reject(store.transaction.error ?? new Error('IndexedDB refused the write'));
      });
      store.put(bytes, key);
      await committed;
    },
    async get(key) {
      const value: unknown = await request((await runs('readonly')).get(key));
      return value instanceof Uint8Array ? value : null;
    },
    async delete(key) {
      await request((await runs('readwrite')).delete(key));
    },
    async keys() {
      return (await request((await runs('readonly')).getAllKeys())).filter((k): k is string => typeof k === 'string');
    },
  };
}
