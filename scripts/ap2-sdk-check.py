"""Check Latch's AP2 open mandates with AP2's own Python SDK (docs/ap2.md, "A credentials provider's check").

Not part of `npm test` (CI has no AP2 SDK); anyone can repeat it. It plays the shopping agent and
the credentials provider and merchant around Latch, the trusted surface:

  python3 scripts/ap2-sdk-check.py agent-key DIR
      makes the agent's P-256 key with the SDK: DIR/agent.jwk (private) and DIR/agent.pub.jwk
  python3 scripts/ap2-sdk-check.py verify DIR
      reads DIR/latch.jwk (`latch ap2 key --out`), DIR/mandates.json (POST /ap2/mandates' answer,
      made with agent.pub.jwk as agent_key) and DIR/terms.json ({"card_id", "merchant_id",
      "amount_max_minor", "item", "alternative"}), makes closed mandates with the agent key
      (MandateClient().present) and verifies the chains as the SDK's sample credentials provider
      and merchant do. It prints one line per case and exits 1 if any case came out otherwise.
      When DIR/recurring.json (a recurring mandate's answer) and DIR/context.json (its
      GET /ap2/mandates/:id/context answer) are there too, it also checks the recurring chain with
      AP2's MandateContext made from Latch's context: a payment within the budget is accepted, one
      that would pass the budget or the occurrences is refused by the SDK's own evaluators.

AP2's SDK (code/sdk/python at v0.2.0) and sd-jwt-python (src at 9181a0a) must be on PYTHONPATH.
"""
import json
import sys

from cryptography.hazmat.primitives.asymmetric import ec
from jwcrypto.jwk import JWK
from ap2.sdk.mandate import MandateClient
from ap2.sdk.payment_mandate_chain import PaymentMandateChain
from ap2.sdk.checkout_mandate_chain import CheckoutMandateChain
from ap2.sdk.generated.payment_mandate import PaymentMandate
from ap2.sdk.generated.checkout_mandate import CheckoutMandate
from ap2.sdk.generated.types.amount import Amount
from ap2.sdk.generated.types.merchant import Merchant
from ap2.sdk.generated.types.payment_instrument import PaymentInstrument
from ap2.sdk.generated.types.checkout import Checkout, Status
from ap2.sdk.generated.types.item import Item
from ap2.sdk.generated.types.line_item import LineItem
from ap2.sdk.generated.types.total import Total
from ap2.sdk.generated.types.link import Link
from ap2.sdk.jwt_helper import create_jwt
from ap2.sdk.utils import compute_sha256_b64url
from ap2.sdk.constraints import MandateContext


def new_key():
    return JWK.from_pyca(ec.generate_private_key(ec.SECP256R1()))


def main(mode, folder):
    if mode == 'agent-key':
        key = new_key()
        open(f'{folder}/agent.jwk', 'w').write(key.export())
        open(f'{folder}/agent.pub.jwk', 'w').write(key.export_public())
        return 0
    agent = JWK.from_json(open(f'{folder}/agent.jwk').read())
    latch = JWK(**json.load(open(f'{folder}/latch.jwk')))
    mandates = json.load(open(f'{folder}/mandates.json'))
    terms = json.load(open(f'{folder}/terms.json'))
    client = MandateClient()
    open_payment = mandates['open_payment_mandate']
    open_checkout = mandates['open_checkout_mandate']
    payload = json.loads(_segment(open_payment.split('~')[-2]))[1]
    merchant = Merchant(**_disclosed(open_payment, 'payment.allowed_payees'))
    checkout_jwt = 'merchant.checkout.jwt'
    transaction_id = compute_sha256_b64url(checkout_jwt)

    def pay(amount=terms['amount_max_minor'], payee=merchant, instrument=terms['card_id'], holder=agent, root=latch):
        closed = PaymentMandate(transaction_id=transaction_id, payee=payee, payment_amount=Amount(amount=amount, currency='USD'),
                                payment_instrument=PaymentInstrument(id=instrument, type='card'))
        chain = client.present(holder_key=holder, mandate_token=open_payment, payloads=[closed], aud='credential-provider', nonce='n-1')
        try:
            payloads = client.verify(chain, key_or_provider=lambda _t: root, expected_aud='credential-provider', expected_nonce='n-1')
        except Exception as error:  # noqa: BLE001 - the sample credentials provider refuses on any of them
            return f'rejected: {type(error).__name__}'
        violations = PaymentMandateChain.parse(payloads).verify(expected_open_checkout_hash=mandates['open_checkout_hash'], expected_transaction_id=transaction_id)
        return violations or 'accepted'

    merchant_key = new_key()

    def buy(sku=terms['alternative'], quantity=1, seller=merchant, root=latch):
        line = LineItem(id='li_1', item=Item(id=sku, title=sku, price=100), quantity=quantity, totals=[Total(type='total', amount=100 * quantity)])
        checkout = Checkout(id='chk_1', merchant=seller, line_items=[line], status=Status.incomplete, currency='USD',
                            totals=[Total(type='total', amount=100 * quantity)], links=[Link(type='terms_of_service', url='https://shop.example/tos')])
        signed = create_jwt({'alg': 'ES256', 'typ': 'JWT'}, checkout.model_dump(mode='json', exclude_none=True), merchant_key)
        closed = CheckoutMandate(checkout_jwt=signed, checkout_hash=compute_sha256_b64url(signed))
        chain = client.present(holder_key=agent, mandate_token=open_checkout, payloads=[closed], aud='merchant', nonce='n-2')
        try:
            payloads = client.verify(chain, key_or_provider=lambda _t: root, expected_aud='merchant', expected_nonce='n-2')
        except Exception as error:  # noqa: BLE001
            return f'rejected: {type(error).__name__}'
        parsed = CheckoutMandateChain.parse(payloads)
        return parsed.verify(checkout_jwt=parsed.closed_mandate.checkout_jwt) or 'accepted'

    other = Merchant(id='evil.example', name='Evil', website='https://evil.example')
    cases = [
        ('payment at the maximum', pay(), True),
        ('payment over the maximum', pay(amount=terms['amount_max_minor'] + 1), False),
        ('payment to another payee', pay(payee=other), False),
        ('payment with another instrument', pay(instrument='card_other0000000000'), False),
        ('payment closed under another agent key', pay(holder=new_key()), False),
        ('payment under another root key', pay(root=new_key()), False),
        ('checkout of the item', buy(sku=terms['item']), True),
        ('checkout of its alternative', buy(), True),
        ('checkout of another sku', buy(sku='sku-other'), False),
        ('checkout of two (quantity 1)', buy(quantity=2), False),
        ('checkout at another merchant', buy(seller=other), False),
        ('checkout under another root key', buy(root=new_key()), False),
    ]
    cases += recurring_cases(folder, client, agent, latch, terms)
    wrong = 0
    for name, outcome, accept in cases:
        ok = (outcome == 'accepted') == accept
        wrong += 0 if ok else 1
        print(f"{'ok  ' if ok else 'FAIL'} {name:40} -> {outcome}")
    print(f"vct {payload['vct']}, root kid {json.loads(_segment(open_payment.split('.')[0]))['kid']}")
    return 1 if wrong else 0


def recurring_cases(folder, client, agent, latch, terms):
    """The recurring chain's cases, when the folder holds a recurring mandate and its context."""
    import os
    if not os.path.exists(f'{folder}/recurring.json'):
        return []
    mandates = json.load(open(f'{folder}/recurring.json'))
    reported = json.load(open(f'{folder}/context.json'))
    open_payment = mandates['open_payment_mandate']
    merchant = Merchant(**_disclosed(open_payment, 'payment.allowed_payees'))
    constraints = {c['type']: c for c in _delegate(open_payment)['constraints']}
    budget_minor = round(constraints['payment.budget']['max'] * 100)
    limit = constraints['payment.agent_recurrence'].get('max_occurrences')
    # Latch's context as AP2's MandateContext: minor units, uses, and the last charge's time.
    last = reported['last_at']
    from datetime import datetime
    context = MandateContext(total_amount=reported['total_amount'], total_uses=reported['occurrences'],
                             last_used_date=None if last is None else datetime.fromisoformat(last.replace('Z', '+00:00')).timestamp())
    checkout_jwt = 'merchant.checkout.jwt.recurring'
    transaction_id = compute_sha256_b64url(checkout_jwt)

    def pay(amount, mandate_context=context):
        closed = PaymentMandate(transaction_id=transaction_id, payee=merchant, payment_amount=Amount(amount=amount, currency='USD'),
                                payment_instrument=PaymentInstrument(id=terms.get('recurring_card_id', terms['card_id']), type='card'))
        chain = client.present(holder_key=agent, mandate_token=open_payment, payloads=[closed], aud='credential-provider', nonce='n-3')
        try:
            payloads = client.verify(chain, key_or_provider=lambda _t: latch, expected_aud='credential-provider', expected_nonce='n-3')
        except Exception as error:  # noqa: BLE001
            return f'rejected: {type(error).__name__}'
        violations = PaymentMandateChain.parse(payloads).verify(expected_open_checkout_hash=mandates['open_checkout_hash'],
                                                                expected_transaction_id=transaction_id, mandate_context=mandate_context)
        return violations or 'accepted'

    maximum = constraints['payment.amount_range']['max']
    room = budget_minor - reported['total_amount']
    used_up = MandateContext(total_amount=reported['total_amount'], total_uses=limit if limit is not None else 0, last_used_date=context.last_used_date)
    cases = [
        (f"recurring: {min(maximum, room)} with Latch's context ({reported['occurrences']} used)", pay(min(maximum, room)), room > 0),
        ('recurring: past the budget with that context', pay(room + 1), False),
        ('recurring: over the per-occurrence maximum', pay(maximum + 1), False),
        ('recurring: without a context', pay(1, mandate_context=None), False),
    ]
    if limit is not None:
        cases.append(('recurring: occurrences used up', pay(1, mandate_context=used_up), False))
    return cases


def _delegate(token):
    """The delegate claims of a root mandate: its last disclosure, the packed delegate, with the plain constraints."""
    return json.loads(_segment(token.split('~')[-2]))[1]


def _segment(text):
    import base64
    return base64.urlsafe_b64decode(text + '=' * (-len(text) % 4)).decode('utf-8')


def _disclosed(token, constraint_type):
    """The first allowed element of a constraint, from the token's disclosures (the payee the agent copies)."""
    parts = token.split('~')[1:-1]
    values = [json.loads(_segment(p))[1] for p in parts]
    for value in values:
        if isinstance(value, dict) and 'id' in value and 'name' in value:
            return value
    raise SystemExit(f'no {constraint_type} disclosure')


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], sys.argv[2]))
