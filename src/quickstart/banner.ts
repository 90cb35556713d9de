/** The quick start's printed tour: ports, where the token is, and copy-paste curl commands. */

export interface BannerFacts {
  portA: number;
  portB: number;
  cloudUrl: string;
  tokenPath: string;
  adminKeyPath: string;
  firstCardId: string | undefined;
  /** The data directory, and whether it is the default ~/.latch (then MCP needs no LATCH_HOME). */
  home: string;
  homeIsDefault: boolean;
  /** How an MCP client starts this Latch: program and arguments before `mcp`. */
  latchCommand: { program: string; args: string[] };
  /** The owner console's port, or null when it is not served. */
  consolePort?: number | null;
}

/** The agent the banner's MCP configuration is for: the one it tells the owner to add first. */
export const BANNER_AGENT = 'shopper';

/** The Variant A port an MCP client reaches without LATCH_URL. */
const DEFAULT_PORT_A = 7723;

/**
 * mcpConfiguration is the `mcpServers` entry for an agent of this Latch exactly as it runs now:
 * absolute paths, the agent's own token (`--agent`), LATCH_HOME always (an MCP client starts its
 * servers with its own environment, whose HOME need not be yours: docs/decisions.md §31.9) and
 * LATCH_URL when the port is not the default.
 */
export function mcpConfiguration(facts: BannerFacts, agent: string = BANNER_AGENT): object {
  const env: Record<string, string> = { LATCH_HOME: facts.home };
  if (facts.portA !== DEFAULT_PORT_A) env['LATCH_URL'] = `http://127.0.0.1:${facts.portA}`;
  return {
    mcpServers: {
      latch: {
        command: facts.latchCommand.program,
        args: [...facts.latchCommand.args, 'mcp', '--agent', agent],
        env,
      },
    },
  };
}

/** consoleLines name the owner console's address and how to sign in to it, when it is served. */
function consoleLines(facts: BannerFacts): string[] {
  if (facts.consolePort === undefined || facts.consolePort === null) return [];
  return [`  Owner console              http://127.0.0.1:${facts.consolePort}  (sign in: latch console)`];
}

/**
 * portsNote says how other programs reach a daemon on a non-default port: latch commands with the
 * same LATCH_HOME read listen.json, everything else needs LATCH_URL (docs/decisions.md §19).
 */
function portsNote(facts: BannerFacts, a: string): string[] {
  if (facts.portA === DEFAULT_PORT_A) return [];
  const home = facts.homeIsDefault ? '' : `LATCH_HOME='${facts.home}' `;
  return [
    '',
    `Variant A is not on the default port ${DEFAULT_PORT_A}. latch commands run with this data directory find it`,
    `by themselves (${facts.home}/listen.json); anything else (another LATCH_HOME, a program of your own, an`,
    `MCP client's configuration) needs:  export ${home}LATCH_URL=${a}`,
  ];
}

/** bannerText never contains a secret: commands read the token and admin key from their files. */
export function bannerText(facts: BannerFacts): string {
  const card = facts.firstCardId ?? 'card_…';
  const a = `http://127.0.0.1:${facts.portA}`;
  const token = `"Authorization: Bearer $(cat '${facts.tokenPath}')"`;
  const admin = `"Authorization: Bearer $(cat '${facts.adminKeyPath}')"`;
  return [
    '',
    'Latch is running.',
    `  Variant A (canonical)      ${a}`,
    `  Variant B (compatibility)  http://127.0.0.1:${facts.portB}`,
    `  Sandbox cloud              ${facts.cloudUrl}`,
    `  Daemon token               ${facts.tokenPath}`,
    `  Sandbox admin key          ${facts.adminKeyPath}`,
    ...consoleLines(facts),
    ...portsNote(facts, a),
    '',
    'Try it (copy and paste into another terminal):',
    '',
    '  # health (no token needed on Variant A)',
    `  curl -s ${a}/health`,
    '',
    '  # list the cards',
    `  curl -s -H ${token} ${a}/cards`,
    '',
    '  # authorize 12.50 at shop.example.com for 30 minutes',
    `  curl -s -H ${token} -H 'Content-Type: application/json' \\`,
    `    -d '{"card_id":"${card}","amount":12.50,"merchant_name":"shop.example.com"}' ${a}/authorize`,
    '',
    '  # the card network charges the card: approved, because it matches',
    `  curl -s -H ${admin} -H 'Content-Type: application/json' \\`,
    `    -d '{"card_id":"${card}","merchant":"shop.example.com","amount":"12.50","currency":"USD"}' ${facts.cloudUrl}/v1/sandbox/charges`,
    '',
    '  # another charge, at another merchant: declined (card_frozen: the authorization is used up)',
    `  curl -s -H ${admin} -H 'Content-Type: application/json' \\`,
    `    -d '{"card_id":"${card}","merchant":"evil.example.com","amount":"12.50","currency":"USD"}' ${facts.cloudUrl}/v1/sandbox/charges`,
    '',
    '  # the transactions',
    `  curl -s -H ${token} ${a}/transactions`,
    '',
    `Give each agent its own token rather than the daemon token: latch agent add ${BANNER_AGENT},`,
    `then use --agent ${BANNER_AGENT} with any latch command.`,
    '',
    `Use it from that agent over MCP (after latch agent add ${BANNER_AGENT}; paste into the MCP client's configuration):`,
    '',
    ...JSON.stringify(mcpConfiguration(facts), null, 2).split('\n').map((line) => `  ${line}`),
    '',
    'Ctrl-C stops the daemon and the sandbox. Running this again reuses the same account.',
  ].join('\n');
}
