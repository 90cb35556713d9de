/**
 * The daemon names a refused field by its API name (`param: "merchant_name"`); a person at the
 * command line typed a flag (`--merchant`). This table maps each field a CLI command sends to the
 * flag it comes from, so an error names what the user can change.
 */
import type { FlagKind } from '../flags.js';

const FLAG_OF_FIELD: Readonly<Record<string, string>> = {
  card_id: 'card',
  merchant_name: 'merchant',
  amount: 'amount',
  currency: 'currency',
  authorization_type: 'type',
  ttl_minutes: 'ttl',
  interval: 'interval',
  interval_count: 'interval-count',
  starts_at: 'starts-at',
  ends_at: 'ends-at',
  max_charges: 'max-charges',
  limit: 'limit',
  starting_after: 'starting-after',
  status: 'status',
  reason: 'reason',
  'Idempotency-Key': 'idempotency-key',
};

/**
 * flagFor returns the flag (`--merchant`) a command took the daemon's field from, or undefined
 * when the command has no such flag (the field came from a positional argument or from nowhere
 * the user typed).
 */
export function flagFor(param: string, flags: Readonly<Record<string, FlagKind>>): string | undefined {
  const flag = Object.hasOwn(FLAG_OF_FIELD, param) ? FLAG_OF_FIELD[param] : undefined;
  return flag !== undefined && Object.hasOwn(flags, flag) ? `--${flag}` : undefined;
}
