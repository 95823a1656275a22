// What the app's web contents may do beyond showing its own pages: nothing. The app links nowhere outside
// itself and needs no web permission, so whatever asks (a script or link that got into a page, a document's
// content) for a new window, a navigation elsewhere, a webview, the camera, notifications or a device is
// refused, and nothing is handed to the system browser. Electron grants permissions by default; these
// handlers replace that.
import type { Session, WebContents } from 'electron';
import { APP_ORIGIN } from './ipc-channels';

const isAppPage = (url: string) => url.startsWith(`${APP_ORIGIN}/`);

/** For every web contents the app creates (app 'web-contents-created'). */
export function restrictContents(contents: WebContents): void {
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  // Dropping a file must open it in the app, never navigate the window to it; a redirect is a navigation too.
  contents.on('will-navigate', (event) => { if (!isAppPage(event.url)) event.preventDefault(); });
  contents.on('will-redirect', (event) => { if (!isAppPage(event.url)) event.preventDefault(); });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/** For the session the app's windows share. */
export function denyWebPermissions(session: Session): void {
  session.setPermissionRequestHandler((_contents, _permission, grant) => grant(false));
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler(() => false);
}
