/**
 * x402 v2's PaymentRequirements and ResourceInfo as the guard keeps them (shared/spec/x402.md §2,
 * §6). Their hash and the comparison a payload binding uses are in core/x402-terms.ts.
 */

/** The schemes the guard decides: `exact` counts its amount, `upto` reserves its maximum. */
export const X402_SCHEMES = ['exact', 'upto'] as const;
export type X402Scheme = (typeof X402_SCHEMES)[number];

/** The only x402 version the guard speaks. */
export const X402_VERSION = 2;

/**
 * One PaymentRequirements, as x402 v2 names its members. The scheme is one the guard decides; the
 * agent's adapter (x402-guard/guard.ts) reads them as its client passes them, any scheme (`string`).
 */
export interface X402Requirements<Scheme extends string = X402Scheme> {
  scheme: Scheme;
  network: string;
  /** The atomic amount (for `upto`, the maximum), 1–78 digits. */
  amount: string;
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number;
  /** Scheme data (EIP-712 domain name and version for EVM): hashed, never interpreted. */
  extra?: Record<string, unknown>;
}

/** x402's ResourceInfo: `url` is what the merchant is read from; the rest is shown and kept. */
export interface X402Resource {
  url: string;
  description?: string;
  mimeType?: string;
  serviceName?: string;
  tags?: string[];
  iconUrl?: string;
}
