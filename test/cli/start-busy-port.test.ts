import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../../src/cli/main.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { captureIo } from './cli-io.js';

async function occupy(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  return { server, port: (server.address() as { port: number }).port };
}

for (const busy of ['port-a', 'port-b', 'sandbox-port'] as const) {
  test(`latch start with a busy --${busy} exits 4 before it creates an account, enrolls or writes anything`, async () => {
    const parent = mkdtempSync(path.join(os.tmpdir(), 'latch-start-busy-'));
    const { server, port } = await occupy();
    try {
      const home = path.join(parent, 'home');
      const ports = { 'port-a': '0', 'port-b': '0', 'sandbox-port': '0', [busy]: String(port) };
      const io = captureIo({ LATCH_HOME: home });
      const code = await runCli(['start', ...Object.entries(ports).flatMap(([flag, value]) => [`--${flag}`, value])], io);
      assert.equal(code, EXIT.portInUse, io.stderr.text);
      assert.match(io.stderr.text, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
      assert.equal(io.stdout.text.includes('Created sandbox account'), false);
      assert.equal(existsSync(home), false, `nothing was created: ${existsSync(home) ? readdirSync(home).join(', ') : ''}`);
    } finally {
      server.close();
      rmSync(parent, { recursive: true, force: true });
    }
  });
}
