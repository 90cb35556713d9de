/**
 * A scripted stand-in for the daemon on 127.0.0.1 port 0, for client tests that must count
 * requests exactly and answer in ways a real daemon never does (non-JSON, oversized, silent).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CHALLENGE_HEADER, KEY_PROOF_HEADER, keyProofForRequest, PROOF_HEADER, proofForRequest, type ProofKey, keyProofMessage } from '../../src/http/daemon-proof.js';
import { writePinnedKey } from '../../src/client/pinned-key.js';
import { generateSecretKey, publicKeyOf, signEd25519 } from '../support/raw-signing.js';
import { keyIdOf } from '../../src/crypto/jwk.js';

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What the stub does with one request: answer with a status and body, or hang up, or never answer. */
export type StubAction = { status: number; body: unknown; raw?: boolean } | { hangUp: true } | { silent: true };

export interface StubDaemon {
  url: string;
  seen: SeenRequest[];
  /** Actions for the next requests, in order (a function runs when its request arrives); when empty the stub answers 200 {}. */
  script: Array<StubAction | (() => StubAction)>;
  /**
   * The token the stub proves it holds, like the real daemon (src/http/daemon-proof.ts). While it
   * is set, a challenged GET /health is answered with a proof and counted in `challenges`, not in
   * `seen` and not from `script`; unset, the stub proves nothing, like a squatter.
   */
  proofToken: (() => string) | undefined;
  /** The device key the stub signs key proofs with (docs/decisions.md §21); see pinStubKey. */
  proofKey: ProofKey | undefined;
  /** How many identity checks the stub answered with a proof. */
  challenges: number;
  close(): Promise<void>;
}

/** errorBody is the daemon's common error body. */
export function errorBody(code: string, message = 'refused'): unknown {
  return { error: { code, message } };
}

/** startStubDaemon starts the stub; close() stops it and drops every connection. */
export async function startStubDaemon(): Promise<StubDaemon> {
  const seen: SeenRequest[] = [];
  const script: Array<StubAction | (() => StubAction)> = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const proof = stub.proofToken !== undefined && request.headers[CHALLENGE_HEADER] !== undefined ? proofForRequest(request, stub.proofToken) : undefined;
      if (proof !== undefined) {
        stub.challenges++;
        const keyProof = stub.proofKey === undefined ? undefined : keyProofForRequest(request, () => stub.proofKey);
        response.writeHead(200, { 'content-type': 'application/json', [PROOF_HEADER]: proof, ...(keyProof !== undefined && { [KEY_PROOF_HEADER]: keyProof }) });
        response.end(JSON.stringify({ status: 'ok', version: '0.0.0', uptime_seconds: 0, signing_key: null }));
        return;
      }
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const step = script.shift() ?? { status: 200, body: {} };
      const action = typeof step === 'function' ? step() : step;
      if ('hangUp' in action) {
        request.socket.destroy();
        return;
      }
      if ('silent' in action) return;
      const text = action.raw === true ? String(action.body) : JSON.stringify(action.body);
      response.writeHead(action.status, { 'content-type': 'application/json' });
      response.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const stub: StubDaemon = {
    url: `http://127.0.0.1:${port}`,
    seen,
    script,
    proofToken: undefined,
    proofKey: undefined,
    challenges: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return stub;
}

/** pinStubKey gives the stub a device key and pins it in home, so the client proves the stub before it sends a passphrase. */
export function pinStubKey(stub: StubDaemon, home: string): void {
  const secretKey = generateSecretKey();
  const publicKey = publicKeyOf(secretKey);
  writePinnedKey(home, publicKey);
  stub.proofKey = { keyId: keyIdOf(publicKey), publicKey, sign: (challenge, address) => signEd25519(keyProofMessage(challenge, address), secretKey) };
}
