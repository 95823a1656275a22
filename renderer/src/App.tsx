import { useEffect, useState } from 'react';
import type { Transport } from './transport/transport';

export function App({ transport }: { transport: Transport }) {
  const [engine, setEngine] = useState<string>('connecting to the engine…');
  useEffect(() => {
    transport.request('hello', {}).then(
      (h) => setEngine(`${h.engine.backend} engine · ${h.model.name}`),
      (e: Error) => setEngine(`engine unavailable: ${e.message}`),
    );
  }, [transport]);
  return (
    <main className="app-shell" data-testid="app-shell">
      <h1>Saccade</h1>
      <p data-testid="engine-status">{engine}</p>
    </main>
  );
}
