/**
 * The boundary test cannot be walked around (docs/decisions.md §34.4): each way of reaching a key
 * or a signing primitive is planted, one at a time, as a new file in src/daemon/ of a scratch copy
 * of src/, and the boundary reader must name that file. The red team's two plants are here: a
 * daemon file that reads device.key and signs with node:crypto (double quotes), and one that signs
 * AP2 mandates through the mandate key's own module.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { boundaryOffences } from '../support/signing-boundary.js';

const SRC = path.resolve(import.meta.dirname, '../../src');
let scratch: string;

before(() => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'latch-boundary-'));
  cpSync(SRC, path.join(scratch, 'src'), { recursive: true });
});
after(() => rmSync(scratch, { recursive: true, force: true }));

const PLANTS: Record<string, string> = {
  'the red team\'s: sign and createPrivateKey from "node:crypto", reading device.key': `import { createPrivateKey, sign } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
export const forged = (home: string, bytes: Uint8Array) => sign(null, bytes, createPrivateKey(readFileSync(path.join(home, "device.key"), "utf8")));`,
  'the red team\'s: the AP2 mandate key\'s own module': `import { MandateKey, signRecordedOpenMandates } from '../signer/ap2-mandate.js';
import { loadMandateKey } from '../signer/mandate-key.js';
export const mandate = (home: string) => signRecordedOpenMandates(loadMandateKey(home, undefined)?.key as MandateKey, { get: () => undefined }, 'pw_x', undefined);`,
  "sign from bare 'crypto'": `import { sign } from 'crypto';\nexport const s = sign;`,
  'a default import of node:crypto': `import nodeCrypto from 'node:crypto';\nexport const s = nodeCrypto.sign;`,
  'a namespace import of crypto': `import * as c from "crypto";\nexport const s = c.sign;`,
  'an aliased named import': `import { createPrivateKey as make } from 'node:crypto';\nexport const m = make;`,
  'a dynamic import()': `export const load = async () => (await import('node:crypto')).sign;`,
  'a dynamic import() of a name it builds': `const name = ['node', 'crypto'].join(':');\nexport const load = async () => (await import(name)).sign;`,
  'require()': `declare const require: (id: string) => any;\nexport const c = require('crypto').sign;`,
  'import = require': `import c = require('node:crypto');\nexport const s = c.sign;`,
  'createRequire': `import { createRequire } from 'node:module';\nconst load = createRequire(import.meta.url);\nexport const s = load('node:' + 'crypto').sign;`,
  'a re-export of sign': `export { sign } from 'node:crypto';`,
  'a re-export of all of node:crypto': `export * from "node:crypto";`,
  'generateKeyPairSync': `import { generateKeyPairSync } from 'node:crypto';\nexport const k = generateKeyPairSync('ed25519');`,
  'webcrypto': `import { webcrypto } from 'node:crypto';\nexport const w = webcrypto;`,
  'globalThis.crypto.subtle': `export const s = () => globalThis.crypto.subtle.sign('Ed25519', undefined as never, new Uint8Array());`,
  'the global crypto.subtle': `export const s = () => crypto.subtle;`,
  "globalThis['crypto']": `export const c = (globalThis as Record<string, unknown>)['crypto'];`,
  'noble as a namespace': `import * as ed from '@noble/ed25519';\nexport const s = ed.sign;`,
  "noble's sign by name": `import { sign } from "@noble/ed25519";\nexport const s = sign;`,
  'a direct call of a signer internal': `import { signBytes } from '../signer/held-keys.js';\nimport type { SigningKey } from '../crypto/signing-key.js';\nexport const s = (key: SigningKey) => signBytes(key, new Uint8Array(1));`,
  'a re-export of a signer internal': `export * from '../signer/held-keys.js';`,
  'the monitor, built a second way': `import { monitor } from '../signer/monitor.js';\nexport const m = monitor;`,
  'the factory, called outside the wiring': `import { createSigner } from '../signer/index.js';\nexport const again = createSigner;`,
  'the factory through the folder': `import { createSigner } from '../signer';\nexport const again = createSigner;`,
  'the device key loader': `import { loadDeviceKey } from '../signer/device-key.js';\nexport const l = loadDeviceKey;`,
  'reading mandate.key by its DATA_FILES name': `import { readFileSync } from 'node:fs';\nimport { DATA_FILES, dataFilePath } from '../datadir/home.js';\nexport const r = (home: string) => readFileSync(dataFilePath(home, DATA_FILES.mandateKey));`,
  "reading an identity key's file": `import { readFileSync } from 'node:fs';\nimport { identityKeyPath } from '../identity/identity-keys.js';\nexport const r = (home: string) => readFileSync(identityKeyPath(home, 'owner'));`,
};

test('the scratch copy has no offence of its own', () => {
  assert.deepEqual(boundaryOffences(path.join(scratch, 'src')), []);
});

for (const [name, source] of Object.entries(PLANTS)) {
  test(`planted: ${name}`, () => {
    const planted = path.join(scratch, 'src', 'daemon', 'planted.ts');
    writeFileSync(planted, `${source}\n`);
    try {
      const offences = boundaryOffences(path.join(scratch, 'src'));
      assert.ok(offences.some((offence) => offence.startsWith(path.join('daemon', 'planted.ts'))), `the boundary names the planted file: ${JSON.stringify(offences)}`);
    } finally {
      unlinkSync(planted);
    }
  });
}
