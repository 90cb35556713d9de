/**
 * docs/agent-identity.md's agent snippet, run exactly as printed (copied out of the page into a
 * directory of its own) against the real daemon and sandbox, sending its signed request to a
 * local "merchant" that verifies it with Cloudflare's web-bot-auth, the key taken from the
 * daemon's directory and its thumbprint compared with keyid, as the page's "What a merchant
 * checks" says. An unsigned or re-targeted request is refused by the same merchant.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createPublicKey, verify as nodeVerify, type JsonWebKey as NodeJwk } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { helpers, jwkToKeyID, verify } from 'web-bot-auth';
import { addAgent } from '../../src/datadir/agents.js';
import { startStack, type Stack } from '../support/stack.js';

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '../..');

let stack: Stack;
let dir: string;
let merchant: Server;
let merchantPort: number;

function snippet(): string {
  const page = readFileSync(path.join(REPO, 'docs/agent-identity.md'), 'utf8');
  const match = /<!-- agent-identity-snippet:start -->\n```js\n([\s\S]*?)```\n<!-- agent-identity-snippet:end -->/.exec(page);
  assert.ok(match !== null, 'docs/agent-identity.md has the marked snippet');
  return match[1] as string;
}

/** merchantCheck verifies a request as a merchant would, and returns the key id it was signed with. */
async function merchantCheck(url: string, headers: Record<string, string>): Promise<string> {
  const directory = (await (await fetch(`http://127.0.0.1:${stack.portA}/web-bot-auth/directory`)).json()) as { keys: Array<{ kty: string; crv: string; x: string; kid: string }> };
  let signedWith = '';
  await verify(new Request(url, { headers }), async (data, signature, params) => {
    const jwk = directory.keys.find((key) => key.kid === params.keyid);
    if (jwk === undefined) throw new Error('unknown keyid');
    if ((await jwkToKeyID({ kty: jwk.kty, crv: jwk.crv, x: jwk.x }, helpers.WEBCRYPTO_SHA256, helpers.BASE64URL_DECODE)) !== params.keyid) throw new Error('keyid is not the key');
    const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x } as NodeJwk, format: 'jwk' });
    if (!nodeVerify(null, Buffer.from(data), key, signature)) throw new Error('bad signature');
    signedWith = params.keyid;
  });
  return signedWith;
}

before(async () => {
  stack = await startStack();
  addAgent(stack.home, 'shopper');
  merchant = createServer((request, response) => {
    const headers = Object.fromEntries(Object.entries(request.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
    merchantCheck(`http://${request.headers.host}${request.url}`, headers).then(
      (keyId) => response.writeHead(200).end(`verified ${keyId}`),
      (error: unknown) => response.writeHead(401).end(`refused: ${error instanceof Error ? error.message : 'error'}`),
    );
  });
  await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
  merchantPort = (merchant.address() as { port: number }).port;
  dir = mkdtempSync(path.join(tmpdir(), 'latch-identity-snippet-'));
  writeFileSync(path.join(dir, 'agent-fetch.mjs'), snippet());
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await new Promise((resolve) => merchant.close(resolve));
  await stack.close();
});

test("the page's snippet, run as printed, gets past a merchant that verifies with web-bot-auth", async () => {
  const target = `http://127.0.0.1:${merchantPort}/products?id=1`;
  const env = { ...process.env, LATCH_URL: `http://127.0.0.1:${stack.portA}`, LATCH_HOME: stack.home };
  const { stdout } = await run(process.execPath, ['agent-fetch.mjs', target], { cwd: dir, env, timeout: 60_000 });
  const shown = JSON.parse((await (await fetch(`http://127.0.0.1:${stack.portA}/web-bot-auth/directory`)).text())) as { keys: Array<{ kid: string }> };
  const match = /^200 verified (\S+)$/.exec(stdout.trim());
  assert.ok(match !== null, stdout);
  assert.ok(shown.keys.some((key) => key.kid === match[1]), 'signed with a key of the directory');
});

test('the same merchant refuses an unsigned request', async () => {
  const answer = await fetch(`http://127.0.0.1:${merchantPort}/products?id=1`);
  assert.equal(answer.status, 401);
});
