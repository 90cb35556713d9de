/**
 * `latch policy check` and `latch policy show`: questions to the running daemon about the
 * spending policy (docs/decisions.md §15.3). Neither signs, reserves or records anything.
 */
import type { PolicyCheck, PolicyCheckInput, PolicyView } from '../../client/types.js';
import { UsageError } from '../command.js';
import { amountFlag, checkId, choiceFlag, integerFlag, optional, requiredFlag, stringFlag } from '../daemon-calls/command-args.js';
import { daemonCallCommand } from '../daemon-calls/daemon-call-command.js';
import { TTL_MINUTES_MAX, TTL_MINUTES_MIN } from '../../validate/ttl.js';
import { AUTHORIZATION_KINDS, AUTHORIZATION_TYPES, RECURRING_INTERVALS } from '../../core/model.js';

const CHECK_USAGE = `Usage: latch policy check --card <card_id> --merchant <domain> --amount <decimal>
                         [--kind one_time|merchant_verification|recurring] [--type exact|ceiling]
                         [--currency USD] [--ttl <minutes>] [--interval day|week|month|year]
                         [--agent NAME] [--json]

Asks the daemon what the spending policy ($LATCH_HOME/policy.json) would decide about this
request (POST /policy/check): allow, ask or deny, the rule or limit that decided, why, and every
budget that covers the request with its limit, exposure and what remains. Nothing is signed,
reserved or recorded: it is only a question.

--agent NAME here means "check the request as agent NAME would make it": the command then runs
as the owner (the daemon token; LATCH_AGENT is ignored) and the daemon answers for NAME. Without
--agent it runs as LATCH_AGENT, if set (an agent can check only its own requests), else as the
owner checking for the owner.

Options:
  --card ID               the card, e.g. card_… (see latch cards)
  --merchant DOMAIN       the merchant's domain, e.g. grocer.example
  --amount DECIMAL        e.g. 12.50 (for merchant_verification: optional, at most 1.00)
  --kind KIND             one_time (default), merchant_verification or recurring
  --type exact|ceiling    one_time and recurring only
  --currency CODE         default USD
  --ttl MINUTES           one_time and merchant_verification only
  --interval PERIOD       recurring only, and required for it: day, week, month or year
  --agent NAME            check for agent NAME (as the owner), see above
  --json                  print {decision, rule, reasons, budgets}

Exit codes: 0 the policy answered, whatever it decided (allow, ask or deny); 2 bad usage or a
value the daemon refused (e.g. --agent from an agent); 8 daemon unreachable; 1 policy.json is
invalid (503 policy_invalid, naming the field) or another failure.`;

const KINDS = AUTHORIZATION_KINDS;

/** `latch policy check` asks what the policy would decide; exit 0 whatever it decides. */
export const policyCheckCommand = daemonCallCommand<PolicyCheck>({
  name: 'policy check',
  summary: 'Ask what the spending policy would decide about a request (signs nothing)',
  usage: CHECK_USAGE,
  flags: { card: 'value', merchant: 'value', amount: 'value', kind: 'value', type: 'value', currency: 'value', ttl: 'value', interval: 'value' },
  positionalsMax: 0,
  agentFlagNamesSubject: true,
  prepare: ({ flags }) => {
    const kind = choiceFlag(flags, 'kind', KINDS) ?? 'one_time';
    const refuseFor = (flag: string) => {
      if (flags[flag] !== undefined) throw new UsageError(`--${flag} does not apply to --kind ${kind}`);
    };
    const base = {
      card_id: checkId(requiredFlag(flags, 'card'), 'card', '--card'),
      merchant_name: requiredFlag(flags, 'merchant'),
      ...optional('currency', stringFlag(flags, 'currency')),
      ...optional('agent', stringFlag(flags, 'agent')),
    };
    const amount = amountFlag(flags, 'amount');
    let input: PolicyCheckInput;
    switch (kind) {
      case 'one_time':
        refuseFor('interval');
        input = {
          kind,
          ...base,
          amount: amount ?? requiredFlag(flags, 'amount'),
          ...optional('authorization_type', choiceFlag(flags, 'type', AUTHORIZATION_TYPES)),
          ...optional('ttl_minutes', integerFlag(flags, 'ttl', TTL_MINUTES_MIN, TTL_MINUTES_MAX)),
        };
        break;
      case 'merchant_verification':
        refuseFor('type');
        refuseFor('interval');
        input = { kind, ...base, ...optional('amount', amount), ...optional('ttl_minutes', integerFlag(flags, 'ttl', TTL_MINUTES_MIN, TTL_MINUTES_MAX)) };
        break;
      case 'recurring':
        refuseFor('ttl');
        input = {
          kind,
          ...base,
          amount: amount ?? requiredFlag(flags, 'amount'),
          interval: choiceFlag(flags, 'interval', RECURRING_INTERVALS) ?? requiredFlag(flags, 'interval') as never,
          ...optional('authorization_type', choiceFlag(flags, 'type', AUTHORIZATION_TYPES)),
        };
        break;
    }
    return (client) => client.checkPolicy(input);
  },
  human: checkLines,
});

/** checkLines renders a check: the decision and its rule, every reason, then the budgets as a table. */
export function checkLines(check: PolicyCheck): string[] {
  const lines = [`${check.decision.toUpperCase()} by rule ${check.rule} (a check only: nothing was signed)`, 'Why:'];
  for (const reason of check.reasons) lines.push(`  - ${reason}`);
  if (check.budgets.length === 0) {
    lines.push('Budgets: none covers this request.');
    return lines;
  }
  const width = Math.max(6, ...check.budgets.map((budget) => budget.id.length));
  const column = (text: string) => text.padStart(12);
  lines.push('Budgets:', `  ${'BUDGET'.padEnd(width)}${column('LIMIT')}${column('EXPOSURE')}${column('REMAINING')}`);
  for (const budget of check.budgets) lines.push(`  ${budget.id.padEnd(width)}${column(budget.limit)}${column(budget.exposure)}${column(budget.remaining)}`);
  return lines;
}

/** `latch policy show` prints the effective policy (GET /policy, owner only). */
export const policyShowCommand = daemonCallCommand<PolicyView>({
  name: 'policy show',
  summary: 'Show the spending policy the daemon enforces, its SHA-256 and source',
  usage: `Usage: latch policy show [--json]

Prints the policy the running daemon enforces (GET /policy, owner only): the file's rules,
budgets and velocity limits with every default filled in, its SHA-256, and whether it comes from
$LATCH_HOME/policy.json ("file") or is the built-in allow-all ("default").

Exit codes: 0 shown; 7 refused (an agent token: agent_not_permitted); 8 daemon unreachable;
1 policy.json is invalid (503 policy_invalid, naming the field) or another failure.`,
  flags: {},
  positionalsMax: 0,
  prepare: () => (client) => client.policy(),
  human: (view) => [`Source: ${view.source === 'file' ? 'policy.json' : 'the default (no policy.json: everything is allowed)'}`, `SHA-256: ${view.sha256}`, JSON.stringify(view.policy, null, 2)],
});
