/**
 * A stand-in daemon that keeps approvals the way docs/decisions.md §15.4 describes them: list, get,
 * approve (with the passphrase, or an owner session opened with it, when one is set) and deny, with
 * the real error codes. It proves the data directory's token like the real daemon, so the real
 * client talks to it unchanged.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readToken } from '../../src/datadir/token.js';
import { CHALLENGE_HEADER, KEY_PROOF_HEADER, keyProofForRequest, PROOF_HEADER, proofForRequest, keyProofMessage } from '../../src/http/daemon-proof.js';
import { writePinnedKey } from '../../src/client/pinned-key.js';
import { generateSecretKey, publicKeyOf, signEd25519 } from '../support/raw-signing.js';
import { keyIdOf } from '../../src/crypto/jwk.js';

export interface StubApproval {
  approval_id: string;
  status: string;
  agent: string;
  request: Record<string, unknown>;
  rule: string;
  reasons: string[];
  created_at: string;
  expires_at: string;
  reason?: string | null;
  authorization?: { policy_id: string } | null;
}

export interface ApprovalsStub {
  url: string;
  /** The approvals, in the order they were added (the list answers newest first). */
  approvals: StubApproval[];
  /** Every approve/deny that reached the stub, with the body it carried. */
  decisions: Array<{ approvalId: string; action: 'approve' | 'deny'; body: Record<string, unknown> }>;
  /** The passphrase approving needs, or undefined. */
  passphrase: string | undefined;
  /** While true, every request but the identity check answers 503 (a daemon in trouble). */
  down: boolean;
  /** Owner sessions opened (POST /owner/sessions with the right passphrase) and ended (DELETE /owner/sessions/current). */
  sessions: { opened: number; ended: number; live: Set<string>; calls: string[] };
  close(): Promise<void>;
}

/** pendingApproval makes an approval for a card payment the stub can hold. */
export function pendingApproval(id: string, overrides: Partial<StubApproval['request']> = {}): StubApproval {
  return {
    approval_id: id,
    status: 'pending_approval',
    agent: 'shopper',
    request: { kind: 'one_time', card_id: 'card_groceries1', merchant_name: 'shop.example.com', amount: '80.00', currency: 'USD', authorization_type: 'exact', ttl_seconds: 1800, ...overrides },
    rule: 'large-purchases',
    reasons: ['amount 80.00 USD is above 50.00 USD'],
    created_at: '2026-01-01T10:00:00Z',
    expires_at: '2026-01-01T10:15:00Z',
  };
}

function errorBody(code: string): unknown {
  return { error: { code, message: `stub: ${code}` } };
}

/** startApprovalsStub listens on 127.0.0.1 port 0 and accepts the token of home. */
export async function startApprovalsStub(home: string): Promise<ApprovalsStub> {
  // Its own device key, pinned in home as latch service install --system would, so that the
  // client proves the stub before it sends a passphrase (docs/decisions.md §21).
  const secretKey = generateSecretKey();
  const publicKey = publicKeyOf(secretKey);
  writePinnedKey(home, publicKey);
  const proofKey = { keyId: keyIdOf(publicKey), publicKey, sign: (challenge: string, address: string) => signEd25519(keyProofMessage(challenge, address), secretKey) };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answer = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
        response.writeHead(status, { 'content-type': 'application/json', ...headers });
        response.end(JSON.stringify(body));
      };
      if (request.headers[CHALLENGE_HEADER] !== undefined) {
        const proof = proofForRequest(request, () => readToken(home));
        const keyProof = keyProofForRequest(request, () => proofKey);
        return answer(200, { status: 'ok', version: '0.0.0', uptime_seconds: 0, signing_key: null }, { ...(proof !== undefined && { [PROOF_HEADER]: proof }), ...(keyProof !== undefined && { [KEY_PROOF_HEADER]: keyProof }) });
      }
      const url = new URL(request.url ?? '/', 'http://stub');
      const body = chunks.length === 0 ? {} : (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
      // POST /owner/sessions is public, as in the daemon: the passphrase is the proof.
      if (request.method === 'POST' && url.pathname === '/owner/sessions') {
        if (stub.passphrase === undefined || body['passphrase'] !== stub.passphrase) return answer(401, errorBody('invalid_passphrase'));
        const token = `los_${randomBytes(24).toString('base64url')}`;
        stub.sessions.live.add(token);
        stub.sessions.opened += 1;
        return answer(201, { token, expires_at: '2026-01-01T11:00:00Z' });
      }
      const bearer = request.headers['authorization'] ?? '';
      const session = bearer.startsWith('Bearer los_') && stub.sessions.live.has(bearer.slice('Bearer '.length)) ? bearer.slice('Bearer '.length) : undefined;
      if (session === undefined && bearer !== `Bearer ${readToken(home)}`) return answer(401, errorBody('invalid_bearer_token'));
      if (session !== undefined && !(request.method === 'DELETE' && url.pathname === '/owner/sessions/current')) stub.sessions.calls.push(`${request.method ?? ''} ${url.pathname}`);
      if (stub.down) return answer(503, errorBody('internal_error'));
      if (request.method === 'DELETE' && url.pathname === '/owner/sessions/current' && session !== undefined) {
        stub.sessions.live.delete(session);
        stub.sessions.ended += 1;
        response.writeHead(204);
        return response.end();
      }
      if (request.method === 'GET' && url.pathname === '/cards') {
        return answer(200, { cards: [{ card_id: 'card_groceries1', label: 'Groceries', last4: '4242', status: 'active', balance: '100.00', currency: 'USD' }] });
      }
      if (request.method === 'GET' && url.pathname === '/approvals') {
        const status = url.searchParams.get('status');
        const list = [...stub.approvals].reverse().filter((a) => status === null || a.status === status);
        return answer(200, { approvals: list, has_more: false });
      }
      const match = /^\/approvals\/([^/]+)(?:\/(approve|deny))?$/.exec(url.pathname);
      const approval = match === null ? undefined : stub.approvals.find((a) => a.approval_id === decodeURIComponent(match[1] as string));
      if (match === null) return answer(404, errorBody('not_found'));
      if (approval === undefined) return answer(404, errorBody('approval_not_found'));
      const action = match[2] as 'approve' | 'deny' | undefined;
      if (action === undefined && request.method === 'GET') return answer(200, approval);
      if (action === undefined || request.method !== 'POST') return answer(405, errorBody('method_not_allowed'));
      if (approval.status !== 'pending_approval') return answer(409, errorBody('approval_not_pending'));
      if (action === 'approve' && stub.passphrase !== undefined && session === undefined && body['passphrase'] !== stub.passphrase) return answer(401, errorBody('invalid_passphrase'));
      stub.decisions.push({ approvalId: approval.approval_id, action, body });
      if (action === 'approve') {
        approval.status = 'approved';
        approval.authorization = { policy_id: `pw_${approval.approval_id.slice(3)}` };
      } else {
        approval.status = 'denied';
        approval.reason = typeof body['reason'] === 'string' ? body['reason'] : null;
      }
      return answer(200, approval);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const stub: ApprovalsStub = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    approvals: [],
    decisions: [],
    passphrase: undefined,
    down: false,
    sessions: { opened: 0, ended: 0, live: new Set(), calls: [] },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return stub;
}
