/**
 * An x402 world for the guard's tests, built from x402's own packages (@x402/core, @x402/fetch,
 * @x402/evm 2.27.0, viem), pinned test-only devDependencies: an in-process resource server that
 * answers 402 with a PaymentRequired and serves the paid request, a facilitator that verifies each
 * payment's EIP-712 signature with viem and counts settlements, and the agent's x402Client with
 * ExactEvmScheme and UptoEvmScheme over a fixed test key whose signing calls are counted.
 */
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { x402Client } from '@x402/core/client';
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http';
import { wrapFetchWithPayment } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { UptoEvmScheme } from '@x402/evm/upto/client';
import { authorizationTypes, PERMIT2_ADDRESS, uptoPermit2WitnessTypes } from '@x402/evm';
import { verifyTypedData, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/** Anvil's second well-known key: a fixed test key that holds nothing anywhere. */
export const TEST_KEY: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
export const BASE_SEPOLIA = 'eip155:84532';
export const BASE_SEPOLIA_USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
export const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
export const FACILITATOR_ADDRESS = '0x1111111111111111111111111111111111111111';

/** What the resource server asks for one path. */
export interface PriceTag {
  scheme: 'exact' | 'upto';
  amount: string;
  asset?: string;
  network?: string;
  payTo?: string;
  /** For upto: the atomic amount the facilitator settles (default the maximum). */
  settles?: string;
}

/** One settlement the facilitator made. */
export interface Settlement {
  path: string;
  scheme: string;
  amount: string;
  payer: string;
  transaction: string;
}

export interface X402World {
  url(path: string): string;
  /** Sets what a path costs. */
  price(path: string, tag: PriceTag): void;
  settlements: Settlement[];
  /** Payments the facilitator refused (bad signature, wrong payee or amount). */
  refused: string[];
  /** How many times the agent's key signed. */
  signatures(): number;
  /** The agent's client: exact and upto registered for Base Sepolia, with the fixed key. */
  client(): x402Client;
  /** A fetch that pays through client. */
  pay(client: x402Client): (input: string, init?: RequestInit) => Promise<Response>;
  close(): Promise<void>;
}

/** startX402World starts the resource server and its facilitator on an ephemeral loopback port. */
export async function startX402World(): Promise<X402World> {
  const prices = new Map<string, PriceTag>();
  const settlements: Settlement[] = [];
  const refused: string[] = [];
  let signed = 0;
  const account = privateKeyToAccount(TEST_KEY);
  const counted = { ...account, signTypedData: async (...args: Parameters<typeof account.signTypedData>) => { signed++; return account.signTypedData(...args); } };
  const server: Server = createServer((request, response) => {
    void serve(request.url ?? '/', request.headers['payment-signature'] as string | undefined).then(({ status, headers, body }) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify(body));
    });
  });
  const requirementsOf = (path: string) => {
    const tag = prices.get(path);
    if (tag === undefined) return undefined;
    return {
      scheme: tag.scheme,
      network: tag.network ?? BASE_SEPOLIA,
      amount: tag.amount,
      asset: tag.asset ?? BASE_SEPOLIA_USDC,
      payTo: tag.payTo ?? PAY_TO,
      maxTimeoutSeconds: 60,
      extra: tag.scheme === 'upto' ? { name: 'USDC', version: '2', facilitatorAddress: FACILITATOR_ADDRESS } : { name: 'USDC', version: '2' },
    };
  };
  const serve = async (path: string, signature: string | undefined): Promise<{ status: number; headers: Record<string, string>; body: unknown }> => {
    const requirements = requirementsOf(path);
    if (requirements === undefined) return { status: 404, headers: {}, body: { error: 'not found' } };
    const paymentRequired = { x402Version: 2, resource: { url: `http://127.0.0.1:${port}${path}`, description: 'Market data', mimeType: 'application/json' }, accepts: [requirements] };
    if (signature === undefined) return { status: 402, headers: { 'PAYMENT-REQUIRED': encodePaymentRequiredHeader(paymentRequired as never) }, body: {} };
    const payload = decodePaymentSignatureHeader(signature) as unknown as { accepted: typeof requirements; payload: Record<string, any> };
    const payer = await verifyPayment(payload, requirements);
    if (payer === undefined) {
      refused.push(path);
      return { status: 402, headers: { 'PAYMENT-REQUIRED': encodePaymentRequiredHeader({ ...paymentRequired, error: 'invalid_payment' } as never) }, body: {} };
    }
    const tag = prices.get(path) as PriceTag;
    const amount = tag.scheme === 'upto' ? (tag.settles ?? tag.amount) : tag.amount;
    const transaction = `0x${randomBytes(32).toString('hex')}`;
    settlements.push({ path, scheme: tag.scheme, amount, payer, transaction });
    const settleResponse = { success: true, transaction, network: requirements.network, payer, ...(tag.scheme === 'upto' && { amount }) };
    return { status: 200, headers: { 'PAYMENT-RESPONSE': encodePaymentResponseHeader(settleResponse as never) }, body: { data: 'premium' } };
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    price: (path, tag) => void prices.set(path, tag),
    settlements,
    refused,
    signatures: () => signed,
    client: () => new x402Client().register(BASE_SEPOLIA, new ExactEvmScheme(counted as never)).register(BASE_SEPOLIA, new UptoEvmScheme(counted as never)),
    pay: (client) => wrapFetchWithPayment(fetch, client) as (input: string, init?: RequestInit) => Promise<Response>,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * verifyPayment is the facilitator's check: the payment is for exactly these requirements, and its
 * EIP-712 signature (EIP-3009 for exact, Permit2 with the upto witness for upto) recovers to the
 * payer. It answers the payer, or undefined.
 */
async function verifyPayment(payment: { accepted: Record<string, unknown>; payload: Record<string, any> }, requirements: Record<string, any>): Promise<string | undefined> {
  const chainId = Number(String(requirements['network']).split(':')[1]);
  try {
    if (requirements['scheme'] === 'exact') {
      const authorization = payment.payload['authorization'];
      if (authorization.to.toLowerCase() !== requirements['payTo'].toLowerCase() || authorization.value !== requirements['amount']) return undefined;
      const ok = await verifyTypedData({
        address: authorization.from,
        domain: { name: requirements['extra'].name, version: requirements['extra'].version, chainId, verifyingContract: requirements['asset'] },
        types: authorizationTypes,
        primaryType: 'TransferWithAuthorization',
        message: { from: authorization.from, to: authorization.to, value: BigInt(authorization.value), validAfter: BigInt(authorization.validAfter), validBefore: BigInt(authorization.validBefore), nonce: authorization.nonce },
        signature: payment.payload['signature'],
      });
      return ok ? authorization.from : undefined;
    }
    const permit = payment.payload['permit2Authorization'];
    if (permit.witness.to.toLowerCase() !== requirements['payTo'].toLowerCase() || permit.permitted.amount !== requirements['amount']) return undefined;
    const ok = await verifyTypedData({
      address: permit.from,
      domain: { name: 'Permit2', chainId, verifyingContract: PERMIT2_ADDRESS },
      types: uptoPermit2WitnessTypes,
      primaryType: 'PermitWitnessTransferFrom',
      message: {
        permitted: { token: permit.permitted.token, amount: BigInt(permit.permitted.amount) },
        spender: permit.spender,
        nonce: BigInt(permit.nonce),
        deadline: BigInt(permit.deadline),
        witness: { to: permit.witness.to, facilitator: permit.witness.facilitator, validAfter: BigInt(permit.witness.validAfter) },
      },
      signature: payment.payload['signature'],
    });
    return ok ? permit.from : undefined;
  } catch {
    return undefined;
  }
}
