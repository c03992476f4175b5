// The throttling timeline: polls /console/api/timeline each second and
// draws consumed units/s, capacity, bucket balance and throttle events as
// SVG. No library.
(function () {
  'use strict';
  var root = document.getElementById('timeline');
  var NS = 'http://www.w3.org/2000/svg';
  var url = '/console/api/timeline?ns=' + encodeURIComponent(root.dataset.ns) +
    '&t=' + encodeURIComponent(root.dataset.table) + '&seconds=60';

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  // draw renders one direction ('read' or 'write') of points into svg.
  function draw(svg, points, dir, events) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var W = 800, H = 200, top = 14, n = points.length || 1;
    var capKey = dir + 'Cap', balKey = dir + 'Bal';
    var max = 1;
    points.forEach(function (p) {
      max = Math.max(max, p[dir], p[capKey] || 0, p[balKey] || 0);
    });
    max *= 1.15;
    var x = function (i) { return i * W / n; };
    var y = function (v) { return H - (Math.max(v, 0) / max) * (H - top); };
    var bw = Math.max(1, W / n - 1);
    points.forEach(function (p, i) {
      if (p[dir] > 0) el('rect', {class: 'consumed', x: x(i), y: y(p[dir]), width: bw, height: H - y(p[dir])}, svg)
        .appendChild(document.createElementNS(NS, 'title')).textContent = p[dir] + ' units at ' + new Date(p.t * 1000).toLocaleTimeString();
    });
    // capacity and balance: step lines through the seconds that reported them.
    ['capacity', 'balance'].forEach(function (kind) {
      var key = kind === 'capacity' ? capKey : balKey, d = '';
      points.forEach(function (p, i) {
        if (p[key] === undefined) return;
        d += (d ? ' L' : 'M') + x(i) + ' ' + y(p[key]) + ' L' + x(i + 1) + ' ' + y(p[key]);
      });
      if (d) el('path', {class: kind, d: d}, svg);
    });
    // throttle events, one mark per second that had any, titled by reason.
    points.forEach(function (p, i) {
      if (!p.throttles) return;
      var reasons = Object.keys(p.throttles).filter(function (r) {
        return dir === 'read' ? /Read|RequestLimit|Throttling/.test(r) : /Write|RequestLimit|Throttling/.test(r);
      });
      if (!reasons.length) return;
      var line = el('line', {class: 'throttle', x1: x(i) + bw / 2, x2: x(i) + bw / 2, y1: top, y2: H, 'data-reasons': reasons.join(' ')}, svg);
      el('title', {}, line).textContent = reasons.map(function (r) { return r + ' ×' + p.throttles[r]; }).join('\n');
    });
    el('text', {x: 4, y: 11}, svg).textContent = 'max ' + max.toFixed(1) + ' units/s';
  }

  function rows(tbody, items, cells) {
    while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
    items.forEach(function (it) {
      var tr = tbody.insertRow();
      cells(it).forEach(function (c, i) {
        var td = tr.insertCell();
        td.textContent = c;
        if (typeof c === 'number') td.className = 'num';
      });
    });
  }

  function refresh() {
    fetch(url, {cache: 'no-store'}).then(function (r) { return r.json(); }).then(function (tl) {
      if (tl.error) { root.textContent = tl.error; return; }
      draw(document.getElementById('chart-read'), tl.points, 'read', tl.events);
      draw(document.getElementById('chart-write'), tl.points, 'write', tl.events);
      var ix = document.getElementById('indexes');
      var names = Object.keys(tl.indexes || {}).sort();
      names.forEach(function (name) {
        var svg = document.getElementById('chart-index-' + name);
        if (!svg) {
          var h = document.createElement('h2');
          h.textContent = 'Index ' + name + ' (reads and writes)';
          ix.appendChild(h);
          svg = el('svg', {id: 'chart-index-' + name, class: 'chart', viewBox: '0 0 800 200', preserveAspectRatio: 'none'}, ix);
        }
        var pts = tl.indexes[name].map(function (p) { return {t: p.t, read: p.read + p.write}; });
        draw(svg, pts, 'read', []);
      });
      rows(document.querySelector('#events tbody'), tl.events.slice(-10).reverse(), function (e) {
        return [new Date(e.t * 1000).toLocaleTimeString(), e.reason || '(none sent)', e.code, e.key || ''];
      });
      rows(document.querySelector('#hot tbody'), tl.hot, function (h) {
        return [h.key, +h.read.toFixed(1), +h.write.toFixed(1), h.throttled];
      });
    }).catch(function () {});
  }
  refresh();
  setInterval(refresh, 1000);
})();
