/**
 * The wire vocabulary of agent names (docs/decisions.md §15.1): the one pattern the data
 * directory, the front door's daemon proof, the spending policy and the CLI check names against.
 */

/** An agent's name: 1 to 32 lower-case letters, digits, `_` and `-`, starting with a letter or digit. */
export const AGENT_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** The pattern's text for messages: ([a-z0-9][a-z0-9_-]{0,31}). */
export const AGENT_NAME_TEXT = AGENT_NAME_PATTERN.source.slice(1, -1);

/** isAgentNameShape reports whether text has the form of an agent name (`owner` is reserved elsewhere). */
export function isAgentNameShape(text: string): boolean {
  return AGENT_NAME_PATTERN.test(text);
}
