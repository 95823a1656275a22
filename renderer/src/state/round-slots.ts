// What happened to each drafted slot of a round (docs/decisions/0016). The round's one forward verifies the
// guesses the previous block left: accepted while they match the verifier, the first mismatch corrected (the
// verifier's token committed instead), the rest discarded. When every guess held, the verifier's own next
// token is free (the new block's first draft stood in its slot) and the block's later drafts are carried to
// the next round as its guesses; after a mismatch the new block is discarded. The MTP head drafts after the
// verifier's token, from what was committed, so its drafts always go on to the next round (0018).
import type { RoundEvent } from '../../../common/engine-types';

export type SlotFate = 'accepted' | 'corrected' | 'discarded' | 'free' | 'carried';

export interface Slot {
  fate: SlotFate;
  /** The drafted token id (none for the verifier's token of a plain AR step). */
  draft: number | null;
  /** The token committed in this position, when one was. */
  committed: number | null;
  draftConf: number | null;
}

export function roundSlots(round: RoundEvent): Slot[] {
  const slots: Slot[] = [];
  const checked = round.draft.length - round.blockSize;
  const n = round.committed.length;
  const held = n > checked;
  const mtp = round.drafter === 'mtp';
  const checkedSlot = (j: number): Slot => {
    const draft = round.draft[j]!;
    const committed = j < n ? round.committed[j]! : null;
    const fate: SlotFate = committed === null ? 'discarded' : committed === draft ? 'accepted' : 'corrected';
    return { fate, draft, committed, draftConf: round.draftConf[j] ?? null };
  };
  for (let j = 0; j < checked; j++) slots.push(checkedSlot(j));
  const verifierFree = held && (mtp || round.blockSize === 0);
  if (verifierFree) slots.push({ fate: 'free', draft: null, committed: round.committed[checked]!, draftConf: null });
  for (let j = checked; j < round.draft.length; j++) {
    const fate: SlotFate = mtp ? 'carried' : !held ? 'discarded' : j === checked ? 'free' : 'carried';
    slots.push({ fate, draft: round.draft[j]!, committed: fate === 'free' ? round.committed[j]! : null, draftConf: round.draftConf[j] ?? null });
  }
  return slots;
}
