// Request timeline page: selection, keyboard moves between items, and messages to the extension
// (open an item, set a clock's offset, copy, export). Text from the data goes in with
// textContent only; nothing here builds HTML from strings. A calls lane comes without its items:
// when it scrolls into view or is focused the page asks for them (laneItems) and the extension
// answers with the lane's items and their SVG markup, escaped there as the eager page's was,
// parsed here as SVG (inert: the CSP runs only this script) and moved into the lane's track.
(function () {
  const vscode = acquireVsCodeApi();
  const model = JSON.parse(document.body.getAttribute('data-hoplens') || '{}');
  const items = new Map();
  for (const lane of model.lanes || []) for (const it of lane.items) items.set(it.id, it);
  const detail = document.getElementById('detail');

  function el(tag, cls, txt) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (txt !== undefined) e.textContent = txt;
    return e;
  }

  function button(label, type, id) {
    const b = el('button', '', label);
    b.addEventListener('click', () => vscode.postMessage({ type, item: id }));
    return b;
  }

  function select(id) {
    const it = items.get(id);
    if (!it || !detail) return;
    document.querySelectorAll('.item.selected').forEach((n) => n.classList.remove('selected'));
    const node = document.querySelector('.track [data-item="' + CSS.escape(id) + '"]');
    if (node) node.classList.add('selected');
    detail.replaceChildren(el('h2', '', 'Selected'));
    detail.appendChild(el('p', '', (it.hop ? it.hop + ' ' : '') + it.label));
    const dl = el('dl');
    const add = (k, v) => { if (v === null || v === undefined) return; dl.appendChild(el('dt', '', k)); dl.appendChild(el('dd', '', String(v))); };
    add('time', it.when);
    add('its clock read', it.stamp);
    add(it.opens === 'call-definition' ? 'defined at' : 'at', it.where);
    add(it.opens === 'call-definition' ? 'called from' : 'printed by', it.source);
    for (const [k, v] of it.facts) add(k, v);
    detail.appendChild(dl);
    const nav = el('nav');
    if (it.opens === 'log-line') nav.appendChild(button('Open Log Line', 'open', id));
    if (it.opens === 'log-line' && it.source) nav.appendChild(button('Open Source', 'openSource', id));
    if (it.opens === 'call-definition') nav.appendChild(button('Open Definition', 'open', id));
    if (it.opens === 'call-definition' && it.source) nav.appendChild(button('Open Call Site', 'openCallSite', id));
    if (nav.childNodes.length) detail.appendChild(nav);
    vscode.setState({ selected: id });
  }

  function open(id) {
    select(id);
    const it = items.get(id);
    if (it && it.opens) vscode.postMessage({ type: 'open', item: id });
  }

  // Roving focus: one item per lane is in the tab order; arrows move within and across lanes.
  function focusItem(node) {
    const track = node.closest('.track');
    if (track) track.querySelectorAll('[data-item]').forEach((n) => n.setAttribute('tabindex', '-1'));
    node.setAttribute('tabindex', '0');
    node.focus();
    select(node.getAttribute('data-item'));
  }

  function nearestIn(track, start) {
    let best = null, bestD = Infinity;
    track.querySelectorAll('[data-item]').forEach((n) => {
      const it = items.get(n.getAttribute('data-item'));
      const d = it ? Math.abs(it.start - start) : Infinity;
      if (d < bestD) { best = n; bestD = d; }
    });
    return best;
  }

  document.addEventListener('keydown', (e) => {
    const node = e.target instanceof Element ? e.target.closest('.track [data-item]') : null;
    if (!node) return;
    const track = node.closest('.track');
    const list = Array.from(track.querySelectorAll('[data-item]'));
    const i = list.indexOf(node);
    const tracks = Array.from(document.querySelectorAll('.track')).filter((t) => t.querySelector('[data-item]'));
    const ti = tracks.indexOf(track);
    const here = items.get(node.getAttribute('data-item'));
    let next = null;
    switch (e.key) {
      case 'ArrowRight': next = list[i + 1]; break;
      case 'ArrowLeft': next = list[i - 1]; break;
      case 'Home': next = list[0]; break;
      case 'End': next = list[list.length - 1]; break;
      case 'ArrowDown': if (tracks[ti + 1]) next = nearestIn(tracks[ti + 1], here ? here.start : 0); break;
      case 'ArrowUp': if (tracks[ti - 1]) next = nearestIn(tracks[ti - 1], here ? here.start : 0); break;
      case 'Enter': case ' ': e.preventDefault(); open(node.getAttribute('data-item')); return;
      default: return;
    }
    e.preventDefault();
    if (next) focusItem(next);
  });

  document.addEventListener('focusin', (e) => {
    const node = e.target instanceof Element ? e.target.closest('.track [data-item]') : null;
    if (node) select(node.getAttribute('data-item'));
  });

  document.addEventListener('click', (e) => {
    const t = e.target instanceof Element ? e.target : null;
    if (!t) return;
    const action = t.closest('[data-action]');
    if (action) { vscode.postMessage({ type: action.getAttribute('data-action') }); return; }
    const set = t.closest('[data-set-offset]');
    if (set) {
      const clock = set.getAttribute('data-set-offset');
      const input = document.querySelector('input[data-clock="' + CSS.escape(clock) + '"]');
      const ms = input ? Number(input.value) : NaN;
      if (Number.isFinite(ms)) vscode.postMessage({ type: 'setOffset', clock, ms });
      return;
    }
    const reset = t.closest('[data-reset-offset]');
    if (reset) { vscode.postMessage({ type: 'resetOffset', clock: reset.getAttribute('data-reset-offset') }); return; }
    const item = t.closest('[data-item]');
    if (item) { e.preventDefault(); open(item.getAttribute('data-item')); }
  });

  document.addEventListener('keydown', (e) => {
    const input = e.target instanceof HTMLInputElement && e.target.hasAttribute('data-clock') ? e.target : null;
    if (!input || e.key !== 'Enter') return;
    const ms = Number(input.value);
    if (Number.isFinite(ms)) vscode.postMessage({ type: 'setOffset', clock: input.getAttribute('data-clock'), ms });
  });

  const pending = new Set();
  const SVG_NS = 'http://www.w3.org/2000/svg';

  function laneOf(id) {
    return Array.from(document.querySelectorAll('.lane[data-lane]')).find((n) => n.getAttribute('data-lane') === id) || null;
  }

  function want(track) {
    const lane = track.closest('.lane');
    const id = lane ? lane.getAttribute('data-lane') : null;
    if (id === null || !track.hasAttribute('data-lazy') || pending.has(id)) return;
    pending.add(id);
    vscode.postMessage({ type: 'laneItems', lane: id, page: model.page });
  }

  window.addEventListener('message', (e) => {
    const m = e.data;
    if (!m || m.type !== 'laneItems' || m.page !== model.page || !pending.has(m.lane)) return;
    pending.delete(m.lane);
    const lane = laneOf(m.lane);
    const track = lane ? lane.querySelector('.track[data-lazy]') : null;
    if (!track) return;
    const doc = new DOMParser().parseFromString('<svg xmlns="' + SVG_NS + '">' + m.markup + '</svg>', 'image/svg+xml');
    if (doc.getElementsByTagName('parsererror').length) return;
    for (const it of m.items) items.set(it.id, it);
    const hadFocus = document.activeElement === track;
    for (const n of Array.from(doc.documentElement.childNodes)) track.appendChild(document.importNode(n, true));
    track.removeAttribute('data-lazy');
    track.removeAttribute('tabindex');
    const first = track.querySelector('[data-item]');
    if (hadFocus && first) focusItem(first);
    const state = vscode.getState();
    if (!hadFocus && state && state.selected && track.querySelector('[data-item="' + CSS.escape(state.selected) + '"]')) select(state.selected);
  });

  const lazy = Array.from(document.querySelectorAll('.track[data-lazy]'));
  lazy.forEach((t) => t.addEventListener('focus', () => want(t)));
  if ('IntersectionObserver' in window) {
    const seen = new IntersectionObserver((entries) => {
      for (const e of entries) if (e.isIntersecting) { seen.unobserve(e.target); want(e.target); }
    }, { rootMargin: '200px 0px' });
    lazy.forEach((t) => seen.observe(t));
  } else lazy.forEach(want);

  const state = vscode.getState();
  if (state && state.selected && items.has(state.selected)) select(state.selected);
})();
