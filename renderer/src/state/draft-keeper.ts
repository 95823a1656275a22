// The open document's text as the editor holds it, autosaved as its draft. Decoding again replaces the
// text, so an edited text is first set aside in the draft, where the user can restore it, even after a
// reload: an edit is never lost without the user's say. What storage did with a save that the user must
// know about (it refused the text; it dropped other documents' decoded text) comes back as a notice.
import { MAX_RECENT, saveDraft, type DocumentSource, type Draft, type SaveOutcome, type SetAsideText } from './drafts';
import type { KeyValueStore } from './persisted';

const AUTOSAVE_MS = 400;

export interface KeptDocument {
  key: string;
  name: string;
  source: DocumentSource;
}

export interface DraftNotice {
  kind: 'error' | 'info';
  text: string;
}

export interface KeeperReport {
  setAside: SetAsideText[];
  /** Only where this save changed something the user must be told. */
  notice: DraftNotice | null;
}

const names = (list: Array<{ name: string }>) => list.map((d) => d.name).join(', ');

/** What the user is told about a save; a refusal only when the save before it went through. */
export function noticeFor(outcome: SaveOutcome, name: string, refusedBefore: boolean): DraftNotice | null {
  if (!outcome.saved) {
    return refusedBefore ? null : {
      kind: 'error',
      text: `The text of ${name} could not be saved in this browser's storage (it is full or unavailable), so a reload would lose it: export the Markdown to keep it, or forget documents you are done with under Recent on the welcome page.`,
    };
  }
  if (outcome.dropped.length > 0) {
    return {
      kind: 'info',
      text: `Saccade keeps the text of the ${MAX_RECENT} most recent documents: it dropped the decoded text of ${names(outcome.dropped)}, which held no edits (decoding again brings it back).`,
    };
  }
  if (outcome.crowded !== null) {
    return {
      kind: 'info',
      text: `${outcome.crowded} documents keep text in this browser, more than the ${MAX_RECENT} Saccade keeps otherwise, because the older ones hold edits and edits are never dropped on their own: forget the documents you are done with under Recent on the welcome page.`,
    };
  }
  return null;
}

export class DraftKeeper {
  private doc: KeptDocument | null = null;
  private text = '';
  private edited = false;
  private setAside: SetAsideText[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private refused = false;

  constructor(private readonly storage: KeyValueStore | null, private readonly report: (r: KeeperReport) => void) {}

  /** Starts keeping a document's text, from its saved draft where it has one. */
  open(doc: KeptDocument, draft: Draft | null): void {
    this.flush();
    this.doc = doc;
    this.text = draft?.text ?? '';
    this.edited = draft?.edited ?? false;
    this.setAside = draft?.setAside ?? [];
  }

  close(): void {
    this.flush();
    this.doc = null;
  }

  /** The editor's text changed, by the user's hand or by the decode streaming in. */
  changed(text: string, byUser: boolean): void {
    if (!this.doc) return;
    this.text = text;
    this.edited ||= byUser;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), AUTOSAVE_MS);
  }

  /** A decode is about to replace the text: an edited one is set aside (and saved) first. */
  replaceForDecode(): void {
    const keep = this.edited && this.text.trim() !== '';
    if (keep) this.setAside = [{ text: this.text, savedAt: Date.now() }, ...this.setAside];
    this.text = '';
    this.edited = false;
    if (keep) this.save();
  }

  /**
   * Brings the newest set-aside text back as the document's text. The text it replaces is set aside in turn
   * where it holds edits of its own; decoded text is not, since decoding again brings it back.
   */
  restore(): Draft | null {
    const [restored, ...older] = this.setAside;
    if (!this.doc || !restored) return null;
    const replaced = this.edited && this.text.trim() !== '' && this.text !== restored.text;
    this.setAside = replaced ? [{ text: this.text, savedAt: Date.now() }, ...older] : older;
    this.text = restored.text;
    this.edited = true;
    this.save();
    return this.draft();
  }

  /** Drops the newest set-aside text, at the user's word. */
  discard(): void {
    if (!this.doc || this.setAside.length === 0) return;
    this.setAside = this.setAside.slice(1);
    this.save();
  }

  /** Saves a pending change now (before the page goes away, or another document comes). */
  flush(): void {
    if (this.timer) this.save();
  }

  private draft(): Draft {
    const doc = this.doc!;
    return { key: doc.key, name: doc.name, source: doc.source, text: this.text, edited: this.edited, savedAt: Date.now(), setAside: this.setAside };
  }

  private save(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.doc) return;
    const outcome = saveDraft(this.storage, this.draft());
    const notice = noticeFor(outcome, this.doc.name, this.refused);
    this.refused = !outcome.saved;
    this.report({ setAside: this.setAside, notice });
  }
}
