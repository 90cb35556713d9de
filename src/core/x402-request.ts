/**
 * From an x402 payment's requirements to the pipeline's request (shared/spec/x402.md §1–2): the
 * asset must be one that counts (else policy_denied, rule x402_asset — Latch never guesses a
 * price), and the atomic amount is counted in the asset's currency, rounded up.
 */
import { LatchError, invalidRequest } from '../errors/latch-error.js';
import { AUTHORIZATION_AMOUNT_MAX_MINOR, currencyDecimals, formatMinor } from '../money/amount.js';
import { findAsset, type X402Asset } from '../x402/assets.js';
import { countedMinor } from '../x402/counting.js';
import type { X402Requirements, X402Resource } from '../x402/requirements.js';
import type { X402Request } from './authorization-request.js';

/** The rule a policy_denied names for an asset that does not count. */
export const X402_ASSET_RULE = 'x402_asset';

/** The validated body of POST /x402/authorize. */
export interface X402Input {
  resource: X402Resource;
  /** The resource URL's normalized host. */
  merchant: string;
  requirements: X402Requirements;
  reference?: string;
}

/** x402Request counts an x402 payment's requirements with the assets that count; see the file's comment. */
export function x402Request(input: X402Input, assets: readonly X402Asset[]): X402Request {
  const { requirements } = input;
  const asset = findAsset(assets, requirements.network, requirements.asset);
  if (asset === undefined) {
    throw new LatchError('policy_denied', {
      rule: X402_ASSET_RULE,
      reasons: [`asset ${requirements.asset} on ${requirements.network} is not in the assets that count (GET /x402/assets)`],
      message: `The spending policy refuses this payment (rule ${X402_ASSET_RULE}): its asset on ${requirements.network} is not one that counts; Latch never guesses a price.`,
    });
  }
  const decimals = currencyDecimals(asset.countsAs) ?? 2;
  const amountMinor = countedMinor(requirements.amount, asset.decimals, decimals, AUTHORIZATION_AMOUNT_MAX_MINOR);
  if (amountMinor === undefined) {
    throw invalidRequest('requirements.amount', `requirements.amount counts more than ${formatMinor(AUTHORIZATION_AMOUNT_MAX_MINOR, decimals)} ${asset.countsAs}, the most one authorization may.`);
  }
  return {
    kind: 'x402',
    cardId: null,
    merchant: input.merchant,
    amountMinor,
    currency: asset.countsAs,
    ...(input.reference !== undefined && { reference: input.reference }),
    x402: { resource: input.resource, requirements, symbol: asset.symbol, decimals: asset.decimals },
  };
}
