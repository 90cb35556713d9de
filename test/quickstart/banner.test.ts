import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bannerText, mcpConfiguration, type BannerFacts } from '../../src/quickstart/banner.js';
import { latchInvocation } from '../../src/quickstart/latch-invocation.js';

const FACTS: BannerFacts = {
  portA: 7723,
  portB: 7732,
  cloudUrl: 'http://127.0.0.1:7780',
  tokenPath: '/home/you/.latch/daemon_token',
  adminKeyPath: '/home/you/.latch/sandbox/admin_key',
  firstCardId: 'card_abc',
  home: '/home/you/.latch',
  homeIsDefault: true,
  latchCommand: { program: '/usr/bin/node', args: ['/opt/latch/bin/latch.js'] },
};

interface McpEntry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}
const entryOf = (facts: BannerFacts) => (mcpConfiguration(facts) as { mcpServers: { latch: McpEntry } }).mcpServers.latch;

test("the MCP configuration is an agent's (--agent shopper), always names LATCH_HOME, and LATCH_URL only off the default port", () => {
  assert.deepEqual(entryOf(FACTS), { command: '/usr/bin/node', args: ['/opt/latch/bin/latch.js', 'mcp', '--agent', 'shopper'], env: { LATCH_HOME: '/home/you/.latch' } });
  assert.deepEqual(entryOf({ ...FACTS, portA: 9000 }).env, { LATCH_HOME: '/home/you/.latch', LATCH_URL: 'http://127.0.0.1:9000' });
  assert.deepEqual(entryOf({ ...FACTS, home: '/tmp/h', homeIsDefault: false }).env, { LATCH_HOME: '/tmp/h' });
  // Variant B's port never matters to MCP: it speaks to Variant A.
  assert.deepEqual(entryOf({ ...FACTS, portB: 9999 }).env, { LATCH_HOME: '/home/you/.latch' });
});

test("the banner shows the owner console's address and how to sign in, when it is served", () => {
  assert.match(bannerText({ ...FACTS, consolePort: 7724 }), /^ {2}Owner console {14}http:\/\/127\.0\.0\.1:7724 {2}\(sign in: latch console\)$/m);
  assert.doesNotMatch(bannerText({ ...FACTS, consolePort: null }), /Owner console/);
});

test('the banner prints the MCP configuration as JSON that parses, and no secret', () => {
  const text = bannerText({ ...FACTS, portA: 9000 });
  const start = text.indexOf('  {\n');
  const end = text.indexOf('\n  }\n', start) + 4;
  const parsed = JSON.parse(text.slice(start, end)) as { mcpServers: { latch: McpEntry } };
  assert.deepEqual(parsed.mcpServers.latch.env, { LATCH_HOME: '/home/you/.latch', LATCH_URL: 'http://127.0.0.1:9000' });
  assert.deepEqual(parsed.mcpServers.latch.args.slice(-3), ['mcp', '--agent', 'shopper']);
  assert.equal(text.includes('Bearer ey'), false);
});

test('the printed command, run as an MCP client would (no shell, another working directory), speaks only the protocol on stdout', async () => {
  const invocation = latchInvocation();
  assert.match(invocation.args[invocation.args.length - 1] ?? '', /bin[/\\]latch\.js$/, 'from a checkout the command is node bin/latch.js');
  const entry = entryOf({ ...FACTS, latchCommand: invocation });
  const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'latch-mcp-cwd-'));
  try {
    const child = spawn(entry.command, entry.args, { cwd: elsewhere, env: { PATH: process.env['PATH'] ?? '', HOME: elsewhere, LATCH_HOME: path.join(elsewhere, 'home') }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`);
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0);
    const lines = stdout.trim().split('\n');
    assert.equal(lines.length, 2, `stdout carries exactly the two answers:\n${stdout}`);
    const answers = lines.map((line) => JSON.parse(line) as { id: number; result: Record<string, unknown> });
    assert.deepEqual(answers.map((a) => a.id), [1, 2]);
    assert.ok(Array.isArray((answers[1]?.result as { tools: unknown[] }).tools));
  } finally {
    rmSync(elsewhere, { recursive: true, force: true });
  }
});
