// The open document's text as the editor holds it, autosaved as its draft. A decode's text is kept beside
// the document's text while it runs and replaces it only when it finishes, with the user's corrections
// merged in (text-merge.ts); a decode that stops early, or a reload in the middle of one, leaves the text
// from before it. An edited text a decode replaces is also set aside in the draft, where the user can
// restore it, even after a reload: an edit is never lost without the user's say. What storage did with a
// save that the user must know about (it refused the text; it dropped other documents' decoded text) comes
// back as a notice.
import { MAX_RECENT, saveDraft, type DocumentSource, type Draft, type SaveOutcome, type SetAsideText } from './drafts';
import type { KeyValueStore } from './persisted';
import { mergeCorrections } from './text-merge';

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
  /** The text is what a decode that did not finish left. */
  partial: boolean;
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

export interface FinishedDecode {
  /** What the decode wrote. */
  decoded: string;
  /** The document's text now: the decode with the user's corrections merged in. */
  text: string;
  /** Places where the decode read differently from before and the user's correction was kept. */
  conflicts: number;
}

export class DraftKeeper {
  private doc: KeptDocument | null = null;
  private text = '';
  private edited = false;
  private decoded: string | null = null;
  private partial = false;
  private running: { text: string; edited: boolean } | null = null;
  private setAside: SetAsideText[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private refused = false;

  constructor(private readonly storage: KeyValueStore | null, private readonly report: (r: KeeperReport) => void) {}

  /**
   * Starts keeping a document's text, from its saved draft where it has one, and returns the draft to show.
   * A decode the draft records as running was cut off (a reload, a closed window): the text from before it
   * stays; only where there was none is the cut-off text shown, as partial.
   */
  open(doc: KeptDocument, draft: Draft | null): Draft | null {
    this.flush();
    this.doc = doc;
    this.text = draft?.text ?? '';
    this.edited = draft?.edited ?? false;
    this.decoded = draft?.decoded ?? null;
    this.partial = draft?.partial ?? false;
    this.setAside = draft?.setAside ?? [];
    this.running = draft?.running ?? null;
    const cutOff = this.running !== null;
    if (cutOff) {
      this.stop();
      this.save();
    }
    this.report(this.state(cutOff ? { kind: 'info', text: `A decode of ${doc.name} did not finish before the page was closed or reloaded: ${this.partial ? 'its text so far is shown, marked partial' : 'the text from before it is shown'}.` } : null));
    return draft && this.draft();
  }

  close(): void {
    this.flush();
    this.doc = null;
  }

  /** The text holds the user's changes (decoding again asks first). */
  get isEdited(): boolean {
    return this.edited;
  }

  /** The editor's text changed, by the user's hand or by the decode streaming in. */
  changed(text: string, byUser: boolean): void {
    if (!this.doc) return;
    if (this.running) {
      this.running.text = text;
      this.running.edited ||= byUser;
    } else {
      this.text = text;
      this.edited ||= byUser;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), AUTOSAVE_MS);
  }

  /** A decode starts: its text is kept apart, and an edited text is also set aside (and saved) first. */
  beginDecode(): void {
    if (!this.doc) return;
    if (this.edited && this.text.trim() !== '') this.setAside = [{ text: this.text, savedAt: Date.now() }, ...this.setAside];
    this.running = { text: '', edited: false };
    this.save();
  }

  /** The decode finished: its text, with the user's corrections of the text before it merged in, is the text. */
  finishDecode(): FinishedDecode | null {
    const running = this.running;
    if (!this.doc || !running) return null;
    const merged = this.edited && this.decoded !== null
      ? mergeCorrections(this.decoded, this.text, running.text)
      : { text: running.text, conflicts: 0 };
    this.text = merged.text;
    this.edited = running.edited || merged.text !== running.text;
    this.decoded = running.text;
    this.partial = false;
    this.running = null;
    this.save();
    return { decoded: running.text, text: merged.text, conflicts: merged.conflicts };
  }

  /**
   * The decode stopped before it finished (cancelled, failed). The text from before it stays the document's
   * text, and the draft to show it again is returned; with none before, the decode's text so far is the text,
   * marked partial, and null is returned. Edits made to the stopped decode's text are set aside.
   */
  stopDecode(): Draft | null {
    if (!this.doc || !this.running) return null;
    this.stop();
    this.save();
    return this.partial ? null : this.draft();
  }

  private stop(): void {
    const running = this.running!;
    this.running = null;
    if (this.text.trim() === '') {
      this.text = running.text;
      this.edited = running.edited;
      this.partial = true;
    } else if (running.edited && running.text.trim() !== '') {
      this.setAside = [{ text: running.text, savedAt: Date.now() }, ...this.setAside];
    }
  }

  /**
   * Brings the newest set-aside text back as the document's text. The text it replaces is set aside in turn
   * where it holds edits of its own; decoded text is not, since decoding again brings it back.
   */
  restore(): Draft | null {
    const [restored, ...older] = this.setAside;
    if (!this.doc || !restored || this.running) return null;
    const replaced = this.edited && this.text.trim() !== '' && this.text !== restored.text;
    this.setAside = replaced ? [{ text: this.text, savedAt: Date.now() }, ...older] : older;
    this.text = restored.text;
    this.edited = true;
    this.partial = false;
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
    return {
      key: doc.key, name: doc.name, source: doc.source, text: this.text, edited: this.edited, decoded: this.decoded,
      partial: this.partial, running: this.running && { ...this.running }, savedAt: Date.now(), setAside: this.setAside,
    };
  }

  private state(notice: DraftNotice | null): KeeperReport {
    return { setAside: this.setAside, partial: this.partial, notice };
  }

  private save(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.doc) return;
    const outcome = saveDraft(this.storage, this.draft());
    const notice = noticeFor(outcome, this.doc.name, this.refused);
    this.refused = !outcome.saved;
    this.report(this.state(notice));
  }
}
