// Re-renders a component at most once per animation frame while the token stream advances: for small panels
// whose numbers change with every batch, without a React render per token.
import { useEffect, useState } from 'react';
import { useSession } from '../app/session-context';

export function useFrameRevision(): number {
  const { store } = useSession();
  const [frames, setFrames] = useState(0);
  useEffect(() => {
    let frame = 0;
    const unsubscribe = store.subscribe((s, prev) => {
      if (s.revision === prev.revision && s.run === prev.run && s.selectedRound === prev.selectedRound && s.hoveredRound === prev.hoveredRound && s.phase === prev.phase) return;
      if (!frame) frame = requestAnimationFrame(() => { frame = 0; setFrames((n) => n + 1); });
    });
    return () => { unsubscribe(); if (frame) cancelAnimationFrame(frame); };
  }, [store]);
  return frames;
}
