// @ts-check
/*
 * The owner console's script, served as these bytes from /assets/console.js (docs/decisions.md
 * §29.5). Plain browser JavaScript with no dependency and no inline code anywhere (the CSP allows
 * only 'self'); it builds every element with the DOM API, so no text the daemon returns is ever
 * parsed as HTML. Type-checked with its own tsconfig.json (the DOM library; checkJs), by
 * test/console/console-files.test.ts.
 */
'use strict';
(function () {
  var csrfMeta = document.querySelector('meta[name="latch-csrf"]');
  var csrf = csrfMeta ? csrfMeta.getAttribute('content') : '';
  var page = document.body.getAttribute('data-page');
  var content = document.getElementById('content');

  function el(tag, attrs) {
    var node = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (name) {
      var value = attrs[name];
      if (value === undefined || value === null || value === false) return;
      if (name === 'text') node.textContent = String(value);
      else if (name.slice(0, 2) === 'on') node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? '' : String(value));
    });
    for (var i = 2; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === undefined || child === null || child === false) continue;
      node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    }
    return node;
  }
  function svg(tag, attrs) {
    var node = document.createElementNS('http://www.w3.org/2000/svg', tag);
    Object.keys(attrs || {}).forEach(function (name) {
      if (name === 'text') node.textContent = String(attrs[name]); else node.setAttribute(name, String(attrs[name]));
    });
    return node;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function status(kind, text) { return el('p', { 'class': 'status ' + kind, role: kind === 'bad' ? 'alert' : 'status', text: text }); }

  // The exact bytes a body is sent as: a presence challenge binds their SHA-256.
  function bodyText(body) { return body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body); }
  function api(method, path, body, headers) {
    /** @type {RequestInit & { headers: Record<string, string> }} */
    var init = { method: method, headers: { 'x-latch-csrf': csrf }, credentials: 'same-origin' };
    Object.keys(headers || {}).forEach(function (name) { init.headers[name] = headers[name]; });
    if (body !== undefined) { init.headers['content-type'] = 'application/json'; init.body = bodyText(body); }
    return fetch('/console/api' + path, init).then(function (response) {
      if (response.status === 204) return { ok: true, status: 204, body: null };
      return response.json().then(function (json) { return { ok: response.ok, status: response.status, body: json }; });
    }).then(function (result) {
      if (result.status === 401 && result.body && result.body.error && result.body.error.code === 'console_login_required') location.assign('/login');
      return result;
    });
  }
  function errorText(result) {
    var error = result.body && result.body.error;
    if (!error) return 'The daemon answered ' + result.status + '.';
    return error.message + (error.param ? ' (' + error.param + ')' : '') + (error.rule ? ' [rule ' + error.rule + ']' : '') + ' — ' + error.code;
  }

  // base64url <-> bytes for WebAuthn.
  function fromB64u(text) {
    var b64 = text.replace(/-/g, '+').replace(/_/g, '/');
    while (b64.length % 4) b64 += '=';
    var raw = atob(b64); var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    return bytes;
  }
  function toB64u(buffer) {
    var bytes = new Uint8Array(buffer); var raw = '';
    for (var i = 0; i < bytes.length; i++) raw += String.fromCharCode(bytes[i]);
    return btoa(raw).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  // A passkey assertion for options the daemon made (a challenge bound to one purpose).
  function passkeyAssertion(options) {
    return navigator.credentials.get({ publicKey: {
      challenge: fromB64u(options.challenge), rpId: options.rp_id, timeout: options.timeout_ms, userVerification: 'required',
      allowCredentials: options.credential_ids.map(function (id) { return { type: 'public-key', id: fromB64u(id) }; }),
    } }).then(function (/** @type {any} */ credential) {
      return { id: toB64u(credential.rawId), client_data_json: toB64u(credential.response.clientDataJSON),
        authenticator_data: toB64u(credential.response.authenticatorData), signature: toB64u(credential.response.signature) };
    });
  }

  // The proof of presence travels in one header the console's front door reads (base64url JSON,
  // so a passphrase in any script survives): the route's own body stays what the route takes.
  function presence(proof) {
    if (!proof || (!proof.passphrase && !proof.passkey)) return {};
    return { 'latch-owner-presence': toB64u(new TextEncoder().encode(JSON.stringify(proof))) };
  }

  // A passkey challenge for presence is bound to the one request it confirms: its method, its path
  // and the SHA-256 of its exact body (docs/decisions.md §29.7). request is [method, path, body].
  function presenceOptions(request) {
    return crypto.subtle.digest('SHA-256', new TextEncoder().encode(bodyText(request[2]))).then(function (digest) {
      var hex = ''; var bytes = new Uint8Array(digest);
      for (var i = 0; i < bytes.length; i++) hex += (bytes[i] < 16 ? '0' : '') + bytes[i].toString(16);
      return api('POST', '/presence-options', { method: request[0], path: '/console/api' + request[1], body_sha256: hex });
    });
  }

  // Fresh presence for one owner-present action: a passkey (bound to a challenge for this purpose) or
  // the passphrase. purpose is an approval's passkey-options path, or a function naming the request.
  var factors = [];
  function presenceForm(label, purpose, onProof, wording) {
    var message = el('div', { 'aria-live': 'polite' });
    if (factors.length === 0) {
      // No passphrase and no passkey yet: the session is the owner, as the daemon token is.
      return el('div', null, el('div', { 'class': 'actions' }, el('button', { type: 'button', 'class': 'primary', text: label, onclick: function () { clear(message); onProof({}, message); } })), message);
    }
    var pass = el('input', { type: 'password', autocomplete: 'current-password', 'aria-label': 'Owner passphrase for ' + label, placeholder: 'Passphrase' });
    var passkeyButton = el('button', { type: 'button', 'class': 'primary', text: (wording && wording.passkey) || label + ' with passkey', onclick: function () {
      passkeyButton.disabled = true; clear(message);
      (typeof purpose === 'string' ? api('POST', purpose, {}) : presenceOptions(purpose())).then(function (result) {
        if (!result.ok) throw new Error(errorText(result));
        return passkeyAssertion(result.body);
      }).then(function (assertion) { return onProof({ passkey: assertion }, message); })
        .catch(function (error) { message.appendChild(status('bad', error.message || String(error))); })
        .then(function () { passkeyButton.disabled = false; });
    } });
    var passButton = el('button', { type: 'submit', text: (wording && wording.passphrase) || label + ' with passphrase' });
    var form = el('form', { 'class': 'actions', onsubmit: function (event) {
      event.preventDefault(); clear(message);
      if (!pass.value) { message.appendChild(status('bad', 'Type the owner passphrase, or use a passkey.')); pass.focus(); return; }
      var proof = { passphrase: pass.value }; pass.value = '';
      onProof(proof, message);
    } }, factors.indexOf('passkey') !== -1 ? passkeyButton : null, factors.indexOf('passphrase') !== -1 ? pass : null, factors.indexOf('passphrase') !== -1 ? passButton : null);
    return el('div', null, form, message);
  }

  // Words for the approval card (docs/decisions.md §31.8): no wire names, durations in words, local time beside UTC.
  var KIND_WORDS = { one_time: 'one-time', merchant_verification: 'merchant verification', recurring: 'recurring', x402: 'x402 payment (no card)' };
  function durationWords(seconds) {
    if (seconds % 3600 === 0) return seconds / 3600 + (seconds === 3600 ? ' hour' : ' hours');
    if (seconds % 60 === 0) return seconds / 60 + (seconds === 60 ? ' minute' : ' minutes');
    return seconds + ' seconds';
  }
  function localAndUtc(iso) {
    var at = new Date(iso);
    return isNaN(at.getTime()) ? iso : iso + ' (' + at.toLocaleString() + ' local time)';
  }
  // Decimal text to integer minor units by its digits, never through a float (money rule).
  function decimalMinor(text) {
    var parts = String(text).split('.'); var fraction = ((parts[1] || '') + '00').slice(0, 2);
    return parseInt(parts[0] + fraction, 10);
  }
  function term(list, name, value) { if (value !== undefined && value !== null && value !== '') { list.appendChild(el('dt', { text: name })); list.appendChild(el('dd', { text: String(value) })); } }

  // ---- Approvals -----------------------------------------------------------------------
  // The list is reconciled, never redrawn: an approval already shown keeps its section, so what
  // the owner is typing survives a live update. Outcomes go to a notice area above the list.
  var notices = null, list = null, emptyNote = null;
  function notice(kind, text) { notices.insertBefore(status(kind, text), notices.firstChild); }
  function renderApprovals(approvals) {
    if (!list) {
      clear(content);
      notices = el('div', { 'aria-live': 'polite' }); list = el('div'); emptyNote = el('p', { 'class': 'muted', text: 'Nothing is waiting for you.' });
      content.appendChild(notices); content.appendChild(emptyNote); content.appendChild(list);
    }
    var wanted = {};
    approvals.forEach(function (approval) { wanted[approval.approval_id] = true; });
    Array.prototype.slice.call(list.children).forEach(function (section) { if (!wanted[section.getAttribute('data-approval-id')]) list.removeChild(section); });
    var previous = null;
    approvals.forEach(function (approval) {
      var existing = list.querySelector('section[data-approval-id="' + approval.approval_id + '"]');
      var section = existing || approvalSection(approval);
      if (!existing) list.insertBefore(section, previous ? previous.nextSibling : list.firstChild);
      previous = section;
    });
    emptyNote.hidden = approvals.length !== 0;
  }
  // after: what a decision reloads (the list, or the one approval's page); a decided approval shows its terms only.
  function approvalSection(approval, after) {
    after = after || refreshApprovals;
    var r = approval.request;
    var terms = el('dl', { 'class': 'terms' });
    term(terms, 'Agent', approval.agent);
    if (r.card_id) term(terms, 'Card', (r.card_label ? r.card_label + ' ' : '') + (r.card_last4 ? '•••• ' + r.card_last4 + ' ' : '') + '(' + r.card_id + ')');
    term(terms, 'Merchant', r.merchant_name);
    var card = (cardsById || {})[r.card_id];
    var available = card ? (card.available !== null && card.available !== undefined ? card.available : card.balance) : undefined;
    if (available !== undefined) term(terms, 'Card balance', available + ' ' + (card.currency || r.currency) + ' available' + (r.amount && decimalMinor(available) < decimalMinor(r.amount) ? ' — less than this request' : ''));
    term(terms, 'Kind', KIND_WORDS[r.kind] || r.kind);
    if (r.x402) {
      // The exact x402 requirements the payment will carry (docs/x402.md).
      term(terms, 'Pays for', r.x402.resource && r.x402.resource.url);
      term(terms, 'Network', r.x402.network);
      term(terms, 'Pay to', r.x402.pay_to);
      term(terms, 'Maximum', r.x402.amount_max + ' atomic units of ' + r.x402.symbol + ' (' + r.x402.asset + ')');
    }
    term(terms, 'Type', r.authorization_type);
    term(terms, 'Window', r.ttl_seconds ? 'valid ' + durationWords(r.ttl_seconds) + ' after approval' : (r.interval ? 'every ' + r.interval_count + ' ' + r.interval + (r.max_charges ? ', at most ' + r.max_charges + ' charges' : '') : ''));
    term(terms, 'Reference', r.reference);
    term(terms, 'Rule', approval.rule);
    term(terms, 'Why', (approval.reasons || []).join('; '));
    term(terms, 'Expires', localAndUtc(approval.expires_at));
    term(terms, 'Request SHA-256', approval.request_sha256);
    var what = r.amount + ' ' + r.currency + ' at ' + r.merchant_name;
    var reason = el('input', { type: 'text', 'aria-label': 'Reason for denying ' + approval.approval_id, placeholder: 'Reason (optional)', maxlength: '200' });
    var denyMessage = el('div', { 'aria-live': 'polite' });
    var deny = el('form', { 'class': 'actions', onsubmit: function (event) {
      event.preventDefault();
      api('POST', '/a/approvals/' + approval.approval_id + '/deny', reason.value ? { reason: reason.value } : {}).then(function (result) {
        if (result.ok) { notice('ok', 'Denied: ' + what + '.'); after(); }
        else { clear(denyMessage); denyMessage.appendChild(status('bad', errorText(result))); }
      });
    } }, reason, el('button', { type: 'submit', 'class': 'danger', text: 'Deny' }));
    var approve = presenceForm('Approve', '/approvals/' + approval.approval_id + '/passkey-options', function (proof, message) {
      return api('POST', '/a/approvals/' + approval.approval_id + '/approve', {}, presence(proof)).then(function (result) {
        clear(message);
        if (result.ok && result.body.status === 'approved') {
          notice('ok', 'Approved: ' + result.body.authorization.policy_id + ' is ' + result.body.authorization.status + ' (' + what + ').');
          after();
        } else message.appendChild(status('bad', result.ok ? 'The approval is ' + result.body.status + '.' : errorText(result)));
      });
    });
    var pending = approval.status === undefined || approval.status === 'pending_approval';
    return el('section', { 'class': 'card', 'aria-label': 'Approval ' + approval.approval_id, 'data-approval-id': approval.approval_id },
      el('div', { 'class': 'amount', text: what }), terms, pending ? approve : null, pending ? deny : null, denyMessage);
  }
  // Card labels and last four digits, looked up once a page: the approval names the card by id.
  var cardsById = null;
  function cards() {
    if (cardsById) return Promise.resolve(cardsById);
    return api('GET', '/a/cards').then(function (result) {
      cardsById = {};
      if (result.ok) result.body.cards.forEach(function (card) { cardsById[card.card_id] = card; });
      return cardsById;
    });
  }
  function refreshApprovals() {
    cardsById = null; // balances change: the card line of an approval shows them as they are now
    return Promise.all([api('GET', '/a/approvals?status=pending_approval&limit=100'), cards()]).then(function (results) {
      var result = results[0];
      if (!result.ok) { clear(content); content.appendChild(status('bad', errorText(result))); return; }
      result.body.approvals.forEach(function (approval) {
        var card = results[1][approval.request.card_id];
        if (card) { approval.request.card_label = card.label; approval.request.card_last4 = card.last4; }
      });
      renderApprovals(result.body.approvals);
    });
  }
  // ---- One approval (the page an MCP client opens: /approvals/ap_…) ----------------------
  var DECIDED_WORDS = { approved: 'This approval was approved.', denied: 'This approval was denied.', expired: 'This approval expired: nobody decided in time.', failed: 'This approval was approved, but the authorization could not be created.' };
  function loadApproval() {
    var id = document.body.getAttribute('data-approval-id');
    if (!id) { clear(content); content.appendChild(status('bad', 'There is no approval with that id.')); return Promise.resolve(); }
    cardsById = null;
    return Promise.all([api('GET', '/a/approvals/' + id), cards()]).then(function (results) {
      var result = results[0];
      var kept = notices;
      clear(content);
      if (!result.ok) { content.appendChild(status('bad', result.status === 404 ? 'There is no approval ' + id + ' on this daemon.' : errorText(result))); return; }
      var approval = result.body;
      var card = results[1][approval.request.card_id];
      if (card) { approval.request.card_label = card.label; approval.request.card_last4 = card.last4; }
      notices = kept || el('div', { 'aria-live': 'polite' });
      content.appendChild(notices);
      if (approval.status !== 'pending_approval') content.appendChild(status(approval.status === 'approved' ? 'ok' : 'warn', DECIDED_WORDS[approval.status] || 'This approval is ' + approval.status + '.'));
      content.appendChild(approvalSection(approval, loadApproval));
      content.appendChild(el('p', null, el('a', { href: '/approvals', text: 'Everything waiting for you' })));
    });
  }

  // Live updates: the event stream is read with fetch so that it carries the CSRF header.
  function watchApprovals() {
    fetch('/console/api/events', { headers: { 'x-latch-csrf': csrf }, credentials: 'same-origin' }).then(function (response) {
      if (!response.ok || !response.body) return;
      var reader = response.body.getReader(); var decoder = new TextDecoder(); var buffered = '';
      function pump() {
        return reader.read().then(function (chunk) {
          if (chunk.done) return;
          buffered += decoder.decode(chunk.value, { stream: true });
          var events = buffered.split('\n\n'); buffered = events.pop();
          if (events.some(function (event) { return event.indexOf('event: approvals') !== -1; })) refreshApprovals();
          return pump();
        });
      }
      return pump();
    }).catch(function () { /* the page still works without live updates */ }).then(function () { setTimeout(watchApprovals, 3000); });
  }

  // ---- Spending -------------------------------------------------------------------------
  function minorToText(minor, decimals) {
    var negative = minor < 0; var digits = String(Math.abs(minor));
    while (digits.length <= decimals) digits = '0' + digits;
    var text = decimals > 0 ? digits.slice(0, digits.length - decimals) + '.' + digits.slice(digits.length - decimals) : digits;
    return (negative ? '-' : '') + text;
  }
  function dailyChart(title, days, series, decimals) {
    var width = 720, height = 220, left = 56, bottom = 28, top = 12;
    var names = Object.keys(series);
    var totals = days.map(function (_, index) { return names.reduce(function (sum, name) { return sum + series[name][index]; }, 0); });
    var max = Math.max.apply(null, totals.concat([1]));
    var chart = svg('svg', { 'class': 'chart', viewBox: '0 0 ' + width + ' ' + height, role: 'img', 'aria-label': title });
    chart.appendChild(svg('title', { text: title }));
    chart.appendChild(svg('line', { 'class': 'axis', x1: left, y1: height - bottom, x2: width, y2: height - bottom }));
    chart.appendChild(svg('text', { x: 4, y: top + 10, text: minorToText(max, decimals) }));
    chart.appendChild(svg('text', { x: 4, y: height - bottom, text: '0' }));
    var slot = (width - left) / days.length;
    var palette = ['s0', 's1', 's2', 's3', 's4', 's5'];
    days.forEach(function (day, index) {
      var y = height - bottom;
      names.forEach(function (name, seriesIndex) {
        var value = series[name][index]; if (!value) return;
        var barHeight = (value / max) * (height - bottom - top);
        y -= barHeight;
        var bar = svg('rect', { x: left + index * slot + 1, y: y, width: Math.max(slot - 2, 1), height: barHeight, 'class': palette[seriesIndex % palette.length] });
        bar.appendChild(svg('title', { text: day + ' ' + name + ': ' + minorToText(value, decimals) }));
        chart.appendChild(bar);
      });
      if (index % 7 === 0) chart.appendChild(svg('text', { x: left + index * slot, y: height - 8, text: day.slice(5) }));
    });
    var legend = el('p', { 'class': 'legend' });
    names.forEach(function (name, seriesIndex) { legend.appendChild(el('span', null, el('span', { 'class': 'swatch ' + palette[seriesIndex % palette.length] }), name)); });
    return el('figure', null, chart, legend);
  }
  function budgetBar(budget) {
    var width = 600, height = 22;
    var limit = Math.max(budget.limit_minor, 1);
    var used = Math.min(budget.used_minor, limit), reserved = Math.min(budget.reserved_minor, limit - used);
    var bar = svg('svg', { 'class': 'chart', viewBox: '0 0 ' + width + ' ' + height, role: 'img',
      'aria-label': budget.id + ': ' + budget.used + ' used, ' + budget.reserved + ' reserved, ' + budget.remaining + ' remaining of ' + budget.limit + ' ' + budget.currency });
    bar.appendChild(svg('rect', { x: 0, y: 0, width: width, height: height, 'class': 'free' }));
    bar.appendChild(svg('rect', { x: 0, y: 0, width: width * used / limit, height: height, 'class': 'used' }));
    bar.appendChild(svg('rect', { x: width * used / limit, y: 0, width: width * reserved / limit, height: height, 'class': 'reserved' }));
    return bar;
  }
  function renderSpending(data) {
    clear(content);
    var legend = el('p', { 'class': 'legend' }, el('span', null, el('span', { 'class': 'swatch used' }), 'used'),
      el('span', null, el('span', { 'class': 'swatch reserved' }), 'reserved'), el('span', null, el('span', { 'class': 'swatch free' }), 'remaining'));
    content.appendChild(el('h2', { text: 'Budgets' }));
    if (data.budgets.length === 0) content.appendChild(el('p', { 'class': 'muted', text: 'The policy sets no budget.' }));
    else content.appendChild(legend);
    data.budgets.forEach(function (budget) {
      content.appendChild(el('div', { 'class': 'card' }, el('strong', { text: budget.id }),
        el('span', { 'class': 'muted', text: ' ' + budget.limit + ' ' + budget.currency + ' per ' + budget.period + ': ' + budget.used + ' used, ' + budget.reserved + ' reserved, ' + budget.remaining + ' remaining' }), budgetBar(budget)));
    });
    content.appendChild(el('h2', { text: 'Velocity limits' }));
    if (data.velocity.length === 0) content.appendChild(el('p', { 'class': 'muted', text: 'The policy sets no velocity limit.' }));
    data.velocity.forEach(function (limit) {
      content.appendChild(el('div', { 'class': 'card' }, el('strong', { text: limit.id }),
        el('span', { 'class': 'muted', text: ' ' + limit.count + ' of ' + limit.max + ' authorizations in ' + limit.window_seconds + ' s' }),
        budgetBar({ id: limit.id, limit_minor: limit.max, used_minor: limit.count, reserved_minor: 0, used: String(limit.count), reserved: '0', remaining: String(Math.max(limit.max - limit.count, 0)), limit: String(limit.max), currency: 'authorizations' })));
    });
    Object.keys(data.by_currency).forEach(function (currency) {
      var entry = data.by_currency[currency];
      content.appendChild(el('h2', { text: 'Last 30 days by agent (' + currency + ')' }));
      content.appendChild(dailyChart('Authorized per day by agent, ' + currency, data.days, entry.by_agent, entry.decimals));
      content.appendChild(el('h2', { text: 'Last 30 days by card (' + currency + ')' }));
      content.appendChild(dailyChart('Authorized per day by card, ' + currency, data.days, entry.by_card, entry.decimals));
    });
    content.appendChild(el('h2', { text: 'Authorizations' }));
    var rows = el('tbody');
    data.authorizations.forEach(function (authorization) {
      // An x402 payment is listed by its authorization_id; cancelling one not yet settled releases it.
      var id = authorization.policy_id || authorization.authorization_id;
      var open = authorization.status === 'active' || authorization.status === 'authorized' || authorization.status === 'bound';
      var cancel = open ? el('button', { type: 'button', 'class': 'danger', text: authorization.kind === 'x402' ? 'Release' : 'Cancel', onclick: function () {
        cancel.disabled = true;
        api('POST', '/a/authorizations/' + id + '/cancel', {}).then(function () { loadSpending(); });
      } }) : null;
      rows.appendChild(el('tr', null, el('td', { text: id + (authorization.kind === 'x402' ? ' (x402 ' + authorization.network + ')' : '') }), el('td', { text: authorization.agent }),
        el('td', { text: authorization.merchant_name || '' }), el('td', { 'class': 'num', text: (authorization.amount || '') + ' ' + (authorization.currency || '') }),
        el('td', { text: authorization.status }), el('td', null, cancel)));
    });
    content.appendChild(el('div', { 'class': 'table-wrap' }, el('table', null, el('thead', null, el('tr', null, el('th', { text: 'Authorization' }), el('th', { text: 'Agent' }),
      el('th', { text: 'Merchant' }), el('th', { 'class': 'num', text: 'Amount' }), el('th', { text: 'Status' }), el('th', { text: '' }))), rows)));
  }
  function loadSpending() {
    return Promise.all([api('GET', '/spending'), api('GET', '/a/authorizations?limit=100')]).then(function (results) {
      var failed = results.filter(function (result) { return !result.ok; })[0];
      if (failed) { clear(content); content.appendChild(status('bad', errorText(failed))); return; }
      var data = results[0].body; data.authorizations = results[1].body.authorizations;
      renderSpending(data);
    });
  }

  // ---- Agents ---------------------------------------------------------------------------
  function loadAgents() {
    return api('GET', '/a/agents').then(function (result) {
      clear(content);
      if (!result.ok) { content.appendChild(status('bad', errorText(result))); return; }
      var shown = el('div', { 'aria-live': 'polite' });
      var name = el('input', { type: 'text', 'aria-label': 'New agent name', placeholder: 'agent name', pattern: '[a-z][a-z0-9_-]{0,31}' });
      var add = presenceForm('Add agent', function () { return ['POST', '/a/agents', { name: name.value }]; }, function (proof, message) {
        if (!name.value) { message.appendChild(status('bad', 'Name the agent first.')); return Promise.resolve(); }
        return api('POST', '/a/agents', { name: name.value }, presence(proof)).then(function (answer) {
          if (!answer.ok) { message.appendChild(status('bad', errorText(answer))); return; }
          clear(shown);
          shown.appendChild(status('ok', 'Agent ' + answer.body.name + ' added. Its token is shown once; give it to the agent now:'));
          shown.appendChild(el('p', { 'class': 'token', text: answer.body.token }));
          loadAgentRows(table);
        });
      });
      var table = el('tbody');
      content.appendChild(el('section', { 'class': 'card' }, el('h2', { text: 'Add an agent' }), name, add, shown));
      content.appendChild(el('div', { 'class': 'table-wrap' }, el('table', null, el('thead', null, el('tr', null, el('th', { text: 'Agent' }), el('th', { text: 'Created' }),
        el('th', { text: 'Last used' }), el('th', { text: 'Identity key id' }), el('th', { text: '' }))), table)));
      renderAgentRows(table, result.body.agents, shown);
    });
  }
  function loadAgentRows(table) { return api('GET', '/a/agents').then(function (result) { if (result.ok) renderAgentRows(table, result.body.agents); }); }
  function renderAgentRows(table, agents, shown) {
    clear(table);
    agents.forEach(function (agent) {
      var actions = el('td');
      var remove = el('button', { type: 'button', 'class': 'danger', text: 'Remove', onclick: function () {
        clear(actions); actions.appendChild(presenceForm('Remove ' + agent.name, function () { return ['DELETE', '/a/agents/' + encodeURIComponent(agent.name)]; }, function (proof, message) {
          return api('DELETE', '/a/agents/' + encodeURIComponent(agent.name), undefined, presence(proof)).then(function (answer) {
            if (!answer.ok) message.appendChild(status('bad', errorText(answer))); else loadAgents();
          });
        }));
      } });
      var rotate = el('button', { type: 'button', text: 'Rotate token', onclick: function () {
        clear(actions); actions.appendChild(presenceForm('Rotate ' + agent.name, function () { return ['POST', '/a/agents/' + encodeURIComponent(agent.name) + '/rotate', {}]; }, function (proof, message) {
          return api('POST', '/a/agents/' + encodeURIComponent(agent.name) + '/rotate', {}, presence(proof)).then(function (answer) {
            if (!answer.ok) { message.appendChild(status('bad', errorText(answer))); return; }
            if (shown) { clear(shown); shown.appendChild(status('ok', 'New token for ' + agent.name + ' (shown once):')); shown.appendChild(el('p', { 'class': 'token', text: answer.body.token })); }
            loadAgentRows(table);
          });
        }));
      } });
      actions.appendChild(el('div', { 'class': 'actions' }, rotate, remove));
      table.appendChild(el('tr', null, el('td', { text: agent.name }), el('td', { text: agent.created_at || '' }), el('td', { text: agent.last_used_at || 'never' }),
        el('td', { text: agent.identity_key_id || '' }), actions));
    });
  }

  // ---- Policy ---------------------------------------------------------------------------
  function loadPolicy() {
    return api('GET', '/a/policy').then(function (result) {
      clear(content);
      if (!result.ok) { content.appendChild(status('bad', errorText(result))); return; }
      var editor = el('textarea', { 'aria-label': 'Policy (JSON)', spellcheck: 'false' });
      editor.value = JSON.stringify(result.body.policy, null, 2);
      var verdict = el('div', { 'aria-live': 'polite' });
      var timer;
      function validate() {
        return api('POST', '/policy/validate', { text: editor.value }).then(function (answer) {
          clear(verdict);
          if (answer.ok) verdict.appendChild(status('ok', 'Valid: ' + answer.body.summary));
          if (answer.ok) (answer.body.warnings || []).forEach(function (w) { verdict.appendChild(status('warn', 'Warning: ' + w.field + ' (' + w.id + '): ' + w.message)); });
          else verdict.appendChild(status('bad', errorText(answer)));
          return answer.ok;
        });
      }
      editor.addEventListener('input', function () { clearTimeout(timer); timer = setTimeout(validate, 250); });
      var sample = {
        card: el('input', { type: 'text', 'aria-label': 'Sample card id', placeholder: 'card_…' }),
        merchant: el('input', { type: 'text', 'aria-label': 'Sample merchant', placeholder: 'merchant.example' }),
        amount: el('input', { type: 'text', 'aria-label': 'Sample amount', placeholder: '12.50', inputmode: 'decimal' }),
        agent: el('input', { type: 'text', 'aria-label': 'Sample agent', placeholder: 'agent name (optional)' }),
      };
      var dryResult = el('div', { 'aria-live': 'polite' });
      var dry = el('form', { 'class': 'actions', onsubmit: function (event) {
        event.preventDefault();
        var request = { card_id: sample.card.value, merchant_name: sample.merchant.value, amount: sample.amount.value };
        if (sample.agent.value) request.agent = sample.agent.value;
        api('POST', '/policy/dry-run', { text: editor.value, request: request }).then(function (answer) {
          clear(dryResult);
          dryResult.appendChild(answer.ok ? status(answer.body.decision === 'deny' ? 'bad' : answer.body.decision === 'ask' ? 'warn' : 'ok',
            answer.body.decision + (answer.body.rule ? ' by ' + answer.body.rule : '') + ': ' + answer.body.reasons.join('; ')) : status('bad', errorText(answer)));
        });
      } }, sample.card, sample.merchant, sample.amount, sample.agent, el('button', { type: 'submit', text: 'Dry run' }));
      var apply = presenceForm('Apply', function () { return ['PUT', '/a/policy', editor.value]; }, function (proof, message) {
        return api('PUT', '/a/policy', editor.value, presence(proof)).then(function (answer) {
          message.appendChild(answer.ok ? status('ok', 'Applied; sha256 ' + answer.body.sha256) : status('bad', errorText(answer)));
        });
      });
      content.appendChild(el('p', { 'class': 'muted', text: 'sha256 ' + result.body.sha256 + ' (' + result.body.source + ')' }));
      content.appendChild(editor); content.appendChild(verdict);
      content.appendChild(el('h2', { text: 'Dry run against a sample request' })); content.appendChild(dry); content.appendChild(dryResult);
      content.appendChild(el('h2', { text: 'Apply' })); content.appendChild(apply);
      validate();
    });
  }

  // ---- Activity -------------------------------------------------------------------------
  /** @param {boolean} [withReads] also show the signed upstream reads */
  function loadActivity(withReads) {
    var reads = withReads === true;
    return api('GET', reads ? '/activity?reads=true' : '/activity').then(function (result) {
      clear(content);
      if (!result.ok) { content.appendChild(status('bad', errorText(result))); return; }
      var data = result.body;
      content.appendChild(data.verify.ok ? status('ok', 'Audit log verified: ' + data.verify.lines + ' lines, hash chain intact.') : status('bad', 'Audit log does not verify: ' + data.verify.problem));
      var pause = data.paused
        ? presenceForm('Resume signing', function () { return ['POST', '/a/resume', {}]; }, function (proof, message) {
            return api('POST', '/a/resume', {}, presence(proof)).then(function (answer) { if (answer.ok) loadActivity(); else message.appendChild(status('bad', errorText(answer))); });
          })
        : el('form', { 'class': 'actions', onsubmit: function (event) {
            event.preventDefault();
            api('POST', '/a/pause', reason.value ? { reason: reason.value } : {}).then(function () { loadActivity(); });
          } }, el('input', { type: 'text', 'aria-label': 'Reason for pausing', placeholder: 'Reason (optional)' }), el('button', { type: 'submit', 'class': 'danger', text: 'Pause all signing' }));
      var reason = pause.querySelector ? pause.querySelector('input[type="text"]') : null;
      content.appendChild(el('section', { 'class': 'card' }, el('h2', { text: data.paused ? 'Signing is paused' + (data.paused.reason ? ': ' + data.paused.reason : '') : 'Signing is on' }), pause));
      // Spending and refusals first; the rest below; signed reads only when asked for (issue 44 item 3).
      /** @param {string} title @param {any[]} lines */
      function activityTable(title, lines) {
        var list = el('tbody');
        lines.forEach(function (line) { list.appendChild(el('tr', line.kind === 'refusal' ? { 'class': 'refused' } : null, el('td', { text: line.ts }), el('td', { text: line.agent }), el('td', { text: line.words }))); });
        if (lines.length === 0) list.appendChild(el('tr', null, el('td', { colspan: '3', 'class': 'muted', text: 'Nothing yet.' })));
        return el('section', { 'class': 'card', 'aria-label': title }, el('h2', { text: title }), el('div', { 'class': 'table-wrap' }, el('table', null, el('thead', null, el('tr', null, el('th', { text: 'When' }), el('th', { text: 'Who' }), el('th', { text: 'What' }))), list)));
      }
      content.appendChild(activityTable('Spending and refusals', data.lines.filter(function (line) { return line.kind === 'spending' || line.kind === 'refusal'; })));
      content.appendChild(activityTable(reads ? 'Other activity, signed reads included' : 'Other activity', data.lines.filter(function (line) { return line.kind !== 'spending' && line.kind !== 'refusal'; })));
      content.appendChild(el('button', { type: 'button', onclick: function () { loadActivity(!reads); }, text: reads ? 'Hide signed reads' : 'Show signed reads' }));
    });
  }

  // ---- Passkeys (on the agents page's side panel and the login page) ---------------------
  function passkeyPanel() {
    var panel = el('section', { 'class': 'card', 'aria-label': 'Passkeys' }, el('h2', { text: 'Passkeys' }));
    var list = el('ul'); var message = el('div', { 'aria-live': 'polite' });
    function refresh() {
      return api('GET', '/passkeys').then(function (result) {
        clear(list);
        if (!result.ok) return;
        result.body.passkeys.forEach(function (key) { list.appendChild(el('li', { text: key.label + ' (' + key.algorithm + ', added ' + key.created_at + ')' })); });
        if (result.body.passkeys.length === 0) list.appendChild(el('li', { 'class': 'muted', text: 'No passkey yet.' }));
      });
    }
    var label = el('input', { type: 'text', 'aria-label': 'Passkey name', placeholder: 'e.g. laptop', maxlength: '64' });
    var register = presenceForm('Add passkey', function () { return ['POST', '/passkeys/registration-options', { label: label.value }]; }, function (proof) {
      return api('POST', '/passkeys/registration-options', { label: label.value }, presence(proof)).then(function (result) {
        if (!result.ok) throw new Error(errorText(result));
        var options = result.body;
        return navigator.credentials.create({ publicKey: {
          challenge: fromB64u(options.challenge), rp: { id: options.rp_id, name: 'Latch' },
          user: { id: fromB64u(options.user_id), name: 'owner', displayName: 'Latch owner' },
          pubKeyCredParams: [{ type: 'public-key', alg: -7 }, { type: 'public-key', alg: -8 }],
          authenticatorSelection: { userVerification: 'required', residentKey: 'preferred' }, attestation: 'none', timeout: options.timeout_ms,
        } });
      }).then(function (/** @type {any} */ credential) {
        return api('POST', '/passkeys', { label: label.value || 'passkey', client_data_json: toB64u(credential.response.clientDataJSON), attestation_object: toB64u(credential.response.attestationObject) });
      }).then(function (answer) {
        clear(message); message.appendChild(answer.ok ? status('ok', 'Passkey added.') : status('bad', errorText(answer))); refresh();
        api('GET', '/session').then(function (result) { if (result.ok) factors = result.body.presence_factors; });
      }).catch(function (error) { clear(message); message.appendChild(status('bad', error.message || String(error))); });
    }, { passphrase: 'Confirm with passphrase, then add passkey', passkey: 'Confirm with a passkey, then add another' });
    panel.appendChild(list); panel.appendChild(label); panel.appendChild(register); panel.appendChild(message);
    refresh();
    return panel;
  }

  // ---- Sign in -------------------------------------------------------------------------
  // Two ways in (docs/decisions.md §37): the one-time link from "latch console" (#code) and, once
  // the owner has a passkey, passkey sign-in. With a passphrase or passkey set, the link alone is
  // not enough: the page asks for one of them too, so a program that read the link gets nothing.
  // The page shows no term of any approval before sign-in.
  function publicPost(path, body) {
    return fetch('/console/api' + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), credentials: 'same-origin' })
      .then(function (response) { return response.json().then(function (json) { return { ok: response.ok, status: response.status, body: json }; }); });
  }
  function login() {
    var code = location.hash.slice(1);
    var approvalId = document.body.getAttribute('data-approval-id');
    var next = approvalId ? '/approvals/' + approvalId : '/approvals';
    // The code is kept in this script's memory only: never in the address bar or history.
    history.replaceState(null, '', approvalId ? next : '/login');
    clear(content);
    var message = el('div', { 'aria-live': 'polite' });
    function signedIn() { location.replace(next); }
    function failed(result) { clear(message); message.appendChild(status('bad', result.body && result.body.error && result.body.error.code === 'login_code_invalid' ? 'That login link was already used or has expired. Run "latch console" again.' : errorText(result))); }
    function withPasskey() {
      clear(message);
      return publicPost('/signin/passkey-options', {}).then(function (result) {
        if (!result.ok) throw new Error(errorText(result));
        return passkeyAssertion(result.body);
      }).then(function (assertion) {
        return publicPost(code ? '/login' : '/signin', code ? { code: code, passkey: assertion } : { passkey: assertion });
      }).then(function (result) { if (result.ok) signedIn(); else failed(result); })
        .catch(function (error) { clear(message); message.appendChild(status('bad', error.message || String(error))); });
    }
    var passkeyButton = el('button', { type: 'button', 'class': 'primary', text: 'Sign in with passkey', onclick: withPasskey });
    if (!code) {
      content.appendChild(el('p', { text: approvalId ? 'Sign in to see this approval and decide it.' : 'Sign in to the Latch console.' }));
      content.appendChild(el('div', { 'class': 'actions' }, passkeyButton));
      content.appendChild(el('p', { 'class': 'muted', text: 'Or run "latch console" in a terminal: it opens a one-time sign-in link.' }));
      content.appendChild(message);
      return;
    }
    publicPost('/login', { code: code }).then(function (result) {
      if (result.ok) { signedIn(); return; }
      if (!(result.body && result.body.error && result.body.error.code === 'owner_presence_required')) { content.appendChild(message); failed(result); return; }
      // The link is good; now the person: a passkey, or the passphrase.
      var pass = el('input', { type: 'password', autocomplete: 'current-password', 'aria-label': 'Owner passphrase', placeholder: 'Passphrase' });
      var form = el('form', { 'class': 'actions', onsubmit: function (event) {
        event.preventDefault(); clear(message);
        if (!pass.value) { message.appendChild(status('bad', 'Type the owner passphrase, or use a passkey.')); pass.focus(); return; }
        var typed = pass.value; pass.value = '';
        publicPost('/login', { code: code, passphrase: typed }).then(function (answer) { if (answer.ok) signedIn(); else failed(answer); });
      } }, pass, el('button', { type: 'submit', text: 'Sign in with passphrase' }));
      content.appendChild(el('p', { text: 'Confirm that it is you: the sign-in link alone is not enough once a passphrase or passkey is set.' }));
      var passkeyRow = el('div', { 'class': 'actions' }, passkeyButton);
      passkeyRow.hidden = true;
      content.appendChild(passkeyRow);
      content.appendChild(form);
      content.appendChild(message);
      // The passkey button only where a passkey is registered (the options say so; they are not used).
      publicPost('/signin/passkey-options', {}).then(function (options) { passkeyRow.hidden = !options.ok; });
    });
  }

  var loaders = { approvals: function () { refreshApprovals(); watchApprovals(); }, spending: loadSpending,
    agents: function () { loadAgents().then(function () { content.appendChild(passkeyPanel()); }); }, policy: loadPolicy, activity: loadActivity, login: login,
    approval: loadApproval };
  if (page === 'login' || !loaders[page]) login();
  else api('GET', '/session').then(function (result) {
    if (result.ok) factors = result.body.presence_factors;
    loaders[page]();
  });
})();
