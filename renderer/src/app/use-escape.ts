// Escape closes the popover or dialog opened last, before it means anything else (a decode under way is not
// cancelled by the Escape that closes the settings). App's shortcut handler asks closeTopmost() first.
import { useEffect } from 'react';

const open: Array<() => void> = [];

export function useEscape(close: () => void): void {
  useEffect(() => {
    open.push(close);
    return () => {
      const at = open.lastIndexOf(close);
      if (at >= 0) open.splice(at, 1);
    };
  }, [close]);
}

/** Closes what was opened last; false when nothing is open. */
export function closeTopmost(): boolean {
  const close = open.at(-1);
  close?.();
  return close !== undefined;
}
