/**
 * `latch ap2 mandate`: ask the daemon for AP2 open mandates (POST /ap2/mandates, docs/ap2.md), as
 * an agent's tool would. The agent key is read from a JWK file and sent as its public half only:
 * a file holding a private key (`d`) is refused here, before anything leaves the process.
 */
import { readFileSync } from 'node:fs';
import type { Ap2MandateInput, Ap2Mandates, PendingApproval } from '../../client/types.js';
import { isPendingApproval } from '../../client/pending-approval.js';
import { UsageError } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { amountFlag, authorizeOptions, checkId, integerFlag, optional, requiredFlag, stringFlag } from '../daemon-calls/command-args.js';
import { daemonCallCommand } from '../daemon-calls/daemon-call-command.js';
import { pendingApprovalLines } from '../daemon-calls/approval-views.js';
import { TTL_MINUTES_MAX, TTL_MINUTES_MIN } from '../../validate/ttl.js';

/** The most a JWK file or an items argument may be; both are a few hundred bytes. */
const ARGUMENT_BYTES_MAX = 64 * 1024;

const USAGE = `Usage: latch ap2 mandate --card <card_id> --merchant-name <name> --website <https URL>
                        --amount-max <decimal> --items <JSON> --agent-key <JWK file>
                        [--merchant-id <id>] [--currency USD] [--ttl <minutes>]
                        [--wait <seconds>] [--idempotency-key <key>] [--json]

Asks for AP2 open mandates (POST /ap2/mandates): Latch, as the owner's trusted surface, signs an
open checkout mandate and an open payment mandate bound to the agent's P-256 key, once the
spending policy allows (or the owner approves), and registers a card window for the same card,
merchant, maximum and lifetime. The agent then makes the closed mandates with its own key.

Options:
  --card ID              the card, e.g. card_… (see latch cards)
  --merchant-name NAME   the merchant's name, as the mandates show it
  --website URL          the merchant's https website; its host is the merchant the policy sees
  --merchant-id ID       the merchant's AP2 id: the website's host (the default; any other is refused)
  --amount-max DECIMAL   the most the agent may pay, e.g. 25.00
  --items JSON           the lines, e.g. '[{"id":"sku-1","title":"Blue mug","quantity":1,
                         "alternatives":[{"id":"sku-2","title":"Red mug"}]}]', or @FILE
  --agent-key FILE       the agent's P-256 public JWK (a file with a private key is refused)
  --currency CODE        default USD
  --ttl MINUTES          lifetime of the mandates and the window, default 10 (at most ${TTL_MINUTES_MAX});
                         a mandate cannot be revoked once handed out: exp is its only bound
  --wait SECONDS         when the owner must approve, wait up to this long (1-60) for the decision
  --idempotency-key KEY  repeat a request safely: the same key and values give the same mandates
  --json                 print the answer (policy_id, mandate_id, both SD-JWTs, open_checkout_hash,
                         key_id, expires_at)

Exit codes: 0 signed; 10 waiting for the owner's approval; 7 refused (policy_denied, card_not_found ...);
8 daemon unreachable; 9 cloud unavailable; 2 bad usage or a value the daemon refused (invalid_agent_key).`;

/** `latch ap2 mandate` asks for an agent's AP2 open mandates. */
export const ap2MandateCommand = daemonCallCommand<Ap2Mandates | PendingApproval>({
  name: 'ap2 mandate',
  summary: "Ask Latch to sign AP2 open mandates for an agent's key",
  usage: USAGE,
  flags: { card: 'value', 'merchant-name': 'value', website: 'value', 'merchant-id': 'value', 'amount-max': 'value', items: 'value', 'agent-key': 'value', currency: 'value', ttl: 'value', wait: 'value', 'idempotency-key': 'value' },
  positionalsMax: 0,
  prepare: ({ flags }) => {
    const merchantId = stringFlag(flags, 'merchant-id');
    const input: Ap2MandateInput = {
      card_id: checkId(requiredFlag(flags, 'card'), 'card', '--card'),
      merchant: { name: requiredFlag(flags, 'merchant-name'), website: requiredFlag(flags, 'website'), ...optional('id', merchantId) },
      amount_max: amountFlag(flags, 'amount-max') ?? requiredFlag(flags, 'amount-max'),
      items: jsonArgument(requiredFlag(flags, 'items'), '--items') as Ap2MandateInput['items'],
      agent_key: publicAgentKey(requiredFlag(flags, 'agent-key')),
      ...optional('currency', stringFlag(flags, 'currency')),
      ...optional('ttl_minutes', integerFlag(flags, 'ttl', TTL_MINUTES_MIN, TTL_MINUTES_MAX)),
    };
    return (client) => client.ap2Mandate(input, authorizeOptions(flags));
  },
  human: (result) =>
    isPendingApproval(result)
      ? pendingApprovalLines(result)
      : [`Signed AP2 open mandates ${result.mandate_id} (card window ${result.policy_id}), key ${result.key_id}, until ${result.expires_at}.`, 'Use --json for the two SD-JWTs and open_checkout_hash.'],
  exitCode: (result) => (isPendingApproval(result) ? EXIT.pendingApproval : EXIT.ok),
});

/** jsonArgument parses JSON given inline or as @FILE. */
function jsonArgument(text: string, flag: string): unknown {
  const source = text.startsWith('@') ? readBounded(text.slice(1), flag) : text;
  try {
    return JSON.parse(source);
  } catch {
    throw new UsageError(`${flag} must be JSON (or @FILE holding JSON)`);
  }
}

/** publicAgentKey reads the agent's JWK file and keeps only its public members; a private key is refused unsent. */
function publicAgentKey(file: string): Ap2MandateInput['agent_key'] {
  const jwk = jsonArgument(`@${file}`, '--agent-key');
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw new UsageError('--agent-key must name a JWK file');
  const record = jwk as Record<string, unknown>;
  if (Object.hasOwn(record, 'd')) throw new UsageError('--agent-key holds a private key (d); give the agent\'s public JWK, which is all Latch needs');
  return { kty: String(record['kty']), crv: String(record['crv']), x: String(record['x']), y: String(record['y']) };
}

function readBounded(file: string, flag: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new UsageError(`${flag}: cannot read ${file}`);
  }
  if (text.length > ARGUMENT_BYTES_MAX) throw new UsageError(`${flag}: ${file} is larger than ${ARGUMENT_BYTES_MAX} bytes`);
  return text;
}
