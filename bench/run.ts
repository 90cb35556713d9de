/**
 * `npm run bench`: starts the sandbox, a device and the daemon in their own processes on
 * loopback, measures every figure of the benchmark issue against a baseline measured in the
 * same run, and prints one table.
 *
 *     npm run bench [-- --json <file>] [-- --quick] [-- --only 1,3] [-- --only policy] [-- --compare <tree>]
 *
 * `--json <file>` also writes the same figures, with the machine description, as JSON.
 * `--quick` runs one short round of everything (to try the harness, not to quote).
 * `--only` runs only the listed sections (1..12); `policy` names section 7, the spending policy,
 * `evidence` section 9, evidence packs with 10,000 authorizations of history, `web-bot-auth`
 * section 10, agent identity signing, `presence` section 11, a route with an owner session, and
 * `console` section 12, the owner console's first paint in headless Chromium, `ap2` section 13,
 * POST /ap2/mandates against /authorize at one client, `layouts` section 14, /authorize with each
 * tree's own sandbox in both layouts (separate processes, and `npm start`), with CPU per authorization,
 * `x402` section 15, POST /x402/authorize against /authorize at one client.
 * `--history` builds a history (an audit.log of 1,000,000 lines; a sandbox journal of 1,000,000
 * records and the daemon's state.journal of its authorizations; each bounded in bytes and time) and
 * measures section 8, flatness with history, alone.
 * `--compare <tree>` also measures the daemon of another checkout of Latch (a change under
 * evaluation), in the same rounds as this one, so that before and after share the same noise.
 * Each row names its tree by commit: `[this <commit>]` is the tree bench runs from, `[compared <commit>]`
 * the one given to --compare (so `--compare <the tree before>` from a change shows the change as `this`).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cloneHome, startBenchStack } from './bench-stack.js';
import { startServer, type ChildServer } from './child-process.js';
import type { Figure } from './figures.js';
import { describeMachine } from './machine.js';
import { FULL_SHAPE, QUICK_SHAPE, type RunShape } from './rounds.js';
import { measureAuditAppend } from './sections/audit-append.js';
import { measureJournalAppend } from './sections/journal-append.js';
import { measureAuthorize } from './sections/authorize.js';
import { measureCharges } from './sections/charges.js';
import { measureColdStart } from './sections/cold-start.js';
import { measureEvidence } from './sections/evidence.js';
import { floorText, measureFloor } from './sections/floor.js';
import { HISTORY_LINES, measureHistory } from './sections/history.js';
import { measureOverhead } from './sections/daemon-overhead.js';
import { measurePolicy } from './sections/policy.js';
import { measureSandboxHistory } from './sections/sandbox-history.js';
import { SANDBOX_HISTORY_RECORDS_MAX as SANDBOX_HISTORY_RECORDS } from './sandbox-history-builder.js';
import { measureProxy } from './sections/proxy.js';
import { measureWebBotAuth } from './sections/web-bot-auth.js';
import { measureAp2Mandates } from './sections/ap2-mandates.js';
import { measureX402 } from './sections/x402.js';
import { measureOwnerPresence } from './sections/owner-presence.js';
import { measureConsolePaint } from './sections/console-paint.js';
import { measureLayouts } from './sections/layouts.js';
import { renderTable } from './table.js';

const BENCH_CARDS = 4;

interface Options {
  json: string | undefined;
  compare: string | undefined;
  shape: RunShape;
  sections: Set<number>;
}

function readOptions(): Options {
  const { values } = parseArgs({
    options: { json: { type: 'string' }, quick: { type: 'boolean', default: false }, only: { type: 'string' }, compare: { type: 'string' }, history: { type: 'boolean', default: false } },
    strict: true,
  });
  const names: Record<string, string> = { policy: '7', history: '8', evidence: '9', 'web-bot-auth': '10', presence: '11', console: '12', ap2: '13', layouts: '14', x402: '15' };
  const sections = new Set((values.only ?? (values.history ? '8' : '1,2,3,4,5,6,7,9,10,11,12,13,14,15')).split(',').map((part) => Number(names[part.trim()] ?? part.trim())));
  for (const section of sections) if (!Number.isInteger(section) || section < 1 || section > 15) throw new Error(`--only: ${section} is not a section (1..15, policy, history, evidence, web-bot-auth, presence, console, ap2, layouts or x402)`);
  return { json: values.json, compare: values.compare, shape: values.quick ? QUICK_SHAPE : FULL_SHAPE, sections };
}

async function main(): Promise<void> {
  const options = readOptions();
  const startedMs = Date.now();
  const machine = describeMachine();
  const figures: Figure[] = [];
  const progress = (text: string) => process.stderr.write(`[bench ${((Date.now() - startedMs) / 1000).toFixed(0).padStart(3)} s] ${text}\n`);

  progress('starting the sandbox, enrolling a device');
  const stack = await startBenchStack({ cards: BENCH_CARDS, ...(options.compare === undefined ? {} : { compareRoot: options.compare }) });
  let bare: ChildServer | undefined;
  try {
    bare = await startServer({ entry: 'bench/bare-server.ts', args: ['--port', '0'], env: stack.env, stderrFile: stack.logFile('bare') });
    const barePort = Number(bare.ready['port']);
    const chargeTargets = { sandboxPort: stack.sandboxPort, adminKey: stack.adminKey, cardIds: stack.cardIds, scratchDir: stack.root };
    if (options.sections.has(4)) {
      progress('4: sandbox charges, empty ledger');
      figures.push(...(await measureCharges(options.shape, { ...chargeTargets, ledger: 'no windows' })));
    }
    const started = await Promise.all(stack.latches.map(async (latch) => ({ latch, ...(await stack.startDaemon(latch)) })));
    const daemons = started.map(({ latch, port, token, server }) => ({ label: latch.label, port, token, pid: server.pid }));
    progress('the floor: noble sign and verify, fdatasync, loopback round trip');
    const floor = await measureFloor(options.shape, stack.root, barePort);
    progress(`the floor: ${floorText(floor)}`);
    const targets = { daemons, barePort, cardIds: stack.cardIds, floor };
    if (options.sections.has(1)) {
      progress('1: daemon overhead');
      figures.push(...(await measureOverhead(options.shape, targets)));
    }
    if (options.sections.has(2)) {
      progress('2: /authorize end to end');
      const authorize = await measureAuthorize(options.shape, targets);
      figures.push(...authorize.figures);
      if (options.sections.has(4)) {
        progress('4: sandbox charges after the authorizations');
        figures.push(...(await measureCharges(options.shape, { ...chargeTargets, ledger: `${authorize.authorized} windows made` })));
      }
    }
    if (options.sections.has(10)) {
      progress('10: agent identity, POST /web-bot-auth/sign');
      figures.push(...(await measureWebBotAuth(options.shape, { daemon: daemons[0] as (typeof daemons)[0], floor })));
    }
    if (options.sections.has(13)) {
      // Measured for this tree only: a tree under comparison may not serve the route.
      progress('13: AP2 mandates, POST /ap2/mandates against /authorize');
      figures.push(...(await measureAp2Mandates(options.shape, { daemon: daemons[0] as (typeof daemons)[0], cardIds: stack.cardIds })));
    }
    if (options.sections.has(15)) {
      // Measured for this tree only: a tree under comparison may not serve the route.
      progress('15: the x402 guard, POST /x402/authorize against /authorize');
      figures.push(...(await measureX402(options.shape, { daemon: daemons[0] as (typeof daemons)[0], cardIds: stack.cardIds })));
    }
    for (const { server } of started) await server.stop();
    if (options.sections.has(14)) {
      progress('14: /authorize in both layouts, each tree with its own sandbox');
      figures.push(...(await measureLayouts(options.shape, { trees: stack.latches.map((latch) => ({ label: latch.label === '' ? 'this tree' : latch.label, root: latch.root })), runDir: stack.root, env: stack.env, logFile: stack.logFile, floor, progress })));
    }
    if (options.sections.has(3)) {
      progress('3: /v1 proxy');
      const upstream = { LATCH_CLOUD_URL: `http://127.0.0.1:${barePort}` };
      const proxies = await Promise.all(stack.latches.map(async (latch) => ({ latch, ...(await stack.startDaemon(latch, upstream)) })));
      figures.push(...(await measureProxy(options.shape, { daemons: proxies.map(({ latch, port, token, server }) => ({ label: latch.label, port, token, pid: server.pid })), barePort, floor })));
      for (const { server } of proxies) await server.stop();
    }
    if (options.sections.has(5)) {
      progress('5: cold start and memory');
      const quick = options.shape.rounds === 1;
      // Each daemon starts on a clone of its enrolled home (key, token, config, no history), so these
      // rows do not depend on what the sections before left in state.journal; § 8 measures history.
      const freshLatches = stack.latches.map((latch) => ({ ...latch, home: cloneHome(latch.home, path.join(stack.root, `cold-home-${latch.label.replace(/[^a-z0-9]+/g, '-')}`)) }));
      figures.push(...(await measureColdStart({ latches: freshLatches, env: stack.env, cardIds: stack.cardIds, runDir: stack.root, progress, starts: quick ? 3 : 10, requests: quick ? 1_000 : 10_000 })));
    }
    if (options.sections.has(6)) {
      progress('6: audit log and state.journal appends');
      figures.push(...(await measureAuditAppend(options.shape, stack.root)));
      figures.push(...(await measureJournalAppend(options.shape, stack.root)));
    }
    if (options.sections.has(8)) {
      const quick = options.shape.rounds === 1;
      figures.push(...(await measureHistory(stack, { lines: quick ? HISTORY_LINES / 10 : HISTORY_LINES, starts: quick ? 3 : 5, progress })));
      figures.push(...(await measureSandboxHistory(stack, { records: quick ? SANDBOX_HISTORY_RECORDS / 10 : SANDBOX_HISTORY_RECORDS, starts: quick ? 3 : 5, shape: options.shape, progress })));
    }
    if (options.sections.has(7)) {
      // Measured for this tree only: the history is seeded with this tree's record types.
      progress('7: spending policy');
      figures.push(...(await measurePolicy(options.shape, { stack, latch: stack.latches[0] as (typeof stack.latches)[0], starts: options.shape.rounds === 1 ? 3 : 10 })));
    }
    if (options.sections.has(9)) {
      // Measured for this tree only: the history is seeded with this tree's record types.
      progress('9: evidence packs');
      figures.push(...(await measureEvidence(options.shape, { stack, latch: stack.latches[0] as (typeof stack.latches)[0] })));
    }
    if (options.sections.has(11)) {
      // Measured for this tree only: a tree under comparison may not have owner presence.
      progress('11: owner presence, a route with an owner session');
      figures.push(...(await measureOwnerPresence(options.shape, { stack, latch: stack.latches[0] as (typeof stack.latches)[0] })));
    }
    if (options.sections.has(12)) {
      progress('12: owner console, first paint in headless Chromium');
      figures.push(...(await measureConsolePaint({ stack, latch: stack.latches[0] as (typeof stack.latches)[0], loads: options.shape.rounds === 1 ? 5 : 30, progress })));
    }
  } finally {
    await bare?.stop();
    await stack.close();
  }
  progress('done');
  // Measured in the order the state requires (charges before and after authorizations), shown by section.
  const table = [...figures].sort((x, y) => x.section - y.section);
  process.stdout.write(`${renderTable(table)}\n\n${machine.summary}\n`);
  if (options.json !== undefined) writeFileSync(options.json, `${JSON.stringify({ machine, shape: options.shape, figures: table }, null, 2)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
