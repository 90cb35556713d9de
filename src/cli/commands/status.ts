import type { Health } from '../../client/types.js';
import { daemonCallCommand } from '../daemon-calls/daemon-call-command.js';
import { fields } from '../daemon-calls/views.js';

const USAGE = `Usage: latch status [--json]

Asks the daemon for GET /health: whether it runs, its version and uptime, and the signing key it
has loaded (null before 'latch setup'), and whether the owner has paused signing (latch pause).
Health is local only and never involves the cloud, so a failure here is a local availability
problem, not a payment failure.

The daemon's address is LATCH_URL (default http://127.0.0.1:7723); the token is not needed.

Options:
  --json    print the health object: {status, version, uptime_seconds, signing_key, paused}

Exit codes: 0 the daemon is up; 8 no daemon answers; 2 bad usage; 1 anything else.`;

/** `latch status` shows the daemon's health. */
export const statusCommand = daemonCallCommand<Health & { url: string }>({
  name: 'status',
  summary: 'Is the daemon up? Version, uptime and the loaded signing key',
  usage: USAGE,
  flags: {},
  positionalsMax: 0,
  prepare: () => async (client) => ({ ...(await client.health()), url: client.baseUrl }),
  human: (health) => [
    `Latch daemon ${health.version} is up at ${health.url} (uptime ${health.uptime_seconds} s).`,
    ...fields([
      ['signing key', health.signing_key === null ? 'none: not enrolled yet (run latch setup)' : `${health.signing_key.key_id} (${health.signing_key.algorithm})`],
      ['signing', pausedText(health.paused ?? null)],
    ]),
  ],
});

function pausedText(paused: Health['paused']): string {
  if (paused === null || paused === undefined) return 'active';
  return `PAUSED since ${paused.since}${typeof paused.reason === 'string' ? ` (${paused.reason})` : ''}: nothing is signed until latch resume`;
}
