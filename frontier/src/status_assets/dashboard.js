// crawlfront status dashboard: polls /api/stats and redraws in place.
// Every crawled string is inserted with textContent, never as markup.
'use strict';
(function () {
  const POLL_MS = 1500;
  const TOKEN_KEY = 'crawlfront_status_token';
  const $ = (id) => document.getElementById(id);

  function fmt(n) {
    if (typeof n !== 'number' || !isFinite(n)) return String(n);
    if (Number.isInteger(n)) return n.toLocaleString('en-US');
    return n.toFixed(Math.abs(n) < 1 ? 4 : 2);
  }
  function time(ms) { return ms > 0 ? new Date(ms).toLocaleTimeString() : '-'; }
  function cell(text, cls) {
    const td = document.createElement('td');
    td.textContent = text;
    if (cls) td.className = cls;
    return td;
  }
  function row(cells) {
    const tr = document.createElement('tr');
    for (const c of cells) {
      tr.appendChild(typeof c === 'number' ? cell(fmt(c), 'num') : c instanceof Node ? c : cell(String(c)));
    }
    return tr;
  }
  function fill(id, rows) { $(id).replaceChildren(...rows); }
  function kv(id, pairs) { fill(id, pairs.map(([k, v]) => row([k, v]))); }
  function progress(task) {
    const td = document.createElement('td');
    if (task.running && task.total > 0) {
      const bar = document.createElement('progress');
      bar.max = task.total;
      bar.value = task.done;
      td.appendChild(bar);
      td.appendChild(document.createTextNode(' '));
    }
    td.appendChild(document.createTextNode(task.text));
    return td;
  }

  function renderTotals(s) {
    const t = s.totals, c = t.fetched_by_class;
    kv('totals', [
      ['URLs seen', fmt(t.urls_seen)], ['queued', fmt(t.urls_queued)],
      ['in flight', fmt(t.urls_inflight)], ['fetched', fmt(t.urls_fetched)],
      ['failed', fmt(t.urls_failed)], ['robots blocked', fmt(t.urls_robots_blocked)],
      ['rejected', fmt(t.urls_rejected)], ['dropped', fmt(t.urls_dropped)], ['hosts (ready)', fmt(t.hosts) + ' (' + fmt(t.hosts_ready) + ')'],
      ['leases expired', fmt(t.leases_expired)],
      ['by status none/1/2/3/4/5xx', c.map(fmt).join(' / ')],
      ['uptime', fmt(Math.round(s.uptime_seconds)) + ' s'],
    ]);
  }

  function renderSeen(s) {
    const seen = s.seen, sum = seen.summary;
    kv('seen', [
      ['mode', seen.mode], ['items', fmt(seen.items)],
      ['filter bytes', fmt(seen.filter_bytes)], ['partitions', fmt(sum.count)],
      ['capacity', fmt(sum.capacity)],
      ['fill min / mean / max', [sum.fill_min, sum.fill_mean, sum.fill_max].map(fmt).join(' / ')],
      ['max est. FP rate', fmt(sum.fp_max)], ['rebuilding now', fmt(sum.rebuilding)],
    ]);
    fill('tasks', [row(['snapshot', progress(s.snapshot)]), row(['rebuild', progress(s.rebuild)]),
      row(['durability', s.persistence.text])]);
    fill('fullest', seen.fullest.map((p) => row([p.id, p.items, p.capacity, p.fill_ratio,
      p.estimated_fp_rate, p.rebuilds, p.rebuilding ? 'rebuilding' : 'ok'])));
    drawHeatmap(seen.partitions);
  }

  let heat = { cols: 1, size: 1, parts: null };
  function heatColor(f) {
    const x = Math.max(0, Math.min(1, f / 0.6));  // 0.5 is full at capacity
    return 'hsl(' + Math.round(120 * (1 - x)) + ',70%,' + (f > 0.6 ? 35 : 50) + '%)';
  }
  function drawHeatmap(parts) {
    const canvas = $('heatmap'), ctx = canvas.getContext('2d');
    const n = parts.id.length, cols = Math.max(1, Math.ceil(Math.sqrt(n)));
    const size = Math.floor(canvas.width / cols);
    heat = { cols: cols, size: size, parts: parts };
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    for (let i = 0; i < n; i++) {
      ctx.fillStyle = parts.rebuilding[i] ? '#6b3fa0' : heatColor(parts.fill_ratio[i]);
      ctx.fillRect((i % cols) * size, Math.floor(i / cols) * size, size - 1, size - 1);
    }
  }
  function onHeatHover(ev) {
    const p = heat.parts;
    if (!p) return;
    const rect = ev.target.getBoundingClientRect();
    const scale = ev.target.width / rect.width;
    const col = Math.floor((ev.clientX - rect.left) * scale / heat.size);
    const r = Math.floor((ev.clientY - rect.top) * scale / heat.size);
    const i = r * heat.cols + col;
    if (col >= heat.cols || i < 0 || i >= p.id.length) return;
    $('heat-info').textContent = 'partition ' + p.id[i] + ': items ' + fmt(p.items[i]) +
      ' / capacity ' + fmt(p.capacity[i]) + ', fill ' + fmt(p.fill_ratio[i]) +
      ', est. FP ' + fmt(p.estimated_fp_rate[i]) + ', rebuilds ' + p.rebuilds[i] +
      ', last snapshot ' + time(p.last_snapshot_unix_ms[i]);
  }

  function drawRates(h) {
    const canvas = $('rates'), ctx = canvas.getContext('2d');
    const w = canvas.width, ht = canvas.height, pad = 40;
    ctx.clearRect(0, 0, w, ht);
    const series = [['fetched_per_second', '#1f6fd1'], ['added_per_second', '#2a9d3b'],
      ['failed_per_second', '#c93030']];
    let max = 1;
    for (const [k] of series) for (const v of h[k]) max = Math.max(max, v);
    const n = h.unix_ms.length, span = 900;
    ctx.strokeStyle = '#d8dde3';
    ctx.fillStyle = '#5a6572';
    ctx.font = '11px sans-serif';
    ctx.beginPath();
    ctx.moveTo(pad, 5); ctx.lineTo(pad, ht - 20); ctx.lineTo(w - 5, ht - 20);
    ctx.stroke();
    ctx.fillText(fmt(max) + '/s', 2, 12);
    ctx.fillText('-15 min', pad, ht - 5);
    ctx.fillText('now', w - 30, ht - 5);
    const x = (i) => pad + (w - pad - 5) * (span - (n - 1 - i)) / span;
    const y = (v) => ht - 20 - (ht - 30) * v / max;
    for (const [k, color] of series) {
      ctx.strokeStyle = color;
      ctx.beginPath();
      h[k].forEach((v, i) => (i === 0 ? ctx.moveTo(x(i), y(v)) : ctx.lineTo(x(i), y(v))));
      ctx.stroke();
    }
    canvas.dataset.points = String(n);  // a hook for tests/ui: the chart was drawn
    const last = (k) => (n > 0 ? fmt(h[k][n - 1]) : '-');
    $('rates-now').textContent = 'now: fetched ' + last('fetched_per_second') + '/s, added ' +
      last('added_per_second') + '/s, failed ' + last('failed_per_second') + '/s';
  }

  function renderLists(s) {
    fill('hosts', s.top_hosts.map((h) => row([cell(h.host, 'text'), h.queued, h.inflight, h.done,
      h.delay_ms, h.ready_in_ms <= 0 ? 'now' : fmt(h.ready_in_ms),
      time(h.blocked_until_unix_ms), h.robots_state])));
    fill('workers', s.workers.map((w) => row([cell(w.id, 'text'), w.address, w.leases, w.dones,
      w.pages_per_second])));
    fill('crawls', s.crawls.map((c) => row([cell(c.id, 'text'),
      c.paused ? 'paused' : c.finished ? 'finished' : 'running', c.urls_seen, c.urls_queued,
      c.urls_inflight, c.urls_fetched, c.urls_failed, c.hosts, c.hosts_ready])));
    fill('errors', s.recent_errors.slice().reverse().map((e) => row([time(e.unix_ms),
      cell(e.text, 'text')])));
  }

  function setBadge(id, text, ok) {
    const b = $(id);
    b.textContent = text;
    b.className = 'badge ' + (ok ? 'ok' : 'bad');
  }

  function render(doc) {
    const s = doc.snapshot;
    $('meta').textContent = 'version ' + s.version;
    setBadge('state', s.finished ? 'finished' : s.ready ? 'ready' : 'not ready', s.ready);
    renderTotals(s);
    renderSeen(s);
    drawRates(doc.history);
    renderLists(s);
  }

  async function poll() {
    const token = sessionStorage.getItem(TOKEN_KEY);
    const headers = token ? { Authorization: 'Bearer ' + token } : {};
    try {
      const res = await fetch('/api/stats', { headers: headers, cache: 'no-store' });
      if (res.status === 401) {
        $('auth').hidden = false;
        setBadge('conn', 'token required', false);
        return;  // resumes after the token form is submitted
      }
      if (!res.ok) throw new Error('HTTP ' + res.status);
      render(await res.json());
      setBadge('conn', 'live ' + new Date().toLocaleTimeString(), true);
    } catch (e) {
      setBadge('conn', 'disconnected: ' + e.message, false);
    }
    setTimeout(poll, POLL_MS);
  }

  document.addEventListener('DOMContentLoaded', () => {
    $('auth').addEventListener('submit', (ev) => {
      ev.preventDefault();
      sessionStorage.setItem(TOKEN_KEY, $('token').value);
      $('auth').hidden = true;
      poll();
    });
    $('heatmap').addEventListener('mousemove', onHeatHover);
    poll();
  });
})();
