/**
 * What the console's spending page draws, computed from the authorization ledger and the policy
 * gate's standings: per agent and per card, the amounts authorized on each of the last 30 days
 * (per currency), each budget split into used (charged), reserved (authorized, not yet charged)
 * and remaining, and each velocity limit's count. Amounts stay in minor units until the edge.
 */
import type { AuthorizationEntry } from '../core/authorization-ledger.js';
import { currencyDecimals, formatMinor } from '../money/amount.js';
import type { PolicyStandings } from '../policy-text/policy-reads.js';
import { budgetCovers } from '../policy/scope-match.js';

export const SPENDING_DAYS = 30;
const DAY_SECONDS = 86_400;

export interface SpendingSummary {
  /** The 30 days, oldest first, as UTC dates (YYYY-MM-DD). */
  days: string[];
  by_currency: Record<string, { decimals: number; by_agent: Record<string, number[]>; by_card: Record<string, number[]> }>;
  budgets: Array<{ id: string; period: string; currency: string; limit: string; used: string; reserved: string; remaining: string; limit_minor: number; used_minor: number; reserved_minor: number }>;
  velocity: Array<{ id: string; window_seconds: number; max: number; count: number }>;
}

/** summarizeSpending builds the summary at nowSeconds. */
export function summarizeSpending(entries: Iterable<Readonly<AuthorizationEntry>>, standings: PolicyStandings, nowSeconds: number): SpendingSummary {
  const todayStart = Math.floor(nowSeconds / DAY_SECONDS) * DAY_SECONDS;
  const firstDay = todayStart - (SPENDING_DAYS - 1) * DAY_SECONDS;
  const days = Array.from({ length: SPENDING_DAYS }, (_, index) => new Date((firstDay + index * DAY_SECONDS) * 1000).toISOString().slice(0, 10));
  const byCurrency: SpendingSummary['by_currency'] = {};
  const kept: Array<Readonly<AuthorizationEntry>> = [];
  for (const entry of entries) {
    if (entry.state === 'failed') continue;
    kept.push(entry);
    if (entry.signedAtSeconds < firstDay) continue;
    const day = Math.floor((entry.signedAtSeconds - firstDay) / DAY_SECONDS);
    if (day >= SPENDING_DAYS) continue;
    const slot = (byCurrency[entry.currency] ??= { decimals: currencyDecimals(entry.currency) ?? 2, by_agent: {}, by_card: {} });
    const amount = spentOrHeld(entry);
    add(slot.by_agent, entry.agent, day, amount);
    add(slot.by_card, entry.cardId ?? 'account', day, amount);
  }
  const budgets = standings.budgets.map(({ budget, exposureMinor }) => {
    const currency = budget.currencies?.length === 1 ? (budget.currencies[0] as string) : '';
    const decimals = currencyDecimals(currency) ?? 2;
    // Charged amounts inside the budget's window and scope; the rest of its exposure is held.
    let chargedMinor = 0;
    for (const entry of kept) {
      if (entry.state !== 'used' || entry.signedAtSeconds <= nowSeconds - budget.windowSeconds) continue;
      if (!budgetCovers(budget, { agent: entry.agent, cardId: entry.cardId, merchant: entry.merchant, currency: entry.currency })) continue;
      chargedMinor += entry.usedMinor ?? entry.amountMinor;
    }
    const usedMinor = Math.min(chargedMinor, exposureMinor);
    const reservedMinor = exposureMinor - usedMinor;
    const remainingMinor = Math.max(budget.limitMinor - exposureMinor, 0);
    return {
      id: budget.id,
      period: budget.per,
      currency,
      limit: formatMinor(budget.limitMinor, decimals),
      used: formatMinor(usedMinor, decimals),
      reserved: formatMinor(reservedMinor, decimals),
      remaining: formatMinor(remainingMinor, decimals),
      limit_minor: budget.limitMinor,
      used_minor: usedMinor,
      reserved_minor: reservedMinor,
    };
  });
  const velocity = standings.velocity.map(({ velocity: limit, count }) => ({ id: limit.id, window_seconds: limit.perSeconds, max: limit.maxCount, count }));
  return { days, by_currency: byCurrency, budgets, velocity };
}

/** What an authorization stands for on the chart: what was charged, or what it may still charge. */
function spentOrHeld(entry: Readonly<AuthorizationEntry>): number {
  if (entry.state === 'used') return entry.usedMinor ?? entry.amountMinor;
  if (entry.state === 'active') return entry.amountMinor;
  return 0;
}

function add(series: Record<string, number[]>, name: string, day: number, amountMinor: number): void {
  const values = (series[name] ??= new Array<number>(SPENDING_DAYS).fill(0));
  values[day] = (values[day] ?? 0) + amountMinor;
}
