// The packaging configuration as electron-builder itself reads and checks it (its loader and schema, from
// app-builder-lib, which electron-builder builds on), so a misspelt key fails here rather than at `npm run dist`.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config';

const ROOT = join(__dirname, '..', '..');

test('electron-builder.yml passes electron-builder\'s schema and flips the fuses that open the packaged app up', async () => {
  const config = await getConfig(ROOT, null, null);
  await validateConfiguration(config, { isEnabled: false } as never);
  assert.deepEqual(config.electronFuses, {
    runAsNode: false,
    enableNodeOptionsEnvironmentVariable: false,
    enableNodeCliInspectArguments: false,
    enableEmbeddedAsarIntegrityValidation: true,
    onlyLoadAppFromAsar: true,
    grantFileProtocolExtraPrivileges: false,
    enableCookieEncryption: true,
  });
  // The fuses only hold for code loaded from the archive.
  assert.notEqual(config.asar, false);
});
