/**
 * One MCP session: the lifecycle (initialize, notifications/initialized), ping, tools/list and
 * tools/call, over any transport that hands it messages and takes its response lines.
 */
import { LatchClientError } from '../client/client-errors.js';
import type { Approval } from '../client/types.js';
import { messageNaming } from '../errors/latch-error.js';
import { isJsonObject, JsonNumber, type JsonObject, type JsonValue } from '../json/parse-json.js';
import type { Logger } from '../log/logger.js';
import { approvalRefusal, isApproval } from './approval-guidance.js';
import { ClientRequests } from './client-requests.js';
import { errorLine, idKey, resultLine, RPC_ERROR, type Incoming, type RpcId } from './json-rpc.js';
import { OwnerApprovals, type OwnerApprovalOptions } from './owner-approvals.js';
import { atLeast, negotiateVersion, type ProtocolVersion } from './protocol-version.js';
import { toolErrorResult, toolSuccessResult } from './tool-results.js';
import { ToolInputError, validateArguments } from './tool-input.js';
import { AGENT_RULES, argumentOf, findTool, toolsFor, type ToolClient, type ToolDefinition } from './tools.js';

/** What a session needs: a way to make the client once the MCP client has said who it is, a logger, the version. */
export interface SessionOptions {
  /** makeClient is called once, at the first tool call, with a User-Agent naming the MCP client (audit.log records it). */
  makeClient(userAgent: string): ToolClient;
  /** Who the client calls the daemon as: an agent's session lists only the tools agents may use. */
  caller: 'owner' | 'agent';
  log: Logger;
  serverVersion: string;
  /**
   * Where the console's approval page is and how long a call waits for the owner: present, a
   * client that declared URL-mode elicitation is asked to open it (shared/spec/mcp-approvals.md).
   */
  ownerApprovals?: Omit<OwnerApprovalOptions, 'log'>;
}

/** The server's instructions, sent in the initialize result: what every agent must know first. */
export const SERVER_INSTRUCTIONS =
  'Latch creates scoped, device-signed payment authorizations on the user\'s cards without card numbers. ' +
  'Refer to cards only by card_id (from latch_list_cards). ' +
  AGENT_RULES +
  ' If latch_health fails, the local daemon is down: that is not a payment failure. If it works but other tools return upstream_unavailable, the cloud is down: retry only that operation later.';

type Phase = 'new' | 'initialized' | 'ready';

/**
 * McpSession handles parsed messages and returns the response line for a request (undefined for
 * notifications and cancelled requests). It never writes anywhere itself.
 */
export class McpSession {
  private phase: Phase = 'new';
  private version: ProtocolVersion | undefined;
  private clientName = 'unknown';
  private client: ToolClient | undefined;
  private readonly cancelled = new Set<string>();
  /** The tools/call requests running, by id: notifications/cancelled ends a wait for the owner. */
  private readonly running = new Map<string, AbortController>();
  private readonly requests = new ClientRequests();
  private readonly ownerApprovals: OwnerApprovals | undefined;
  /** Whether the client declared URL-mode elicitation (capabilities.elicitation.url) in initialize. */
  private urlElicitation = false;

  constructor(private readonly options: SessionOptions) {
    this.ownerApprovals = options.ownerApprovals === undefined ? undefined : new OwnerApprovals(this.requests, { ...options.ownerApprovals, log: options.log });
  }

  /** connect gives the session a way to send its own requests and notifications to the client. */
  connect(send: (line: string) => void): void {
    this.requests.connect(send);
  }

  /** close ends every wait for an owner's decision (the client went away). */
  close(): void {
    this.ownerApprovals?.close();
    for (const controller of this.running.values()) controller.abort();
  }

  /** handle answers one message. */
  async handle(message: Incoming, inBatch = false): Promise<string | undefined> {
    switch (message.kind) {
      case 'response':
        this.requests.answer(message.id, message.result, message.error);
        return undefined;
      case 'invalid':
        return errorLine(message.id, RPC_ERROR.invalidRequest, `Invalid Request: ${message.message}`);
      case 'notification':
        this.notification(message.method, message.params);
        return undefined;
      case 'request': {
        const line = await this.request(message.id, message.method, message.params, message.paramsValid, inBatch);
        // A request the client cancelled gets no response (MCP cancellation).
        return this.cancelled.delete(idKey(message.id)) ? undefined : line;
      }
    }
  }

  private notification(method: string, params: JsonObject | undefined): void {
    if (method === 'notifications/initialized') {
      if (this.phase === 'initialized') this.phase = 'ready';
      return;
    }
    if (method === 'notifications/cancelled') {
      const requestId = params?.['requestId'];
      if (typeof requestId === 'string' || requestId instanceof JsonNumber) {
        this.cancelled.add(idKey(requestId));
        this.running.get(idKey(requestId))?.abort();
      }
      // Bounded: a client that cancels ids that never existed cannot grow the set without limit.
      if (this.cancelled.size > 1024) this.cancelled.clear();
    }
    // Other notifications are informational; JSON-RPC forbids answering them.
  }

  private async request(id: RpcId, method: string, params: JsonObject | undefined, paramsValid: boolean, inBatch: boolean): Promise<string> {
    if (method === 'ping') return resultLine(id, {});
    if (method === 'initialize') {
      if (inBatch) return errorLine(id, RPC_ERROR.invalidRequest, 'initialize must not be part of a batch.');
      return this.initialize(id, params, paramsValid);
    }
    if (this.phase === 'new') return errorLine(id, RPC_ERROR.invalidRequest, 'Server not initialized: the first request must be initialize.');
    if (!paramsValid) return errorLine(id, RPC_ERROR.invalidParams, 'params must be an object.');
    if (method === 'tools/list') return resultLine(id, { tools: this.toolList() });
    if (method === 'tools/call') return this.callTool(id, params);
    return errorLine(id, RPC_ERROR.methodNotFound, `Method not found: ${method.slice(0, 64)}`);
  }

  private initialize(id: RpcId, params: JsonObject | undefined, paramsValid: boolean): string {
    if (this.phase !== 'new') return errorLine(id, RPC_ERROR.invalidRequest, 'The session is already initialized.');
    const requested = params?.['protocolVersion'];
    if (!paramsValid || typeof requested !== 'string') return errorLine(id, RPC_ERROR.invalidParams, 'initialize needs params.protocolVersion (a string).');
    const version = negotiateVersion(requested);
    this.version = version;
    this.clientName = clientNameOf(params?.['clientInfo']);
    this.urlElicitation = atLeast(version, '2025-11-25') && declaresUrlElicitation(params?.['capabilities']);
    this.phase = 'initialized';
    this.options.log.info('mcp_initialized', { requested_version: requested.slice(0, 32), protocol_version: version, client: this.clientName, url_elicitation: this.urlElicitation });
    const serverInfo: Record<string, unknown> = { name: 'latch', version: this.options.serverVersion };
    if (atLeast(version, '2025-06-18')) serverInfo['title'] = 'Latch payment authorizations';
    return resultLine(id, { protocolVersion: version, capabilities: { tools: { listChanged: false } }, serverInfo, instructions: SERVER_INSTRUCTIONS });
  }

  private toolList(): Array<Record<string, unknown>> {
    const version = this.version as ProtocolVersion;
    return toolsFor(this.options.caller).map((tool) => {
      const listed: Record<string, unknown> = { name: tool.name };
      if (atLeast(version, '2025-06-18')) listed['title'] = tool.title;
      listed['description'] = tool.description;
      listed['inputSchema'] = tool.inputSchema;
      // outputSchema describes structuredContent, which exists from 2025-06-18 on.
      if (atLeast(version, '2025-06-18')) listed['outputSchema'] = tool.outputSchema;
      if (atLeast(version, '2025-03-26')) listed['annotations'] = { title: tool.title, ...tool.annotations };
      return listed;
    });
  }

  private async callTool(id: RpcId, params: JsonObject | undefined): Promise<string> {
    const name = params?.['name'];
    const args = params?.['arguments'];
    if (typeof name !== 'string') return errorLine(id, RPC_ERROR.invalidParams, 'tools/call needs params.name (a string).');
    const tool = findTool(name, this.options.caller);
    if (tool === undefined) return errorLine(id, RPC_ERROR.invalidParams, `Unknown tool: ${name.slice(0, 64)}`);
    if (args !== undefined && !isJsonObject(args)) {
      return errorLine(id, RPC_ERROR.invalidParams, 'tools/call params.arguments must be an object.');
    }
    const structured = atLeast(this.version as ProtocolVersion, '2025-06-18');
    try {
      const validated = validateArguments(tool.inputSchema, args);
      const result = await this.decidedBy(tool, await tool.run(this.toolClient(), validated), id, params);
      this.options.log.info('mcp_tool_call', { tool: tool.name, outcome: 'ok' });
      return resultLine(id, toolSuccessResult(result, structured));
    } catch (error) {
      if (error instanceof ToolInputError) {
        const refusal = new LatchClientError({ code: 'invalid_request', status: null, message: error.message, param: error.param });
        return resultLine(id, toolErrorResult(refusal));
      }
      if (error instanceof LatchClientError) {
        this.options.log.info('mcp_tool_call', { tool: tool.name, outcome: 'error', code: error.code });
        return resultLine(id, toolErrorResult(inToolTerms(error, tool)));
      }
      this.options.log.error('mcp_tool_failed', { tool: tool.name, error });
      return errorLine(id, RPC_ERROR.internalError, 'Internal error while running the tool.');
    }
  }

  /**
   * decidedBy turns a payment tool's pending approval into the owner's decision when the client
   * can show the person the console's page (URL-mode elicitation): the authorization once
   * approved, the tool error once denied or expired (thrown), else the pending approval as it
   * was. Read-only tools (latch_get_approval) and clients without URL mode get the result as it is.
   */
  private async decidedBy(tool: ToolDefinition, result: unknown, id: RpcId, params: JsonObject | undefined): Promise<unknown> {
    const owner = this.ownerApprovals;
    if (owner === undefined || !this.urlElicitation || tool.annotations.readOnlyHint || !isApproval(result) || result.status !== 'pending_approval') return result;
    const key = idKey(id);
    const controller = new AbortController();
    this.running.set(key, controller);
    try {
      const token = progressTokenOf(params);
      const progress = token === undefined ? undefined : (elapsedSeconds: number) =>
        this.requests.notify('notifications/progress', { progressToken: token, progress: elapsedSeconds, message: 'Waiting for the owner to approve or deny in the Latch console.' });
      const decided = await owner.awaitDecision(this.toolClient(), result, { signal: controller.signal, ...(progress !== undefined && { progress }) });
      if (decided === undefined) return result;
      const refusal = approvalRefusal(decided);
      if (refusal !== undefined) throw refusal;
      return allowedResult(decided);
    } finally {
      this.running.delete(key);
    }
  }

  private toolClient(): ToolClient {
    this.client ??= this.options.makeClient(`latch-mcp/${this.options.serverVersion} (${this.clientName})`);
    return this.client;
  }
}

/**
 * inToolTerms restates a daemon error in the tool's words: the param and the message name the
 * tool's argument (merchant_domain), not the daemon's field (merchant_name), which the agent
 * cannot send.
 */
function inToolTerms(error: LatchClientError, tool: ToolDefinition): LatchClientError {
  if (error.param === undefined) return error;
  const name = argumentOf(tool, error.param);
  if (name === error.param) return error;
  return new LatchClientError({
    code: error.code,
    status: error.status,
    message: messageNaming(error.message, error.param, name),
    remedy: error.remedy,
    param: name,
    ...(error.requestId !== undefined && { requestId: error.requestId }),
    ...(error.idempotencyKey !== undefined && { idempotencyKey: error.idempotencyKey }),
  });
}

/**
 * allowedResult is what the tool returns when the request is allowed at once: an AP2 request's
 * mandates (an approved AP2 approval carries them in `ap2_mandates`), any other's authorization.
 */
function allowedResult(approved: Approval): unknown {
  const mandates = (approved as Approval & { ap2_mandates?: unknown })['ap2_mandates'];
  return mandates ?? approved.authorization ?? approved;
}

/** declaresUrlElicitation reads initialize's capabilities: URL mode only when `elicitation.url` is an object (a bare `elicitation: {}` is form mode). */
function declaresUrlElicitation(capabilities: JsonValue | undefined): boolean {
  if (!isJsonObject(capabilities)) return false;
  const elicitation = capabilities['elicitation'];
  return isJsonObject(elicitation) && isJsonObject(elicitation['url']);
}

/** progressTokenOf reads tools/call's params._meta.progressToken (a string or a number). */
function progressTokenOf(params: JsonObject | undefined): string | number | undefined {
  const meta = params?.['_meta'];
  if (!isJsonObject(meta)) return undefined;
  const token = meta['progressToken'];
  if (typeof token === 'string' && token.length <= 256) return token;
  // A numeric token goes back as the number it was (MCP progress echoes the token).
  if (token instanceof JsonNumber && /^-?\d{1,15}$/.test(token.text)) return Number(token.text);
  return undefined;
}

/** clientNameOf reads clientInfo's name and version as printable text for logs and the User-Agent. */
function clientNameOf(info: unknown): string {
  if (typeof info !== 'object' || info === null) return 'unknown';
  const record = info as Record<string, unknown>;
  const name = typeof record['name'] === 'string' ? record['name'] : 'unknown';
  const version = typeof record['version'] === 'string' ? `/${record['version']}` : '';
  return `${name}${version}`.replace(/[^\x20-\x7e]/g, '?').replace(/[()]/g, '').slice(0, 64);
}
