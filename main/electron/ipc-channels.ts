// The only IPC channels between main and renderers, with the payload each accepts. Every message from a
// renderer is checked here (channel, sender origin, payload) before main acts on it.
import type { IpcMainEvent, IpcMainInvokeEvent } from 'electron';
import { MAX_SEARCHABLE_PDF_BYTES } from '../../common/protocol';

export const APP_ORIGIN = 'app://saccade';

/** File names as the renderer passes them (a suggested export name, a window title's document). */
const MAX_NAME_CHARS = 255;
/** An export: Markdown of the longest document the pipeline takes is a few MB; far beyond that is no export. */
export const MAX_MARKDOWN_CHARS = 64 * 1024 * 1024;

const isName = (v: unknown): v is string => typeof v === 'string' && v.length <= MAX_NAME_CHARS;

/** Renderer -> main. */
export const RENDERER_CHANNELS = {
  'save-markdown': (p: unknown): p is { suggestedName: string; text: string } =>
    isRecord(p) && isName(p.suggestedName) && typeof p.text === 'string' && p.text.length <= MAX_MARKDOWN_CHARS,
  /** A searchable PDF the engine made (RequestMap.exportSearchablePdf), at most as large as it answers. */
  'save-pdf': (p: unknown): p is { suggestedName: string; bytes: Uint8Array } =>
    isRecord(p) && isName(p.suggestedName) && p.bytes instanceof Uint8Array && p.bytes.length <= MAX_SEARCHABLE_PDF_BYTES,
  'show-open-dialog': (p: unknown): p is null => p === null,
  /** Answered with the folder picked in the native dialog, or null; the engine checks and loads it. */
  'choose-model-folder': (p: unknown): p is null => p === null,
  'document-changed': (p: unknown): p is { name: string | null } => isRecord(p) && (p.name === null || isName(p.name)),
  'engine-summary': (p: unknown): p is { summary: string } => isRecord(p) && typeof p.summary === 'string' && p.summary.length < 1000,
} as const;

export type RendererChannel = keyof typeof RENDERER_CHANNELS;

/** Main -> renderer. */
export type MainChannel = 'engine-port' | 'engine-exited' | 'menu-command' | 'open-file';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True when the message comes from our own page (not a navigated-away or injected frame). */
export function trustedSender(event: IpcMainEvent | IpcMainInvokeEvent): boolean {
  const url = event.senderFrame?.url ?? '';
  return url.startsWith(`${APP_ORIGIN}/`);
}

export function checkRendererMessage<C extends RendererChannel>(channel: C, event: IpcMainEvent | IpcMainInvokeEvent, payload: unknown): string | null {
  if (!trustedSender(event)) return `message on ${channel} from an untrusted frame (${event.senderFrame?.url ?? 'unknown'})`;
  if (!RENDERER_CHANNELS[channel](payload)) return `malformed payload on ${channel}`;
  return null;
}
