// Shared by the pages' scripts: the page's configuration (inert JSON written by the server),
// GraphQL over POST to this service's public endpoint, "open in GraphiQL" links carrying a panel's
// query and variables, and formatting. Plain browser JavaScript, no build step.
(function () {
  'use strict';
  var config = JSON.parse(document.getElementById('page-config').textContent);

  /** Runs one of the page's queries; rejects with the API's error messages. */
  async function runQuery(name, variables) {
    var res = await fetch(config.graphql, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json;q=0.9' },
      body: JSON.stringify({ query: config.queries[name], variables: variables }),
    });
    var body = await res.json();
    if (body.errors && body.errors.length) throw new Error(body.errors.map(function (e) { return e.message; }).join('; '));
    return body.data;
  }

  /** GraphiQL with this query and these variables (GraphiQL reads ?query= and ?variables=). */
  function graphiqlHref(name, variables) {
    if (!config.graphiql) return null;
    var params = new URLSearchParams({ query: config.queries[name], variables: JSON.stringify(variables, null, 2) });
    return config.graphiql + '?' + params.toString();
  }

  /** Points the panel's "open in GraphiQL" link at the query that fills it. */
  function linkPanel(panelId, name, variables) {
    var a = document.querySelector('#' + panelId + ' .graphiql-link');
    var href = graphiqlHref(name, variables);
    if (!a || !href) return;
    a.href = href;
    a.hidden = false;
  }

  /** wei (a decimal string) as a number of ETH: what the charts draw. */
  function weiToEth(wei) {
    return wei == null ? null : Number(wei) / 1e18;
  }

  function eth(value) {
    if (value == null) return '—';
    var n = Number(value);
    return n.toLocaleString('en-US', { maximumFractionDigits: n !== 0 && Math.abs(n) < 0.01 ? 6 : 4 });
  }

  function percent(value) {
    if (value == null) return '—';
    var n = Number(value);
    return (n > 0 ? '+' : '') + n.toLocaleString('en-US', { maximumFractionDigits: 1 }) + ' %';
  }

  function shortHex(hex) {
    return hex ? hex.slice(0, 6) + '…' + hex.slice(-4) : '—';
  }

  function utc(seconds) {
    return new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ');
  }

  /** An element with text content (never HTML: everything shown comes from the API). */
  function el(tag, text, className) {
    var e = document.createElement(tag);
    if (text != null) e.textContent = String(text);
    if (className) e.className = className;
    return e;
  }

  function fillTable(id, rows, empty) {
    var body = document.querySelector('#' + id + ' tbody');
    var columns = document.querySelectorAll('#' + id + ' thead th').length;
    body.replaceChildren();
    if (!rows.length) {
      var td = el('td', empty, 'muted');
      td.colSpan = columns;
      var only = el('tr');
      only.append(td);
      body.append(only);
      return;
    }
    for (var row of rows) {
      var tr = el('tr');
      for (var cell of row) tr.append(cell instanceof Node ? wrap(cell) : el('td', cell));
      body.append(tr);
    }
  }

  function wrap(node) {
    var td = el('td');
    td.append(node);
    return td;
  }

  function showError(container, err) {
    container.replaceChildren(el('p', 'Could not load: ' + (err && err.message ? err.message : err), 'error'));
  }

  /** The end of the current hour (or day), so the last interval drawn is the one in progress. */
  function intervalEnd(stepSeconds) {
    var now = Math.floor(Date.now() / 1000);
    return Math.floor(now / stepSeconds) * stepSeconds + stepSeconds;
  }

  window.pageApi = {
    config: config,
    runQuery: runQuery,
    graphiqlHref: graphiqlHref,
    linkPanel: linkPanel,
    weiToEth: weiToEth,
    eth: eth,
    percent: percent,
    shortHex: shortHex,
    utc: utc,
    el: el,
    fillTable: fillTable,
    showError: showError,
    intervalEnd: intervalEnd,
  };
})();
