// The draft store and its keeper: a user's edit is never dropped or overwritten without the user being told,
// decoded text makes room for newer documents with a notice, and storage that refuses the text is reported.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DraftKeeper, type FinishedDecode, type KeeperReport } from '../../renderer/src/state/draft-keeper';
import { documentKey, listRecent, loadDraft, MAX_RECENT, saveDraft, type Draft } from '../../renderer/src/state/drafts';
import { memoryStorage } from '../support/memory-storage';

function draft(key: string, edited: boolean, text = `text of ${key}`): Draft {
  return { key, name: `${key}.png`, source: { kind: 'file', name: `${key}.png` }, text, edited, decoded: edited ? null : text, partial: false, running: null, savedAt: 0, setAside: [] };
}

const doc = { key: 'k-scan', name: 'scan.png', source: { kind: 'file' as const, name: 'scan.png' } };

function keeperOn(storage: ReturnType<typeof memoryStorage>) {
  const reports: KeeperReport[] = [];
  const keeper = new DraftKeeper(storage, (r) => reports.push(r));
  return { keeper, reports, notices: () => reports.map((r) => r.notice).filter((n) => n !== null) };
}

test('drafts are keyed by content and listed as recent, newest first', () => {
  const storage = memoryStorage();
  const a = documentKey('scan.png', new Uint8Array([1, 2, 3]));
  assert.equal(a, documentKey('scan.png', new Uint8Array([1, 2, 3])));
  assert.notEqual(a, documentKey('scan.png', new Uint8Array([1, 2, 4])));
  assert.equal(saveDraft(storage, draft(a, true, 'edited')).saved, true);
  saveDraft(storage, draft('b', false));
  assert.equal(loadDraft(storage, a)?.text, 'edited');
  assert.deepEqual(listRecent(storage).map((r) => [r.key, r.edited]), [['b', false], [a, true]]);
});

test('past the cap, the oldest decoded text is dropped and reported, edited text never', () => {
  const storage = memoryStorage();
  saveDraft(storage, draft('mine', true));
  for (let i = 0; i < MAX_RECENT - 1; i++) assert.deepEqual(saveDraft(storage, draft(`d${i}`, false)).dropped, []);
  const full = saveDraft(storage, draft('one-more', false));
  assert.deepEqual(full.dropped.map((d) => d.key), ['d0'], 'the oldest unedited document makes room, not the older edited one');
  assert.equal(loadDraft(storage, 'd0'), null);
  assert.equal(loadDraft(storage, 'mine')?.text, 'text of mine');
  assert.equal(listRecent(storage).length, MAX_RECENT);

  // Edited documents push the decoded ones out one by one; once only edited ones are left, none goes.
  for (let i = 0; i < MAX_RECENT; i++) saveDraft(storage, draft(`e${i}`, true));
  assert.ok(listRecent(storage).every((r) => r.edited));
  const crowded = saveDraft(storage, draft('e-last', true));
  assert.deepEqual(crowded.dropped, []);
  assert.equal(crowded.crowded, MAX_RECENT + 2);
  assert.equal(loadDraft(storage, 'mine')?.text, 'text of mine', 'the oldest edit is still there');
  assert.equal(saveDraft(storage, draft('e-last', true, 'typed on')).crowded, null, 'saving a listed document again adds nothing');
});

test('a draft set aside counts as edited, and one saved before edits were tracked does too', () => {
  const storage = memoryStorage();
  saveDraft(storage, { ...draft('a', false), setAside: [{ text: 'my edit', savedAt: 1 }] });
  assert.equal(listRecent(storage)[0]!.edited, true);
  storage.setItem('saccade.draft.old', JSON.stringify({ key: 'old', name: 'old.png', source: { kind: 'file', name: 'old.png' }, text: 'x', savedAt: 1 }));
  storage.setItem('saccade.recent', JSON.stringify([{ key: 'old', name: 'old.png', source: { kind: 'file', name: 'old.png' }, savedAt: 1 }]));
  assert.deepEqual({ ...loadDraft(storage, 'old'), savedAt: 0 }, { ...draft('old', true, 'x') });
  assert.equal(listRecent(storage)[0]!.edited, true);
});

/** The keeper through one decode that writes `text` and finishes (or stops, `finished` false). */
function decode(keeper: DraftKeeper, text: string, finished = true) {
  keeper.beginDecode();
  keeper.changed(text.slice(0, text.length >> 1), false);
  keeper.changed(text, false);
  return finished ? keeper.finishDecode() : keeper.stopDecode();
}

test('decoding again sets the edited text aside; it survives a reload and comes back on restore', () => {
  const storage = memoryStorage();
  const first = keeperOn(storage);
  first.keeper.open(doc, null);
  decode(first.keeper, '# Report\n\nDecoded line.');
  assert.equal(loadDraft(storage, doc.key)?.edited, false);
  first.keeper.changed('# Report\n\nDecoded line, corrected by me.', true);
  first.keeper.beginDecode();
  const kept = loadDraft(storage, doc.key)!;
  assert.deepEqual(kept.setAside.map((v) => v.text), ['# Report\n\nDecoded line, corrected by me.'], 'saved at once, before any new text');
  assert.equal(first.reports.at(-1)!.setAside.length, 1);
  first.keeper.changed('# Report\n\nDecoded again.', false);
  first.keeper.finishDecode();
  assert.equal(loadDraft(storage, doc.key)!.setAside.length, 1, 'the new decode keeps the set-aside text');

  // A reload: a new keeper over the same storage.
  const second = keeperOn(storage);
  second.keeper.open(doc, loadDraft(storage, doc.key));
  const restored = second.keeper.restore()!;
  assert.equal(restored.text, '# Report\n\nDecoded line, corrected by me.');
  assert.equal(restored.edited, true);
  assert.deepEqual(restored.setAside, [], 'the decoded text it replaced is not kept: decoding brings it back');
  assert.deepEqual(loadDraft(storage, doc.key), { ...restored, savedAt: loadDraft(storage, doc.key)!.savedAt });
});

test('restoring over edited text sets that text aside in turn; unedited text is replaced as it is', () => {
  const { keeper, reports } = keeperOn(memoryStorage());
  keeper.open(doc, null);
  decode(keeper, 'decoded');
  assert.deepEqual(reports.at(-1)!.setAside, [], 'nothing is set aside for text without edits');
  keeper.changed('first decode + edit A', true);
  decode(keeper, 'second decode');
  keeper.changed('second decode + edit B', true);
  const restored = keeper.restore()!;
  assert.equal(restored.text, 'first decode + edit A');
  assert.deepEqual(restored.setAside.map((v) => v.text), ['second decode + edit B']);
  keeper.discard();
  assert.deepEqual(reports.at(-1)!.setAside, [], 'discarding drops the set-aside text, at the user\'s word');
});

test('a new decode keeps the user\'s corrections of the text before it', () => {
  const storage = memoryStorage();
  const { keeper } = keeperOn(storage);
  keeper.open(doc, null);
  decode(keeper, 'Narne: Jane Doe\n\nAmt 12');
  keeper.changed('Name: Jane Doe\n\nAmt 12', true);
  const result = decode(keeper, 'Narne: Jane Doe\n\nAmt 12.50') as FinishedDecode;
  assert.deepEqual(result, { decoded: 'Narne: Jane Doe\n\nAmt 12.50', text: 'Name: Jane Doe\n\nAmt 12.50', conflicts: 0 });
  const saved = loadDraft(storage, doc.key)!;
  assert.equal(saved.text, 'Name: Jane Doe\n\nAmt 12.50');
  assert.equal(saved.decoded, 'Narne: Jane Doe\n\nAmt 12.50');
  assert.equal(saved.edited, true);
});

test('a decode that does not finish never replaces the text before it, not even across a reload', () => {
  const storage = memoryStorage();
  const { keeper } = keeperOn(storage);
  keeper.open(doc, null);
  decode(keeper, 'The whole finished page.');
  // Stopped: the text from before comes back.
  assert.equal((decode(keeper, 'The wh', false) as Draft).text, 'The whole finished page.');
  assert.equal(loadDraft(storage, doc.key)!.text, 'The whole finished page.');

  // Cut off by a reload mid-decode: the draft records the running decode beside the finished text.
  keeper.beginDecode();
  keeper.changed('The wh', false);
  keeper.flush();
  const cut = loadDraft(storage, doc.key)!;
  assert.equal(cut.text, 'The whole finished page.');
  assert.deepEqual(cut.running, { text: 'The wh', edited: false });
  const after = keeperOn(storage);
  const shown = after.keeper.open(doc, cut)!;
  assert.equal(shown.text, 'The whole finished page.');
  assert.equal(shown.partial, false);
  assert.match(after.notices()[0]!.text, /A decode of scan\.png did not finish .*: the text from before it is shown/);
  assert.equal(loadDraft(storage, doc.key)!.running, null);
});

test('a first decode cut off is kept as partial text, and said to be partial', () => {
  const storage = memoryStorage();
  const { keeper } = keeperOn(storage);
  keeper.open(doc, null);
  keeper.beginDecode();
  keeper.changed('Half a pa', false);
  keeper.flush();
  const after = keeperOn(storage);
  const shown = after.keeper.open(doc, loadDraft(storage, doc.key))!;
  assert.equal(shown.text, 'Half a pa');
  assert.equal(shown.partial, true);
  assert.equal(after.reports.at(-1)!.partial, true);
  assert.equal(listRecent(storage)[0]!.partial, true);
  // Edits made to a stopped decode's text are set aside when the text from before comes back.
  decode(after.keeper, 'Half a page, whole.');
  after.keeper.beginDecode();
  after.keeper.changed('Half, typed into', true);
  assert.deepEqual((after.keeper.stopDecode() as Draft).setAside.map((v) => v.text), ['Half, typed into']);
});

test('a refused save is reported once, until saving works again; dropped decoded text is named', () => {
  const storage = memoryStorage();
  const { keeper, notices } = keeperOn(storage);
  keeper.open(doc, null);
  keeper.changed('x'.repeat(200), true);
  keeper.flush();
  assert.deepEqual(notices(), []);
  storage.quota = 100;
  keeper.changed('y'.repeat(200), true);
  keeper.flush();
  keeper.changed('z'.repeat(200), true);
  keeper.flush();
  assert.equal(notices().length, 1, 'one notice for a run of refused saves');
  assert.equal(notices()[0]!.kind, 'error');
  assert.match(notices()[0]!.text, /The text of scan\.png could not be saved in this browser's storage .* a reload would lose it: export the Markdown/);
  assert.equal(loadDraft(storage, doc.key)!.text, 'x'.repeat(200), 'the stored draft is the last one storage took');

  storage.quota = Infinity;
  for (let i = 0; i < MAX_RECENT - 1; i++) saveDraft(storage, draft(`d${i}`, false));
  keeper.changed('saved again', true);
  keeper.flush();
  assert.equal(notices().length, 1, 'a save that goes through after a refusal says nothing more');
  const other = keeperOn(storage);
  other.keeper.open({ key: 'new', name: 'new.png', source: { kind: 'file', name: 'new.png' } }, null);
  other.keeper.changed('new text', false);
  other.keeper.flush();
  assert.equal(other.notices().length, 1);
  assert.match(other.notices()[0]!.text, /dropped the decoded text of d0\.png, which held no edits/);
});
