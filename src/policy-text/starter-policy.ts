/**
 * STARTER_POLICY_TEXT is what `latch policy init` writes to policy.json. JSON has no comments,
 * so it teaches by example: everything stays allowed by default, a first purchase at a new
 * merchant asks the owner, large amounts ask, agents cannot start subscriptions or spend more than
 * 50.00 a purchase at the everyday shops (a cap is a deny rule from just above it, docs/policy.md
 * "Caps"), and agents share a daily budget and a burst limit. docs/policy.md explains every field.
 */
export const STARTER_POLICY_TEXT = `{
  "v": 1,
  "default": "allow",
  "new_merchant": "ask",
  "approval_ttl_seconds": 900,
  "rules": [
    { "id": "large-purchases", "min_amount": "100.00", "decision": "ask" },
    { "id": "no-agent-subscriptions", "agents": ["*"], "kinds": ["recurring"], "decision": "deny" },
    { "id": "everyday-shops-cap", "agents": ["*"], "merchants": ["grocer.example", "*.grocer.example"],
      "min_amount": "50.01", "decision": "deny" }
  ],
  "budgets": [
    { "id": "agents-daily", "agents": ["*"], "per": "day", "limit": "200.00", "over": "deny" }
  ],
  "velocity": [
    { "id": "agents-burst", "agents": ["*"], "per_seconds": 3600, "max_count": 10, "over": "ask" }
  ]
}
`;
