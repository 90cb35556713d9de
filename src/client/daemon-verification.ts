import { randomBytes } from 'node:crypto';
import { secretsEqual } from '../verify/constant-time.js';
import { AGENT_HEADER, CHALLENGE_BYTES, CHALLENGE_HEADER, daemonProof, PROOF_HEADER } from '../http/daemon-proof.js';
import { LatchClientError } from './client-errors.js';
import { TransportFailure, type HttpTransport, type TransportAnswer } from './http-transport.js';

/**
 * DaemonVerifier checks, before any token leaves the client, that the peer on the daemon's
 * address proves it holds that token (src/http/daemon-proof.ts). A verification is remembered
 * for the token it was made with, for the client's lifetime; a different token (the file was
 * rotated, the daemon restarted) or forget() makes the next call verify again. An agent's client
 * names the agent in `Latch-Agent`, and the daemon proves it holds that agent's token, so an agent
 * verifies the daemon without ever reading daemon_token.
 */
export class DaemonVerifier {
  private verified: string | undefined;
  private pending: { token: string; check: Promise<void> } | undefined;

  constructor(
    private readonly transport: HttpTransport,
    private readonly baseUrl: string,
    private readonly headers: () => Record<string, string>,
    private readonly timeoutMs: number,
    private readonly agent: string | undefined = undefined,
  ) {}

  /**
   * verify resolves when the peer proved it holds token, and throws daemon_not_verified (or
   * daemon_unreachable when nothing listens) otherwise. It never sends the token itself.
   */
  verify(token: string): Promise<void> {
    if (this.verified !== undefined && secretsEqual(this.verified, token)) return Promise.resolve();
    // Concurrent calls with the same token share one check.
    if (this.pending !== undefined && secretsEqual(this.pending.token, token)) return this.pending.check;
    this.verified = undefined;
    const check = this.challenge(token).then(
      () => {
        if (this.pending?.check === check) this.pending = undefined;
        this.verified = token;
      },
      (error: unknown) => {
        if (this.pending?.check === check) this.pending = undefined;
        throw error;
      },
    );
    this.pending = { token, check };
    return check;
  }

  /** forget drops the remembered verification, so that the next token is sent only after a new proof. */
  forget(): void {
    this.verified = undefined;
    this.pending = undefined;
  }

  private async challenge(token: string): Promise<void> {
    const challenge = randomBytes(CHALLENGE_BYTES).toString('base64url');
    let answer: TransportAnswer;
    try {
      answer = await this.transport.send({ method: 'GET', target: '/health', headers: { ...this.headers(), [CHALLENGE_HEADER]: challenge, ...(this.agent !== undefined && { [AGENT_HEADER]: this.agent }) }, timeoutMs: this.timeoutMs });
    } catch (error) {
      if (error instanceof TransportFailure && error.kind === 'refused') {
        throw new LatchClientError({ code: 'daemon_unreachable', status: null, message: `No Latch daemon answers at ${this.baseUrl} (${error.reason}).` });
      }
      throw this.notVerified(null, `it gave no answer to the identity check (${error instanceof TransportFailure ? error.reason : 'unexpected error'})`);
    }
    const proof = answer.headers[PROOF_HEADER];
    if (answer.status !== 200) throw this.notVerified(answer.status, `it answered the identity check with HTTP ${answer.status}`);
    if (typeof proof !== 'string') throw this.notVerified(answer.status, 'its answer carries no Latch-Proof header');
    if (!secretsEqual(proof, daemonProof(token, challenge, this.transport.address, this.agent))) throw this.notVerified(answer.status, 'its Latch-Proof is wrong for this token and address');
  }

  private notVerified(status: number | null, why: string): LatchClientError {
    // An agent's proof is keyed by its token: a daemon that never made this agent cannot give it,
    // which looks exactly like a squatter, so both are named.
    const agent = this.agent === undefined ? '' : ` Or the daemon does not know agent "${this.agent}" with this token (a token made before the daemon's key was pinned, or by another daemon): ask the owner for a new one (latch agent add ${this.agent}).`;
    return new LatchClientError({
      code: 'daemon_not_verified',
      status,
      message: `The program listening on ${this.baseUrl} did not prove it is the Latch daemon of this data directory: ${why}. Something else may be listening on the daemon's address; the token was not sent.${agent}`,
    });
  }
}
