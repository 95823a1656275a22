// What happened to each drafted slot of a round (docs/decisions/0002): slot 1 is replaced by the verifier's
// free token; later slots are accepted while they match the verifier, the first mismatch is corrected (the
// verifier's token is committed instead), and everything after it is discarded. A round whose drafts all
// matched ends with the verifier's bonus token.
import type { RoundEvent } from '../../../common/engine-types';

export type SlotFate = 'free' | 'accepted' | 'corrected' | 'discarded' | 'bonus';

export interface Slot {
  fate: SlotFate;
  /** The drafted token id (none for the bonus). */
  draft: number | null;
  /** The token committed in this position, when one was. */
  committed: number | null;
  draftConf: number | null;
}

export function roundSlots(round: RoundEvent): Slot[] {
  const slots: Slot[] = [];
  const n = round.committed.length;
  for (let j = 0; j < round.draft.length; j++) {
    const draft = round.draft[j]!;
    const committed = j < n ? round.committed[j]! : null;
    let fate: SlotFate;
    if (j === 0) fate = 'free';
    else if (committed === null) fate = 'discarded';
    else fate = committed === draft ? 'accepted' : 'corrected';
    slots.push({ fate, draft, committed, draftConf: round.draftConf[j] ?? null });
  }
  if (n > round.draft.length) slots.push({ fate: 'bonus', draft: null, committed: round.committed[n - 1]!, draftConf: null });
  return slots;
}
