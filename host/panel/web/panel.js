// axon panel: one page, five tabs. Everything the daemon sends reaches
// the DOM as text (textContent, append of strings), never as HTML.
'use strict';
(function () {
  const csrf = document.querySelector('meta[name="axon-csrf"]').content;
  const auth = document.querySelector('meta[name="axon-auth"]').content;
  const SVG = document.getElementById('svg-ns').content.firstElementChild.namespaceURI;
  const $ = (sel) => document.querySelector(sel);

  // el builds an element: attrs are attributes, except text (textContent)
  // and on* (listeners); kids are nodes or strings (appended as text).
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    setAttrs(e, attrs);
    for (const k of kids) if (k !== null && k !== undefined && k !== false) e.append(k);
    return e;
  }
  function svg(tag, attrs, ...kids) {
    const e = document.createElementNS(SVG, tag);
    setAttrs(e, attrs);
    for (const k of kids) if (k !== null && k !== undefined) e.append(k);
    return e;
  }
  function setAttrs(e, attrs) {
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'text') e.textContent = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : String(v));
    }
  }
  function clear(e, ...kids) { e.replaceChildren(...kids); return e; }

  async function getJSON(url) {
    const r = await fetch(url, { headers: { Accept: 'application/json' } });
    const body = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error((body.error && body.error.message) || r.status + ' ' + r.statusText);
    return body;
  }
  function post(url, body) {
    return fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Axon-CSRF': csrf },
      body: JSON.stringify(body),
    });
  }

  const ms = (ns) => (ns ? Math.round(ns / 1e6) + 'ms' : '');
  const fmtMS = (v) => (v >= 10000 ? (v / 1000).toFixed(1) + 's' : Math.round(v) + 'ms');
  const usd = (v) => '$' + (v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(2) : v.toFixed(4));
  const num = (v) => (v >= 1e6 ? (v / 1e6).toFixed(1) + 'M' : v >= 1e3 ? (v / 1e3).toFixed(1) + 'k' : String(Math.round(v * 100) / 100));
  const pct = (v) => Math.round(v * 1000) / 10 + '%';

  // ---- tabs ----
  const pages = ['live', 'roster', 'stats', 'try', 'knobs'];
  const loaders = {};
  function show(page) {
    if (!pages.includes(page)) page = 'live';
    for (const p of pages) {
      $('#tab-' + p).setAttribute('aria-selected', String(p === page));
      $('#page-' + p).hidden = p !== page;
    }
    if (loaders[page]) loaders[page]();
  }
  for (const p of pages) $('#tab-' + p).addEventListener('click', () => { location.hash = p; });
  window.addEventListener('hashchange', () => show(location.hash.slice(1)));

  if (auth === 'token') {
    const out = $('#logout');
    out.hidden = false;
    out.addEventListener('click', async () => { await post('/panel/logout', {}); location.reload(); });
  }

  // ---- roster (shared by roster, try and knobs) ----
  let roster = null;
  async function loadRoster() {
    roster = await getJSON('/panel/api/roster');
    return roster;
  }

  // ---- live ----
  const turnsBox = $('#turns');
  const seen = new Set();
  function attemptRow(a) {
    const fail = [a.class, a.status || '', a.code].filter(Boolean).join('/');
    return el('tr', { class: 'attempt' },
      el('td', { class: 'mono', text: a.attempt ? a.provider + '#' + a.attempt : a.provider }),
      el('td', { class: 'outcome-' + a.outcome, text: a.outcome }),
      el('td', { text: fail }),
      el('td', { text: ms(a.wait_ns) }),
      el('td', { text: ms(a.latency_ns) }),
      el('td', { text: ms(a.first_token_ns) }));
  }
  function turnNode(t) {
    const tokens = t.input_tokens !== undefined || t.output_tokens !== undefined
      ? (t.input_tokens || 0) + '→' + (t.output_tokens || 0) + ' tok' : '';
    const attempts = t.attempts || [];
    return el('article', { class: 'turn', 'data-turn-id': t.id, 'data-outcome': t.outcome },
      el('div', { class: 'turn-head' },
        el('time', { class: 'muted', datetime: t.time, text: new Date(t.time).toLocaleTimeString() }),
        el('b', { class: 'turn-chain', text: t.chain }),
        el('span', { class: 'muted', text: 'from ' + t.source }),
        el('span', { class: 'turn-provider', text: t.provider ? t.provider + (t.model ? ' (' + t.model + ')' : '') : '-' }),
        el('span', { class: 'turn-outcome outcome-' + t.outcome, text: t.outcome + (t.class ? ' ' + t.class : '') }),
        el('span', { class: 'turn-latency', text: fmtMS(t.elapsed_ms) + (t.first_token_ms ? ', first token ' + fmtMS(t.first_token_ms) : '') }),
        tokens && el('span', { class: 'muted', text: tokens })),
      t.route && el('div', { class: 'turn-route mono', text: t.route }),
      attempts.length > 0 && el('table', {},
        el('thead', {}, el('tr', {}, ...['attempt', 'outcome', 'class/status/code', 'wait', 'latency', 'first token'].map((h) => el('th', { text: h })))),
        el('tbody', {}, ...attempts.map(attemptRow))),
      el('div', { class: 'turn-trail mono', text: t.trail }));
  }
  function addTurn(t, fresh) {
    if (seen.has(t.id)) return;
    seen.add(t.id);
    if (!turnsBox.querySelector('.turn')) clear(turnsBox);
    const n = turnNode(t);
    if (fresh) n.classList.add('fresh');
    // Newest first; ids increase.
    let before = null;
    for (const c of turnsBox.children) if (Number(c.dataset.turnId) < t.id) { before = c; break; }
    turnsBox.insertBefore(n, before);
    while (turnsBox.children.length > 50) {
      const last = turnsBox.lastElementChild;
      seen.delete(Number(last.dataset.turnId));
      last.remove();
    }
  }
  const facesBox = $('#faces');
  function faceNode(f) {
    const fig = el('figure', { 'data-face': f.display },
      el('img', { class: 'face', 'data-display': f.display, alt: f.display + ': ' + f.expression, width: f.width || null, height: f.height || null,
        src: '/panel/api/faces/' + encodeURIComponent(f.display) + '.png?v=' + Date.parse(f.updated || 0) + '-' + Math.random().toString(36).slice(2) }),
      el('figcaption', { text: f.display + ': ' + f.expression + (f.text ? ' — ' + f.text : '') }));
    return fig;
  }
  function setFace(f) {
    if (!facesBox.querySelector('figure')) clear(facesBox);
    const n = faceNode(f);
    const old = [...facesBox.children].find((c) => c.dataset.face === f.display);
    if (old) old.replaceWith(n); else facesBox.append(n);
  }
  async function loadLive() {
    try {
      const [t, f] = await Promise.all([getJSON('/panel/api/turns'), getJSON('/panel/api/faces')]);
      for (const turn of t.turns) addTurn(turn, false);
      for (const face of f.faces) setFace(face);
    } catch (e) { $('#lost').textContent = 'could not load: ' + e.message; }
  }
  let events = null;
  function watch() {
    const status = $('#live-status');
    events = new EventSource('/panel/api/events');
    let broken = false;
    events.addEventListener('open', () => {
      status.textContent = 'live'; status.classList.add('on');
      if (broken) loadLive(); // fill what was missed while away
    });
    events.addEventListener('error', () => { broken = true; status.textContent = 'reconnecting'; status.classList.remove('on'); });
    events.addEventListener('turn', (e) => addTurn(JSON.parse(e.data), true));
    events.addEventListener('face', (e) => setFace(JSON.parse(e.data)));
    events.addEventListener('lost', (e) => { $('#lost').textContent = '(' + JSON.parse(e.data).lost + ' updates dropped)'; });
  }

  // ---- roster page ----
  function cell(text, cls) { return el('td', { text: text === undefined || text === null ? '' : String(text), class: cls }); }
  function renderRoster(r) {
    $('#roster-config').textContent = 'configuration: ' + r.config + (r.editable ? '' : ' (read-only)') + ' · billing ' + (r.billing ? 'enabled' : 'off');
    clear($('#roster-providers tbody'), ...r.providers.map((p) => {
      const budget = p.budget_usd_per_month !== undefined ? usd(p.budget_usd_per_month) + '/month' : 'none';
      const spent = p.spend_usd_month !== undefined ? usd(p.spend_usd_month) : 'unknown';
      return el('tr', { 'data-provider': p.name },
        cell(p.name, 'mono'), cell(p.tier || '-'), cell((p.good_at || []).join(', ')),
        cell(p.enabled === undefined ? 'unset' : String(p.enabled)), cell(p.gate || 'routable', p.gate ? 'outcome-refused' : ''),
        cell(budget + ' / ' + spent), cell(p.plugin, 'mono'), cell(p.model, 'mono'), cell(p.sandbox, 'mono layers'),
        cell(p.state, p.state === 'running' ? 'outcome-ok' : p.state === 'failed' ? 'outcome-error' : ''),
        cell(p.last_error || '', p.last_error ? 'outcome-error' : ''), cell(p.credential || '', 'mono'));
    }));
    clear($('#roster-chains tbody'), ...r.chains.map((c) => el('tr', { 'data-chain': c.name },
      cell(c.name, 'mono'), cell(c.providers.join(' → ')), cell(c.strategy),
      cell(c.classifier ? c.classifier + (c.classifier_timeout ? ' (' + c.classifier_timeout + ')' : '') : 'off'))));
    clear($('#roster-displays tbody'), ...r.displays.map((d) => el('tr', { 'data-display': d.name },
      cell(d.name, 'mono'), cell(d.plugin, 'mono'), cell(d.sandbox, 'mono layers'), cell(d.state))));
  }
  loaders.roster = () => loadRoster().then(renderRoster).catch((e) => { $('#roster-config').textContent = e.message; });

  // ---- stats ----
  // by=day does not split by provider, so the per-provider days come
  // from one by=provider (or tier) report per day: the report since each
  // day's midnight, less the one since the next day's.
  const dayKey = (d) => d.getFullYear() + '-' + String(d.getMonth() + 1).padStart(2, '0') + '-' + String(d.getDate()).padStart(2, '0');
  function lastDays(n) {
    const out = [];
    const d = new Date();
    d.setHours(12, 0, 0, 0);
    for (let i = n - 1; i >= 0; i--) { const x = new Date(d); x.setDate(d.getDate() - i); out.push(dayKey(x)); }
    return out;
  }
  const tokensOf = (r) => (r.input_tokens || 0) + (r.output_tokens || 0);
  const metrics = [
    { id: 'requests', title: 'Requests per day', get: (r) => r.requests, fmt: num },
    { id: 'tokens', title: 'Tokens per day (input + output)', get: tokensOf, fmt: num },
    { id: 'spend', title: 'Spend per day (USD)', get: (r) => r.spend_usd || 0, fmt: usd },
    { id: 'avoided', title: 'Cost avoided per day (USD, against the paid price)', get: (r) => r.avoided_usd || 0, fmt: usd },
  ];
  async function loadStats() {
    const n = Number($('#stats-days').value), by = $('#stats-by').value;
    const days = lastDays(n), status = $('#stats-status'), box = $('#stats-charts');
    status.textContent = 'loading…';
    try {
      const q = (since, b) => getJSON('/panel/api/stats?since=' + encodeURIComponent(since) + '&by=' + b);
      const [daily, win, ...cums] = await Promise.all([q(days[0], 'day'), q(days[0], by), ...days.map((d) => q(d, by))]);
      const keys = win.rows.map((r) => r.key);
      const cumRow = (i, k) => (i < cums.length ? cums[i].rows.find((r) => r.key === k) : null);
      const charts = metrics.map((m) => {
        const series = keys.map((k) => ({
          name: k,
          values: days.map((_, i) => {
            const a = cumRow(i, k), b = cumRow(i + 1, k);
            return Math.max(0, (a ? m.get(a) : 0) - (b ? m.get(b) : 0)); // a turn between the queries may skew a day a little
          }),
        }));
        return chartFigure(m.id, m.title + ' by ' + by, stacked(days, series, m.fmt), keys);
      });
      const byDay = (get) => days.map((d) => { const r = daily.rows.find((x) => x.key === d); return r ? get(r) : null; });
      charts.push(chartFigure('latency', 'First-token latency p50 per day', line(days, byDay((r) => (r.p50_first_token_ms === undefined ? null : r.p50_first_token_ms)), fmtMS)));
      charts.push(chartFigure('latency-by', 'First-token latency p50 by ' + by + ' (window, streamed turns)', bars(keys, win.rows.map((r) => (r.p50_first_token_ms === undefined ? null : r.p50_first_token_ms)), fmtMS), keys));
      charts.push(chartFigure('errors', 'Error share per day', line(days, byDay((r) => (r.requests ? r.error_share : null)), pct)));
      charts.push(chartFigure('errors-by', 'Error share by ' + by + ' (window)', bars(keys, win.rows.map((r) => r.error_share), pct), keys));
      clear(box, ...charts, totalsTable(win, by));
      const t = win.total;
      status.textContent = t.requests + ' requests since ' + days[0] + (t.unpriced ? ', ' + t.unpriced + ' unpriced' : '') + (t.unreported ? ', ' + t.unreported + ' without token counts' : '');
    } catch (e) {
      clear(box);
      status.textContent = 'no stats: ' + e.message;
    }
  }
  loaders.stats = loadStats;
  $('#stats-form').addEventListener('submit', (e) => { e.preventDefault(); loadStats(); });

  function totalsTable(rep, by) {
    const cols = [[by, (r) => r.key], ['requests', (r) => r.requests], ['errors', (r) => r.errors],
      ['tokens in/out', (r) => num(r.input_tokens || 0) + ' / ' + num(r.output_tokens || 0)],
      ['spend', (r) => (r.spend_usd === undefined ? '-' : usd(r.spend_usd))], ['avoided', (r) => (r.avoided_usd === undefined ? '-' : usd(r.avoided_usd))],
      ['p50 first token', (r) => (r.p50_first_token_ms === undefined ? '-' : fmtMS(r.p50_first_token_ms))]];
    return el('figure', { class: 'chart', 'data-chart': 'totals' }, el('figcaption', { text: 'Window totals by ' + by }),
      el('table', {}, el('thead', {}, el('tr', {}, ...cols.map((c) => el('th', { text: c[0] })))),
        el('tbody', {}, ...[...rep.rows, rep.total].map((r) => el('tr', { 'data-key': r.key }, ...cols.map((c) => cell(c[1](r))))))));
  }
  function chartFigure(id, title, plot, legend) {
    return el('figure', { class: 'chart', 'data-chart': id }, el('figcaption', { text: title }), plot,
      legend && legend.length > 0 && el('ul', { class: 'legend' }, ...legend.map((k, i) => el('li', {}, el('span', { class: 'sw s' + (i % 8) }), k))));
  }

  // Plots: a 360×180 view box, the value axis on the left.
  const W = 360, H = 180, L = 44, B = 22, T = 8;
  function niceMax(v) {
    if (!(v > 0)) return 1;
    const p = Math.pow(10, Math.floor(Math.log10(v)));
    for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
    return 10 * p;
  }
  function frame(max, fmt, labels) {
    const g = [svg('line', { class: 'axis', x1: L, y1: H - B, x2: W, y2: H - B })];
    for (let i = 0; i <= 4; i++) {
      const y = H - B - (H - B - T) * i / 4;
      g.push(svg('line', { class: 'axis', x1: L, y1: y, x2: W, y2: y, 'stroke-dasharray': i ? '2 3' : null }));
      g.push(svg('text', { x: L - 4, y: y + 3, 'text-anchor': 'end', text: fmt(max * i / 4) }));
    }
    const step = Math.max(1, Math.ceil(labels.length / 7));
    labels.forEach((d, i) => {
      if (i % step) return;
      g.push(svg('text', { x: L + (W - L) * (i + 0.5) / labels.length, y: H - 6, 'text-anchor': 'middle', text: d.length === 10 ? d.slice(5) : d.slice(0, 10) }));
    });
    return g;
  }
  const yOf = (v, max) => H - B - (H - B - T) * v / max;
  function stacked(days, series, fmt) {
    const sums = days.map((_, i) => series.reduce((s, x) => s + x.values[i], 0));
    const max = niceMax(Math.max(0, ...sums));
    const bw = (W - L) / days.length;
    const root = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img' }, ...frame(max, fmt, days));
    days.forEach((d, i) => {
      let base = 0;
      series.forEach((s, j) => {
        const v = s.values[i];
        if (!v) return;
        const y0 = yOf(base, max), y1 = yOf(base + v, max);
        root.append(svg('rect', { class: 's' + (j % 8), x: L + i * bw + bw * 0.15, y: y1, width: bw * 0.7, height: Math.max(0.5, y0 - y1) },
          svg('title', { text: d + ' ' + s.name + ': ' + fmt(v) })));
        base += v;
      });
    });
    return root;
  }
  function line(days, values, fmt) {
    const max = niceMax(Math.max(0, ...values.filter((v) => v !== null)));
    const root = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img' }, ...frame(max, fmt, days));
    let d = '', pen = 'M';
    values.forEach((v, i) => {
      if (v === null) { pen = 'M'; return; }
      const x = L + (W - L) * (i + 0.5) / days.length, y = yOf(v, max);
      d += pen + x.toFixed(1) + ' ' + y.toFixed(1) + ' ';
      pen = 'L';
      root.append(svg('circle', { class: 'dot', cx: x, cy: y, r: 2.5 }, svg('title', { text: days[i] + ': ' + fmt(v) })));
    });
    if (d) root.prepend(svg('path', { class: 'line', d }));
    return root;
  }
  // bars draws one bar per key; a null value (nothing measured, e.g. no
  // streamed turn for a first-token time) draws no bar, only its title.
  function bars(keys, values, fmt) {
    const max = niceMax(Math.max(0, ...values.filter((v) => v !== null)));
    const bw = (W - L) / Math.max(1, keys.length);
    const root = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img' }, ...frame(max, fmt, keys));
    keys.forEach((k, i) => {
      if (values[i] === null) {
        root.append(svg('text', { x: L + i * bw + bw / 2, y: H - B - 4, 'text-anchor': 'middle', text: 'none' }, svg('title', { text: k + ': not measured' })));
        return;
      }
      const y = yOf(values[i], max);
      root.append(svg('rect', { class: 's' + (i % 8), x: L + i * bw + bw * 0.2, y, width: bw * 0.6, height: Math.max(0.5, H - B - y) },
        svg('title', { text: k + ': ' + fmt(values[i]) })));
    });
    return root;
  }

  // ---- try it ----
  loaders.try = async () => {
    const sel = $('#try-chain');
    if (sel.options.length) return;
    try {
      const r = roster || await loadRoster();
      for (const c of r.chains) {
        sel.append(el('option', { value: c.name, text: c.name }));
        for (const p of c.providers) sel.append(el('option', { value: c.name + '/' + p, text: '  ' + c.name + '/' + p + ' (pinned)' }));
      }
    } catch (e) { $('#try-status').textContent = e.message; }
  };
  let tryAbort = null;
  $('#try-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const send = $('#try-send'), status = $('#try-status'), answer = $('#try-answer'), trail = $('#try-trail');
    if (tryAbort) { tryAbort.abort(); return; }
    answer.textContent = ''; trail.textContent = ''; status.textContent = 'asking…';
    tryAbort = new AbortController();
    send.textContent = 'Stop';
    try {
      const r = await fetch('/panel/api/try', {
        method: 'POST', signal: tryAbort.signal,
        headers: { 'Content-Type': 'application/json', 'X-Axon-CSRF': csrf },
        body: JSON.stringify({ chain: $('#try-chain').value, prompt: $('#try-prompt').value }),
      });
      if (!r.ok) {
        const body = await r.json().catch(() => ({}));
        throw new Error((body.error && body.error.message) || r.status + ' ' + r.statusText);
      }
      await readSSE(r.body, (ev, data) => {
        if (ev === 'delta') answer.append(data.text);
        else if (ev === 'done') { trail.textContent = data.trail; status.textContent = 'answered by ' + (data.provider || '?') + (data.model ? ' (' + data.model + ')' : ''); }
        else if (ev === 'error') { trail.textContent = data.trail; status.textContent = 'failed: ' + data.message; }
      });
    } catch (err) {
      status.textContent = err.name === 'AbortError' ? 'stopped' : 'failed: ' + err.message;
    } finally {
      tryAbort = null;
      send.textContent = 'Send';
    }
  });
  // readSSE calls on(event, data) for each event of a fetch body.
  async function readSSE(body, on) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += value;
      let cut;
      while ((cut = buf.indexOf('\n\n')) >= 0) {
        const frame = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        let ev = 'message', data = '';
        for (const ln of frame.split('\n')) {
          if (ln.startsWith('event: ')) ev = ln.slice(7);
          else if (ln.startsWith('data: ')) data += ln.slice(6);
        }
        if (data) on(ev, JSON.parse(data));
      }
    }
  }

  // ---- knobs ----
  // Each knob is an input with data-knob; initial holds the JSON it had,
  // and saving sends the knobs whose JSON changed.
  let initial = {};
  let config = null;
  const knobValue = {
    enabled: (e) => (e.type === 'checkbox' ? e.checked : e.value === '' ? null : e.value === 'true'),
    tier: (e) => e.value || null,
    good_at: (e) => { const v = e.value.split(',').map((s) => s.trim()).filter(Boolean); return v.length ? v : null; },
    number: (e) => (e.value.trim() === '' ? null : Number(e.value)),
    providers: (e) => [...e.querySelectorAll('li')].map((li) => li.dataset.provider),
    strategy: (e) => e.value,
    classifier: (e) => e.value || null,
  };
  function kind(field) { return field.startsWith('pricing.') || field === 'budget' ? 'number' : field; }
  function parseKnob(k) {
    if (k === 'billing.enabled') return { block: 'billing', name: '', field: 'enabled' };
    const block = k.slice(0, k.indexOf('.'));
    const fields = block === 'chain' ? ['providers', 'strategy', 'classifier'] : ['enabled', 'tier', 'good_at', 'budget', 'pricing.input', 'pricing.output', 'pricing.cache_read', 'pricing.cache_write'];
    const field = fields.find((f) => k.endsWith('.' + f));
    return { block, name: k.slice(block.length + 1, k.length - field.length - 1), field };
  }
  const valueOf = (e) => knobValue[kind(parseKnob(e.dataset.knob).field)](e);
  const diag = (knob) => el('span', { class: 'diag', 'data-for': knob });
  function select(knob, options, value) {
    return el('select', { 'data-knob': knob }, ...options.map(([v, label]) => el('option', { value: v, text: label, selected: v === value })));
  }
  function numberKnob(knob, v) {
    return el('td', {}, el('input', { type: 'number', min: 0, step: 'any', 'data-knob': knob, value: v === undefined || v === null ? '' : v }), diag(knob));
  }
  function orderList(c) {
    const knob = 'chain.' + c.name + '.providers';
    const ol = el('ol', { class: 'order', 'data-knob': knob });
    const move = (li, dir) => {
      const to = dir < 0 ? li.previousElementSibling : li.nextElementSibling;
      if (!to) return;
      if (dir < 0) ol.insertBefore(li, to); else ol.insertBefore(to, li);
    };
    for (const p of c.providers) {
      const li = el('li', { 'data-provider': p }, el('span', { class: 'mono', text: p }));
      li.append(el('button', { type: 'button', 'data-move': 'up', title: 'earlier', text: '↑', onclick: () => move(li, -1) }),
        el('button', { type: 'button', 'data-move': 'down', title: 'later', text: '↓', onclick: () => move(li, 1) }));
      ol.append(li);
    }
    return ol;
  }
  function renderKnobs(cfg) {
    config = cfg;
    const ro = $('#knobs-readonly');
    ro.hidden = cfg.editable;
    ro.textContent = cfg.reason || '';
    $('#knobs-config').textContent = 'configuration: ' + cfg.config;
    $('[data-knob="billing.enabled"]').checked = cfg.billing;
    clear($('#knobs-providers tbody'), ...cfg.providers.map((p) => {
      const k = (f) => 'provider.' + p.name + '.' + f;
      const pr = p.pricing || {};
      return el('tr', { 'data-knob-provider': p.name },
        cell(p.name, 'mono'),
        el('td', {}, select(k('enabled'), [['', 'unset'], ['true', 'true'], ['false', 'false']], p.enabled === null || p.enabled === undefined ? '' : String(p.enabled)), diag(k('enabled'))),
        el('td', {}, select(k('tier'), [['', 'unset'], ...cfg.tiers.map((t) => [t, t])], p.tier || ''), diag(k('tier'))),
        el('td', {}, el('input', { class: 'wide', 'data-knob': k('good_at'), value: p.good_at.join(', '), placeholder: 'code, chat' }), diag(k('good_at'))),
        numberKnob(k('budget'), p.budget),
        numberKnob(k('pricing.input'), pr.input), numberKnob(k('pricing.output'), pr.output),
        numberKnob(k('pricing.cache_read'), pr.cache_read), numberKnob(k('pricing.cache_write'), pr.cache_write));
    }));
    const names = cfg.providers.map((p) => [p.name, p.name]);
    clear($('#knobs-chains'), ...cfg.chains.map((c) => {
      const k = (f) => 'chain.' + c.name + '.' + f;
      return el('div', { class: 'chain-knobs', 'data-knob-chain': c.name },
        el('b', { class: 'mono', text: c.name }),
        el('div', {}, 'order', orderList(c), diag(k('providers'))),
        el('div', { class: 'row' },
          el('label', {}, 'strategy ', select(k('strategy'), cfg.strategies.map((s) => [s, s]), c.strategy || 'ordered')), diag(k('strategy')),
          el('label', {}, 'classifier ', select(k('classifier'), [['', 'off'], ...names], c.classifier || '')), diag(k('classifier'))));
    }));
    initial = {};
    for (const e of document.querySelectorAll('[data-knob]')) {
      initial[e.dataset.knob] = JSON.stringify(valueOf(e));
      if (e.tagName === 'OL') for (const b of e.querySelectorAll('button')) b.disabled = !cfg.editable;
      else e.disabled = !cfg.editable;
    }
    $('#knobs-save').disabled = !cfg.editable;
    showDiags([]);
  }
  function showDiags(list, message) {
    for (const d of document.querySelectorAll('#page-knobs .diag')) d.textContent = '';
    const spots = [...document.querySelectorAll('#page-knobs .diag')];
    for (const d of list) {
      const spot = spots.find((s) => s.dataset.for === d.knob) || spots.find((s) => s.dataset.for === '');
      spot.textContent = (spot.textContent ? spot.textContent + '; ' : '') + d.summary + (d.detail ? ': ' + d.detail : '') + (spot.dataset.for !== d.knob && d.knob ? ' (' + d.knob + ')' : '');
    }
    if (message) spots.find((s) => s.dataset.for === '').textContent = message;
  }
  loaders.knobs = () => getJSON('/panel/api/config').then(renderKnobs).catch((e) => showDiags([], e.message));
  $('#knobs-save').addEventListener('click', async () => {
    const result = $('#knobs-result');
    const edits = [];
    for (const e of document.querySelectorAll('[data-knob]')) {
      const v = valueOf(e);
      if (JSON.stringify(v) !== initial[e.dataset.knob]) edits.push({ ...parseKnob(e.dataset.knob), value: v });
    }
    if (!edits.length) { result.textContent = 'Nothing changed.'; return; }
    result.textContent = 'saving…';
    const r = await post('/panel/api/config', { edits });
    const body = await r.json().catch(() => ({}));
    if (!r.ok) {
      result.textContent = '';
      showDiags(body.diagnostics || [], body.diagnostics ? '' : (body.error && body.error.message) || String(r.status));
      return;
    }
    const rl = body.reload || {};
    const line = (label, xs) => (xs && xs.length ? label + ': ' + xs.join(', ') + '\n' : '');
    result.textContent = 'Written ' + body.path + (body.backup ? ' (backup ' + body.backup + ')' : '') + ' and reloaded.\n' +
      line('started', rl.started) + line('stopped', rl.stopped) + line('kept', rl.kept) + line('pending until restart', rl.pending);
    roster = null;
    await getJSON('/panel/api/config').then(renderKnobs).catch(() => {});
    loadRoster().then(renderRoster).catch(() => {});
  });

  // ---- start ----
  loadLive();
  watch();
  show(location.hash.slice(1));
})();
