// The session (store + actions) reaches components through context, so tests can mount views on their own.
import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { Session, SessionState } from '../state/session-store';

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a SessionContext');
  return session;
}

export function useSessionState<T>(selector: (s: SessionState) => T): T {
  return useStore(useSession().store, selector);
}
