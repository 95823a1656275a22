// The round under the pointer, else the one picked, else the newest: the line it was reading and the words it
// wrote, and each drafted slot as a chip, accepted, corrected (the draft struck through, the verifier's token
// beside it), discarded or carried to the next round, with the round's cost.
import { useSessionState } from '../app/session-context';
import { roundSlots } from '../state/round-slots';
import { useFrameRevision } from './use-frame-revision';

function show(text: string): string {
  return text.replace(/\n/g, '↵').replace(/ /g, '·') || '∅';
}

export function RoundDetail() {
  useFrameRevision();
  const run = useSessionState((s) => s.run);
  const selected = useSessionState((s) => s.hoveredRound ?? s.selectedRound);
  const pickedRound = useSessionState((s) => s.selectedRound);
  const vocab = useSessionState((s) => s.vocab);
  const timeline = run?.timeline ?? [];
  const index = selected ?? timeline.length - 1;
  const entry = timeline[index];
  if (!run || !entry) {
    return (
      <section className="panel round-panel">
        <header className="panel-header"><span>Round</span></header>
        <p className="empty">Each round verifies the last block's drafts and drafts the next block in one forward pass. Hover the timeline to inspect a round; click one to keep it here.</p>
      </section>
    );
  }
  const round = entry.event;
  const picked = index === pickedRound;
  const region = run.regions.get(entry.regionId);
  // Committed tokens of this round carry their text; other drafted ids fall back to the model's vocabulary.
  const texts = new Map<number, string>();
  for (const t of region?.tokens ?? []) if (t.round === round.round) texts.set(t.id, t.text);
  const text = (id: number | null) => (id === null ? '' : texts.get(id) ?? vocab[id] ?? `#${id}`);
  const slots = roundSlots(round);
  const wrote = (region?.tokens ?? []).filter((t) => t.round === round.round);
  // A text block is read line by line: the line is the tokens read from the same crop as this round's.
  const frame = wrote[0]?.fixation?.frame?.box;
  const sameFrame = (t: { fixation: { frame?: { box: unknown } } | null }) => JSON.stringify(t.fixation?.frame?.box) === JSON.stringify(frame);
  const line = frame ? (region?.tokens ?? []).filter(sameFrame).map((t) => t.text).join('').trim() : null;

  return (
    <section className="panel round-panel" data-testid="round-detail" data-round={index} data-picked={picked}>
      <header className="panel-header">
        <span>Round {index + 1}{picked ? ' (picked)' : ''}</span>
        <span className="muted">{region?.kind ?? ''} region · block {round.blockSize} · {round.committed.length} committed in {round.forwards} {round.forwards === 1 ? 'forward' : 'forwards'} · {(round.draftMs + round.verifyMs).toFixed(1)} ms</span>
      </header>
      <p className="round-line" data-testid="round-wrote">
        {line ? <>Line <q>{line.length > 90 ? `${line.slice(0, 90)}…` : line}</q>: </> : `In the ${region?.kind ?? ''} region: `}
        {wrote.length > 0
          ? <>wrote <q className="round-words">{wrote.map((t) => t.text).join('')}</q></>
          // Its tokens were committed, then taken back: a loop the repetition guard cut, or a line read again
          // in a second view or dropped as too unsure. What it wrote is still worth seeing.
          : <>wrote <q className="round-words">{round.committed.map(text).join('')}</q>, since taken back (a loop cut short, or its line read again or left out as too unsure)</>}
      </p>
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
