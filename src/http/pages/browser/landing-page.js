// The landing page's top collections: the ten with the most volume in the last 24 hours, each
// with its hourly floor over the last 7 days as a uPlot sparkline, from one query of the public
// GraphQL API (../page-queries.ts, topCollections). The sparklines stay on window.pageCharts.
(function () {
  'use strict';
  var api = window.pageApi;
  var config = api.config;
  var charts = (window.pageCharts = { variables: null, sparklines: {} });

  function sparkline(target, points) {
    var data = [points.map(function (p) { return p.start; }), points.map(function (p) { return api.weiToEth(p.floorPrice); })];
    return new uPlot(
      {
        width: 160,
        height: 36,
        pxAlign: false,
        cursor: { show: false },
        legend: { show: false },
        scales: { x: { time: false } },
        axes: [{ show: false }, { show: false }],
        series: [{}, { stroke: '#2a6fdb', width: 1.5 }],
      },
      data,
      target,
    );
  }

  async function draw() {
    var to = api.intervalEnd(3600);
    var variables = { first: config.topCollections, since: to - 7 * 86400, to: to };
    api.linkPanel('panel-top-collections', 'topCollections', variables);
    try {
      var edges = (await api.runQuery('topCollections', variables)).collections.edges;
      var cells = [];
      api.fillTable('top-collections', edges.map(function (e) {
        var n = e.node;
        var link = api.el('a', n.name);
        link.href = '/collections/' + n.address;
        if (n.logoURI) {
          var logo = document.createElement('img');
          logo.className = 'logo-small';
          logo.alt = '';
          logo.width = 24;
          logo.height = 24;
          logo.src = n.logoURI;
          link.prepend(logo);
        }
        var spark = api.el('div', null, 'sparkline');
        spark.dataset.address = n.address;
        cells.push({ target: spark, node: n });
        return [link, api.eth(n.stats.volume24hEth), api.percent(n.stats.change24h), api.eth(n.stats.floorPriceEth), spark];
      }), 'no collection yet');
      for (var c of cells) charts.sparklines[c.node.address] = sparkline(c.target, c.node.series);
      charts.variables = variables;
      performance.mark('charts-drawn');
      document.documentElement.dataset.charts = '1';
    } catch (err) {
      api.showError(document.getElementById('top-collections'), err);
    }
  }

  draw();
})();
