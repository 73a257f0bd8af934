// The collection page's panels, each filled from the public GraphQL API by its own query
// (../page-queries.ts), with uPlot for the floor and volume charts. The drawn charts stay on
// window.pageCharts (their uPlot instances and the variables of the series query), so a reader
// or a test can check what was drawn against the API.
(function () {
  'use strict';
  var api = window.pageApi;
  var config = api.config;
  var address = config.address;
  var STEP = { HOUR: 3600, DAY: 86400 };
  var selection = { range: config.selection.range, resolution: config.selection.resolution };
  var charts = (window.pageCharts = { variables: null, floor: null, volume: null, drawn: 0 });

  function seriesVariables() {
    var step = STEP[selection.resolution];
    var to = api.intervalEnd(step);
    return { address: address, resolution: selection.resolution, from: to - config.ranges[selection.range], to: to };
  }

  function chartWidth(id) {
    return Math.max(320, document.getElementById(id).clientWidth);
  }

  function ethAxis(u, values) {
    return values.map(function (v) { return api.eth(v); });
  }

  function floorOptions() {
    return {
      width: chartWidth('chart-floor'),
      height: 240,
      scales: { x: { time: true } },
      series: [
        { value: function (u, v) { return v == null ? '—' : api.utc(v); } },
        // no index: the cursor is off the chart; a null floor under the cursor: nothing was listed
        { label: 'Floor', stroke: '#2a6fdb', width: 2, fill: 'rgba(42,111,219,0.08)', value: function (u, v, s, i) { return i == null ? '—' : v == null ? 'no listing' : api.eth(v) + ' ETH'; } },
      ],
      axes: [{}, { values: ethAxis, size: 70 }],
    };
  }

  function volumeOptions() {
    return {
      width: chartWidth('chart-volume'),
      height: 240,
      scales: { x: { time: true }, eth: { range: function (u, min, max) { return [0, max > 0 ? max * 1.1 : 1]; } }, count: { range: function (u, min, max) { return [0, max > 0 ? max * 1.1 : 1]; } } },
      series: [
        { value: function (u, v) { return v == null ? '—' : api.utc(v); } },
        { label: 'Volume', scale: 'eth', stroke: '#2a6fdb', fill: 'rgba(42,111,219,0.55)', paths: uPlot.paths.bars({ size: [0.8, 60] }), points: { show: false }, value: function (u, v) { return v == null ? '—' : api.eth(v) + ' ETH'; } },
        { label: 'Sales', scale: 'count', stroke: '#d9822b', width: 1.5, value: function (u, v) { return v == null ? '—' : String(v); } },
      ],
      axes: [{}, { scale: 'eth', values: ethAxis, size: 70 }, { scale: 'count', side: 1, grid: { show: false } }],
    };
  }

  /** uPlot's columns: x (interval starts, unix seconds) and one array per series. */
  function chartData(points) {
    return {
      floor: [points.map(function (p) { return p.start; }), points.map(function (p) { return api.weiToEth(p.floorPrice); })],
      volume: [
        points.map(function (p) { return p.start; }),
        points.map(function (p) { return api.weiToEth(p.volume); }),
        points.map(function (p) { return p.salesCount; }),
      ],
    };
  }

  function markSelection() {
    document.querySelectorAll('#chart-controls [data-range]').forEach(function (b) { b.setAttribute('aria-pressed', String(b.dataset.range === selection.range)); });
    document.querySelectorAll('#chart-controls [data-resolution]').forEach(function (b) {
      b.setAttribute('aria-pressed', String(b.dataset.resolution === selection.resolution));
      b.disabled = b.dataset.resolution === 'HOUR' && config.hourRanges.indexOf(selection.range) < 0;
    });
  }

  async function drawCharts() {
    var variables = seriesVariables();
    api.linkPanel('panel-floor', 'collectionSeries', variables);
    api.linkPanel('panel-volume', 'collectionSeries', variables);
    try {
      var data = await api.runQuery('collectionSeries', variables);
      if (!data.collection) throw new Error('no collection at this address');
      var d = chartData(data.collection.series);
      if (charts.floor) {
        charts.floor.setData(d.floor);
        charts.volume.setData(d.volume);
      } else {
        charts.floor = new uPlot(floorOptions(), d.floor, document.getElementById('chart-floor'));
        charts.volume = new uPlot(volumeOptions(), d.volume, document.getElementById('chart-volume'));
      }
      charts.variables = variables;
      charts.drawn++;
      if (charts.drawn === 1) performance.mark('charts-drawn');
      document.documentElement.dataset.charts = String(charts.drawn);
      document.getElementById('chart-status').textContent = '';
    } catch (err) {
      // beside the controls: the charts drawn before stay as they are
      document.getElementById('chart-status').textContent = 'Could not load the series: ' + (err && err.message ? err.message : err);
    }
  }

  function select(change) {
    if (change.range) selection.range = change.range;
    if (change.resolution) selection.resolution = change.resolution;
    if (selection.resolution === 'HOUR' && config.hourRanges.indexOf(selection.range) < 0) selection.resolution = 'DAY';
    var url = new URL(location.href);
    url.searchParams.set('range', selection.range);
    url.searchParams.set('resolution', selection.resolution);
    history.replaceState(null, '', url);
    markSelection();
    drawCharts();
  }

  document.getElementById('chart-controls').addEventListener('click', function (e) {
    var b = e.target.closest('button');
    if (!b || b.disabled) return;
    select({ range: b.dataset.range, resolution: b.dataset.resolution });
  });
  window.addEventListener('resize', function () {
    if (!charts.floor) return;
    charts.floor.setSize({ width: chartWidth('chart-floor'), height: 240 });
    charts.volume.setSize({ width: chartWidth('chart-volume'), height: 240 });
  });

  async function drawStats() {
    var variables = { address: address };
    api.linkPanel('panel-stats', 'collectionStats', variables);
    var box = document.getElementById('stats');
    try {
      var c = (await api.runQuery('collectionStats', variables)).collection;
      var s = c.stats;
      document.getElementById('collection-kind').textContent = c.type + (c.symbol ? ' · ' + c.symbol : '') + (c.isVerified ? ' · verified' : '');
      if (c.logoURI) {
        var logo = document.getElementById('collection-logo');
        logo.src = c.logoURI;
        logo.hidden = false;
      }
      var figures = [
        ['stat-floor', api.eth(s.floorPriceEth) + ' ETH', 'floor (' + api.percent(s.floorChange24h) + ' 24h)'],
        ['stat-top-bid', c.topBid ? api.eth(c.topBid.priceEth) + ' ETH' : '—', 'top bid'],
        ['stat-volume-24h', api.eth(s.volume24hEth) + ' ETH', 'volume 24h (' + api.percent(s.change24h) + ')'],
        ['stat-volume-7d', api.eth(s.volume7dEth) + ' ETH', 'volume 7d'],
        ['stat-volume-all', api.eth(s.volumeAllEth) + ' ETH', 'volume, all time'],
        ['stat-sales', Number(s.count24h).toLocaleString('en-US') + ' / ' + Number(s.countAll).toLocaleString('en-US'), 'sales 24h / all time'],
        ['stat-listed', c.listedCount + ' / ' + s.totalSupply, 'listed / supply'],
        ['stat-owners', Number(s.countOwners).toLocaleString('en-US'), 'owners'],
      ];
      box.replaceChildren.apply(box, figures.map(function (f) {
        var d = api.el('div', null, 'figure');
        d.id = f[0];
        d.append(api.el('b', f[1]), api.el('span', f[2]));
        return d;
      }));
    } catch (err) {
      api.showError(box, err);
    }
  }

  /** The cheapest listed tokens as cards: image, name, rank and price. */
  async function drawTokens() {
    var variables = { address: address, first: config.rows };
    api.linkPanel('panel-tokens', 'collectionTokens', variables);
    var grid = document.getElementById('token-grid');
    try {
      var edges = (await api.runQuery('collectionTokens', variables)).tokens.edges;
      if (!edges.length) return void grid.replaceChildren(api.el('p', 'nothing listed', 'muted'));
      grid.replaceChildren.apply(grid, edges.map(function (e) {
        var n = e.node;
        var card = api.el('figure', null, 'token-card');
        var img = document.createElement('img');
        img.alt = n.name || '#' + n.tokenId;
        img.loading = 'lazy';
        img.width = 128;
        img.height = 128;
        if (n.image) img.src = n.image;
        var caption = api.el('figcaption', (n.name || '#' + n.tokenId) + (n.rarity ? ' · rank ' + n.rarity.rank : ''));
        caption.append(api.el('b', n.bestAsk ? api.eth(n.bestAsk.priceEth) + ' ETH' : '—'));
        card.append(img, caption);
        return card;
      }));
    } catch (err) {
      api.showError(grid, err);
    }
  }

  async function drawDepth() {
    var variables = { address: address, levels: config.rows };
    api.linkPanel('panel-depth', 'collectionDepth', variables);
    try {
      var c = (await api.runQuery('collectionDepth', variables)).collection;
      ladder('depth-asks', c.asks, 'no listing');
      ladder('depth-bids', c.bids, 'no offer');
    } catch (err) {
      api.showError(document.querySelector('#panel-depth .ladder'), err);
    }
  }

  /** One side of the book, with a bar as wide as the level's share of the side's cumulative amount. */
  function ladder(id, side, empty) {
    var last = side.levels.length ? Number(side.levels[side.levels.length - 1].cumulativeAmount) : 1;
    api.fillTable(id, side.levels.map(function (l) {
      var bar = api.el('span', null, 'bar');
      bar.style.width = Math.round((100 * Number(l.cumulativeAmount)) / last) + '%';
      var cumulative = api.el('span', l.cumulativeAmount, 'bar-cell');
      cumulative.prepend(bar);
      return [api.eth(l.priceEth), l.orderCount, l.amount, cumulative];
    }), empty);
  }

  async function drawActivity() {
    var variables = { address: address, first: config.rows };
    api.linkPanel('panel-activity', 'collectionActivity', variables);
    try {
      var edges = (await api.runQuery('collectionActivity', variables)).activity.edges;
      api.fillTable('activity', edges.map(function (e) {
        var n = e.node;
        return [api.utc(n.createdAt), n.type + (n.cause ? ' (' + n.cause + ')' : ''), n.tokenId == null ? 'any' : n.tokenId, n.priceEth == null ? '—' : api.eth(n.priceEth), api.shortHex(n.from), api.shortHex(n.to)];
      }), 'no activity yet');
    } catch (err) {
      api.showError(document.getElementById('activity'), err);
    }
  }

  async function drawSales() {
    var variables = { address: address, first: config.rows };
    api.linkPanel('panel-sales', 'collectionSales', variables);
    try {
      var edges = (await api.runQuery('collectionSales', variables)).sales.edges;
      api.fillTable('sales', edges.map(function (e) {
        var n = e.node;
        return [api.utc(n.timestamp), n.tokenId, api.eth(n.priceEth), api.shortHex(n.seller), api.shortHex(n.buyer), api.shortHex(n.txHash)];
      }), 'no sale yet');
    } catch (err) {
      api.showError(document.getElementById('sales'), err);
    }
  }

  markSelection();
  // The charts' query goes first, alone: the service answers concurrent requests on shared
  // threads, so five at once would each finish late. The other panels follow it.
  drawCharts()
    .then(function () { return Promise.all([drawStats(), drawTokens(), drawDepth(), drawActivity(), drawSales()]); })
    .then(function () { document.documentElement.dataset.panels = 'done'; });
})();
