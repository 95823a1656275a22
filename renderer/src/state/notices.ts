// What the app tells the user, in one list shown newest first in one notification area. Each notice has a
// topic, and a newer notice of a topic replaces the older one: the outcome of the user's last action, what
// saving the draft did, what became of a decode's checking aids. They are all about the open document, so
// opening or closing one clears them.
export type NoticeTopic = 'action' | 'draft' | 'aids';

export interface Notice {
  id: number;
  kind: 'error' | 'info';
  text: string;
  topic: NoticeTopic;
}

let lastId = 0;

/** The list with a new notice first, in place of any older one of its topic. */
export function withNotice(notices: readonly Notice[], kind: Notice['kind'], text: string, topic: NoticeTopic): Notice[] {
  return [{ id: ++lastId, kind, text, topic }, ...notices.filter((n) => n.topic !== topic)];
}

/** The notice of a topic, if one is up. */
export function noticeOf(notices: readonly Notice[], topic: NoticeTopic): Notice | undefined {
  return notices.find((n) => n.topic === topic);
}

/** The list without the notices of a topic. */
export function withoutTopic(notices: readonly Notice[], topic: NoticeTopic): Notice[] {
  return notices.filter((n) => n.topic !== topic);
}
