// The round under the pointer (or the newest one): each drafted slot as a chip, accepted, corrected (the
// draft struck through, the verifier's token beside it), discarded or carried to the next round, with the
// round's cost.
import { useSessionState } from '../app/session-context';
import { roundSlots } from '../state/round-slots';
import { useFrameRevision } from './use-frame-revision';

function show(text: string): string {
  return text.replace(/\n/g, '↵').replace(/ /g, '·') || '∅';
}

export function RoundDetail() {
  useFrameRevision();
  const run = useSessionState((s) => s.run);
  const selected = useSessionState((s) => s.selectedRound);
  const vocab = useSessionState((s) => s.vocab);
  const timeline = run?.timeline ?? [];
  const index = selected ?? timeline.length - 1;
  const entry = timeline[index];
  if (!run || !entry) {
    return (
      <section className="panel round-panel">
        <header className="panel-header"><span>Round</span></header>
        <p className="empty">Each round verifies the last block's drafts and drafts the next block in one forward pass. Hover the timeline to inspect a round.</p>
      </section>
    );
  }
  const round = entry.event;
  const region = run.regions.get(entry.regionId);
  // Committed tokens of this round carry their text; other drafted ids fall back to the model's vocabulary.
  const texts = new Map<number, string>();
  for (const t of region?.tokens ?? []) if (t.round === round.round) texts.set(t.id, t.text);
  const text = (id: number | null) => (id === null ? '' : texts.get(id) ?? vocab[id] ?? `#${id}`);
  const slots = roundSlots(round);

  return (
    <section className="panel round-panel" data-testid="round-detail">
      <header className="panel-header">
        <span>Round {index + 1}</span>
        <span className="muted">{region?.kind ?? ''} region · block {round.blockSize} · {round.committed.length} committed in {round.forwards} {round.forwards === 1 ? 'forward' : 'forwards'} · {(round.draftMs + round.verifyMs).toFixed(1)} ms</span>
      </header>
      <div className="slots">
        {slots.map((slot, j) => (
          <span key={j} className={`slot slot-${slot.fate}`} title={slot.draftConf !== null ? `draft p=${slot.draftConf.toFixed(2)}` : "the verifier's token"}>
            {slot.fate === 'corrected' || (slot.fate === 'free' && slot.draft !== null && slot.draft !== slot.committed)
              ? <><s>{show(text(slot.draft))}</s><b>{show(text(slot.committed))}</b></>
              : <b>{show(text(slot.fate === 'discarded' || slot.fate === 'carried' ? slot.draft : slot.committed))}</b>}
          </span>
        ))}
      </div>
      <div className="slot-legend">
        <span className="slot slot-accepted">accepted</span>
        <span className="slot slot-corrected">corrected</span>
        <span className="slot slot-discarded">discarded</span>
        <span className="slot slot-free">verifier's token</span>
        <span className="slot slot-carried">next round's guess</span>
      </div>
    </section>
  );
}
