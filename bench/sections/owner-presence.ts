/**
 * Section 11, owner presence: what an `owner_present` route costs once the owner has a session
 * (docs/decisions.md §21). The same route, `POST /sign-card-policy-window` at 1 client, on two
 * daemons of this tree started on clones of the enrolled home: one without presence configured
 * (the owner's token suffices), one with an owner passphrase, called with an owner session
 * (`Authorization: Bearer los_…`) opened once before the rounds. A session must cost no scrypt:
 * the goal is at most +0.1 ms p50 (issue 27).
 */
import path from 'node:path';
import { setApprovalPassphrase } from '../../src/datadir/approval-passphrase.js';
import { cloneHome, type BenchStack, type LatchUnderTest } from '../bench-stack.js';
import { figure, type Figure } from '../figures.js';
import { send } from '../load-generator.js';
import { roundRobin, windowRequest } from '../requests.js';
import { measureAlternating, type RunShape } from '../rounds.js';

/** Not a secret: it exists only in the run directory, which the run removes. */
const BENCH_PASSPHRASE = 'bench owner passphrase, run directory only';

/** measureOwnerPresence returns the p50 of the route with a session against the route without presence. */
export async function measureOwnerPresence(shape: RunShape, targets: { stack: BenchStack; latch: LatchUnderTest }): Promise<Figure[]> {
  const { stack, latch } = targets;
  const plain: LatchUnderTest = { ...latch, label: 'no presence', home: cloneHome(latch.home, path.join(stack.root, 'presence-off-home')) };
  const present: LatchUnderTest = { ...latch, label: 'presence', home: cloneHome(latch.home, path.join(stack.root, 'presence-on-home')) };
  setApprovalPassphrase(present.home, BENCH_PASSPHRASE);
  const without = await stack.startDaemon(plain);
  const withPresence = await stack.startDaemon(present);
  try {
    const opened = await send(false, withPresence.port, {
      method: 'POST',
      path: '/owner/sessions',
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify({ passphrase: BENCH_PASSPHRASE })),
    });
    if (opened.status !== 201) throw new Error(`owner presence: POST /owner/sessions answered ${opened.status}: ${opened.text.slice(0, 300)}`);
    const session = String((JSON.parse(opened.text) as { token: string }).token);
    // The owner's token alone is refused once presence is configured: the session is what is measured.
    const refused = await send(false, withPresence.port, windowRequest('/sign-card-policy-window', withPresence.token, stack.cardIds[0] as string));
    if (refused.status !== 403) throw new Error(`owner presence: the owner's token alone answered ${refused.status}, not 403 owner_presence_required`);
    const card = roundRobin(stack.cardIds);
    const common = { concurrency: 1, expectStatus: 200 };
    const result = await measureAlternating(shape, {
      without: { ...common, port: without.port, request: () => windowRequest('/sign-card-policy-window', without.token, card()) },
      session: { ...common, port: withPresence.port, request: () => windowRequest('/sign-card-policy-window', session, card()) },
    });
    const base = result['without'];
    const measured = result['session'];
    if (base === undefined || measured === undefined) throw new Error('owner presence: missing result');
    return [
      figure({
        section: 11,
        name: 'POST /sign-card-policy-window with an owner session, 1 client: p50',
        unit: 'ms',
        value: measured.p50Ms,
        baseline: base.p50Ms,
        baselineName: 'the same route on a daemon without presence (owner token)',
        goal: { kind: 'added_at_most', limit: 0.1 },
        note: `added ${(measured.p50Ms - base.p50Ms).toFixed(3)} ms; p99 ${measured.p99Ms.toFixed(2)} against ${base.p99Ms.toFixed(2)} ms; ${measured.requests} requests with the session`,
      }),
    ];
  } finally {
    await withPresence.server.stop();
    await without.server.stop();
  }
}
