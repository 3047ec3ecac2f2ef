/* tablescore phone page. Plain JavaScript, no framework, no CDN: everything is served by the
   tablescore server so the page works offline on a LAN.

   Screens (hash routes): #/ home, #/new/<game>, #/s/<id> the game, #/s/<id>/camera,
   #/s/<id>/saw "what I saw", #/s/<id>/hand facts typed in.
   Nothing the user entered is lost on failure: drafts live in localStorage, the last result in
   sessionStorage, and failed requests leave the screen as it was with the error shown. */
'use strict';

const GAMES = JSON.parse(document.getElementById('games-data').textContent);
const G = Object.fromEntries(GAMES.map((g) => [g.id, g]));
const $app = document.getElementById('app');
const CAMERA = { maxSide: 1600, quality: 0.9 };  // JPEG sent to the server
const PAGE_LOADED_AT = Date.now();  // a photo sent before it was lost with a reload
let pageLeaving = false;  // a reload or a closed tab: a photo being read is lost, not refused
window.addEventListener('pagehide', () => { pageLeaving = true; });
window.addEventListener('pageshow', () => { pageLeaving = false; });  // (back from the cache)
const SESSION_POLL_MS = 8000;  // how often the game page looks for other phones' changes
const COLOURS = {
  yellow: '#f4c20d', orange: '#f27a1a', blue: '#1f6fe0', violet: '#8a3ffc', red: '#d62828',
  green: '#2a9d3a', black: '#222', white: '#ffffff', lightblue: '#6ec6ff', darkblue: '#1a237e',
  pink: '#ff6fb5', purple: '#7b2cbf', frog: '#2a9d3a', cat: '#555', back: '#8d6e63',
  north: '#6d4c41', east: '#00897b', south: '#5e35b1', west: '#c0ca33', middle: '#9e9e9e',
};

let activeStream = null;
let current = { sid: null, session: null, saw: null };

// ---------------------------------------------------------------------------------------
// helpers

function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const kid of kids.flat(Infinity)) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

/** Replace an element's children, skipping null/false entries (optional blocks). */
function show(el, ...kids) {
  el.replaceChildren(...kids.flat(Infinity).filter((k) => k !== null && k !== undefined && k !== false));
}

function svg(tag, attrs) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  return el;
}

class ApiError extends Error {
  constructor(message, status, code) { super(message); this.status = status; this.code = code; }
}

async function api(method, url, body) {
  const opts = { method, headers: {} };
  if (body instanceof FormData) opts.body = body;
  else if (body !== undefined) {
    opts.body = JSON.stringify(body);
    opts.headers['Content-Type'] = 'application/json';
  }
  let res;
  try {
    res = await fetch(url, opts);
  } catch (e) {
    throw new ApiError('No connection to the tablescore server. Nothing was lost: try again.', 0, 'network');
  }
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    const err = data && data.error;
    throw new ApiError(err ? err.message : `The server answered ${res.status}.`, res.status,
      err ? err.code : 'http');
  }
  return data;
}

let toastTimer = null;
/** An error toast belongs to the screen it was shown on: the next screen (or the next photo
 *  sent) hides it; a failed photo's "no arena found" stayed over the next photo's result. */
function hideErrorToast() {
  const t = document.getElementById('toast');
  if (!t.classList.contains('err')) return;
  t.hidden = true;
  clearTimeout(toastTimer);
}
function toast(message, isError) {
  const t = document.getElementById('toast');
  t.textContent = message;
  t.className = 'toast' + (isError ? ' err' : '');
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, isError ? 7000 : 3000);
}

// A tap hides the toast: an error stood 7 s over what was under it (the camera screen's
// "Type it in instead", the result's "Again" and "Correct by hand").
document.getElementById('toast').addEventListener('click', (ev) => {
  ev.currentTarget.hidden = true;
  clearTimeout(toastTimer);
});

function setTitle(text, backHref) {
  document.querySelector('#title a').textContent = text;
  const back = document.getElementById('back');
  back.hidden = !backHref;
  back.onclick = () => { location.hash = backHref; };
  document.title = text === 'tablescore' ? 'tablescore' : `${text} · tablescore`;
}

const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);
const dot = (c) => h('span', { class: 'dot', style: `background:${COLOURS[c] || '#ccc'}` });
function labelText(label) {
  return label.replace(/^rabbit-(white|yellow|orange|blue|violet)$/, '$1 rabbit')
    .replace(/^marble-/, '').replace(/^pawn-/, '').replace(/^card-/, 'card ')
    .replace(/-/g, ' ');
}
/** A few characters for the photo overlay (the sheet and the counts use labelText). */
function shortLabel(label) {
  let m = label.match(/^(hat|rabbit|elephant|tootophant|die)-(\d)$/);
  if (m) return ({ hat: 'H', rabbit: 'R', elephant: 'E', tootophant: 'T', die: '' })[m[1]] + m[2];
  m = label.match(/^(rabbit|marble|pawn)-(\w+)$/);
  if (m) return m[2];
  return label.replace(/^card-/, '');
}
function labelColour(label) {
  const parts = label.split('-');
  for (const p of parts.slice().reverse()) if (COLOURS[p]) return COLOURS[p];
  if (label.startsWith('hat')) return '#111';
  if (label.startsWith('rabbit')) return '#fafafa';
  if (label.startsWith('die')) return '#ffffff';
  if (label.startsWith('tootophant')) return '#f4c20d';
  if (label.startsWith('elephant')) return '#90a4ae';
  return '#00e5ff';
}
function playerName(session, colour) {
  const p = session && session.players.find((x) => x.colour === colour);
  return p ? p.name : cap(colour);
}
function busyButton(btn, fn) {
  return async (ev) => {
    if (btn.disabled) return;
    btn.disabled = true;
    try { await fn(ev); } catch (e) { toast(e.message, true); } finally { btn.disabled = false; }
  };
}
function store(kind, key, value) {
  const s = kind === 'local' ? localStorage : sessionStorage;
  try {  // read: the value or null; write: whether it was stored (false: over the quota)
    if (value === undefined) return JSON.parse(s.getItem(key) || 'null');
    if (value === null) s.removeItem(key); else s.setItem(key, JSON.stringify(value));
  } catch (e) { return value === undefined ? null : false; }
  return true;
}

// ---------------------------------------------------------------------------------------
// routing

function stopCamera() {
  if (activeStream) activeStream.getTracks().forEach((t) => t.stop());
  activeStream = null;
}

// Each route() counts up: a screen whose request answers after the user went on to another
// (a slow phone network) is dropped, not drawn over the newer screen.
let routeSeq = 0;
class LeftScreen extends Error {}

async function route() {
  const seq = ++routeSeq;
  hideErrorToast();
  stopCamera();
  closeSheet();
  clearInterval(route.timer);
  clearInterval(route.poll);
  // (the query after '?' is the screen's own: #/teach/<game>?back=<sid>; split with the path
  // it named no game, and the camera screen's teach link led to the start page)
  const parts = location.hash.split('?')[0].replace(/^#\/?/, '').split('/').filter(Boolean);
  window.scrollTo(0, 0);
  try {
    if (!parts.length) return await homePage();
    if (parts[0] === 'new' && G[parts[1]]) return newGamePage(parts[1]);
    if (parts[0] === 's' && parts[1]) {
      const sid = parts[1];
      if (!parts[2]) return await sessionPage(sid);
      if (parts[2] === 'camera') return await cameraPage(sid);
      if (parts[2] === 'saw') return await sawPage(sid);
      if (parts[2] === 'hand') return await handPage(sid);
    }
    if (parts[0] === 'teach' && G[parts[1]]) return await teachPage(parts[1]);
    location.hash = '#/';
  } catch (e) {
    if (e instanceof LeftScreen || seq !== routeSeq) return;  // (another screen is up)
    show($app, h('p', { class: 'error', text: e.message }),
      h('p', {}, h('a', { class: 'btn', href: '#/' }, 'Back to the start')));
  }
}
window.addEventListener('hashchange', route);
document.addEventListener('visibilitychange', () => {
  if (!document.hidden && /^#\/s\/[^/]+$/.test(location.hash)) route();
});
window.addEventListener('online', () => { document.getElementById('net').hidden = true; });
window.addEventListener('offline', () => { document.getElementById('net').hidden = false; });

async function loadSession(sid) {
  const seq = routeSeq;
  const s = await api('GET', `/api/sessions/${encodeURIComponent(sid)}`);
  if (seq !== routeSeq) throw new LeftScreen('left');  // the screen that asked is gone
  current.sid = sid;
  current.session = s;
  store('local', 'last-session', sid);
  return s;
}

// ---------------------------------------------------------------------------------------
// home and new game

async function homePage() {
  setTitle('tablescore');
  const list = h('div', {}, h('p', { class: 'muted', text: 'Loading your games…' }));
  show($app, 
    h('h2', { text: 'Start a game' }),
    h('div', { class: 'stack' }, GAMES.map((g) => h('a', {
      class: 'btn gamebtn', href: `#/new/${g.id}`, 'data-game': g.id,
    }, g.name))),
    h('h2', { text: 'Games in progress' }),
    list,
  );
  try {
    const { sessions } = await api('GET', '/api/sessions');
    show(list, sessions.length ? h('div', { class: 'stack' }, sessions.map((s) =>
      h('a', { class: 'btn', href: `#/s/${s.id}` },
        `${s.name}: ${s.players.join(', ')}`))) : h('p', { class: 'muted', text: 'None yet.' }));
  } catch (e) {
    show(list, h('p', { class: 'error', text: e.message }));
  }
}

function newGamePage(game) {
  const g = G[game];
  setTitle(g.name, '#/');
  const draftKey = `new:${game}`;
  const draft = store('local', draftKey) || {};
  const rows = [];
  const form = h('form', { class: 'card', id: 'new-game' });
  if (g.colours.length === 1 && g.colours[0] === '') {
    // Magic Rabbit: players are names only; their number sets the doves.
    const n = h('select', { name: 'count', id: 'player-count' },
      [1, 2, 3, 4].map((k) => h('option', { value: k, selected: (draft.count || 2) === k }, `${k} player${k > 1 ? 's' : ''}`)));
    form.append(h('label', { class: 'field' }, 'How many players?', n));
    rows.push(() => Array.from({ length: Number(n.value) }, (_, i) => ({ name: `Player ${i + 1}`, colour: '' })));
    form.addEventListener('input', () => store('local', draftKey, { count: Number(n.value), options: chosen() }));
  } else {
    const what = g.colours.includes('north') ? 'Where does each player sit?' : 'Who plays which colour?';
    form.append(h('p', { class: 'muted', text: `${what} Tick ${g.min_players} to ${g.max_players} players.` }));
    const picks = g.colours.map((c, i) => {
      const on = draft.players ? draft.players.some((p) => p.colour === c) : i < 2 || (g.colours.length === 4 && i < 3 && g.id === 'simsala-hopp');
      const prev = (draft.players || []).find((p) => p.colour === c);
      const box = h('input', { type: 'checkbox', checked: on, 'aria-label': `${c} plays`, style: 'width:28px;height:28px' });
      const name = h('input', { type: 'text', value: prev ? prev.name : '', placeholder: `${cap(c)} player's name`, maxlength: g.max_name_length, 'data-colour': c });
      form.append(h('label', { class: 'player' }, h('span', { class: 'chip' }, box, dot(c), cap(c)), name));
      return { c, box, name };
    });
    rows.push(() => picks.filter((p) => p.box.checked).map((p) => ({ name: p.name.value.trim(), colour: p.c })));
    // A name at the limit: the typing stopped without a word (the server keeps as many letters).
    const limit = h('p', { class: 'muted', id: 'name-limit', hidden: true }, `A name is kept to ${g.max_name_length} letters.`);
    const atLimit = () => { limit.hidden = !picks.some((p) => p.name.value.length >= g.max_name_length); };
    form.append(limit);
    atLimit();
    form.addEventListener('input', () => { atLimit(); store('local', draftKey, { players: rows[0](), options: chosen() }); });
  }
  // The settings (level, variant) are kept with the players: a reload or a failed start
  // used to put them back to the defaults.
  const settings = {};
  const chosen = () => Object.fromEntries(Object.entries(settings).map(([k, s]) => [k, s.value]));
  const kept = draft.options || {};
  for (const [name, spec] of Object.entries(g.settings)) {
    const want = spec.choices.map(String).includes(String(kept[name])) ? String(kept[name]) : String(spec.default);
    const sel = h('select', { name }, spec.choices.map((c) => h('option', { value: c, selected: String(c) === want }, c)));
    settings[name] = sel;
    form.append(h('label', { class: 'field' }, spec.label, sel));
  }
  const start = h('button', { class: 'primary', type: 'submit', id: 'start-game' }, 'Start the game');
  form.append(h('div', { class: 'stack' }, start));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    busyButton(start, async () => {
      const s = await api('POST', '/api/sessions', { game, players: rows[0](), options: chosen() });
      store('local', draftKey, null);
      location.hash = `#/s/${s.id}`;
    })();
  });
  show($app, h('h2', { text: `New ${g.name} game` }), form,
    h('p', { class: 'muted', text: g.photo_hint }));
}

// ---------------------------------------------------------------------------------------
// the game session

async function act(action) {
  const s = current.session;
  try {
    current.session = await api('POST', `/api/sessions/${s.id}/actions`, { ...action, version: s.version });
    return current.session;
  } catch (e) {
    if (e.status === 409) {
      // Another phone changed the game: draw it again, so that what it recorded shows before
      // this one is sent again (the screen stayed as it was while the message said "the page
      // reloaded it", and a second tap recorded the same round twice). What was typed here
      // is kept (drafts); the message is shown after the redraw began (route hides errors).
      try { await loadSession(s.id); route(); } catch (x) { if (!(x instanceof LeftScreen)) throw x; }
    }
    throw e;
  }
}

function photoButtons(sid, label) {
  const game = current.session && G[current.session.game];
  const readable = !game || game.photo;
  return h('div', { class: 'stack' },
    readable ? null : h('p', { class: 'muted' }, 'Reading this game from a photo is not ready yet in this build: type it in.'),
    h('a', { class: 'btn' + (readable ? ' primary' : ''), href: `#/s/${sid}/camera`, id: 'take-photo' }, `${label || 'Take the photo'}`),
    h('a', { class: 'btn' + (readable ? '' : ' primary'), href: `#/s/${sid}/hand`, id: 'type-in' }, 'Type it in'));
}

/** The session action a "what I saw" result feeds, or null when the game waits for
 *  something else (e.g. Lazy Spells). */
function actionFor(session) {
  const v = session.view;
  switch (session.game) {
    case 'simsala-hopp':
      if (v.phase === 'transform') return { type: 'turn', label: 'Simsala Stopp: use these tiles' };
      if (v.phase === 'decision_tap') return { type: 'tap', label: `Use this for ${playerName(session, v.current_tapper)}'s tap` };
      return null;
    case 'magic-rabbit': return { type: 'reveal', label: 'This is the reveal' };
    case 'hop-la-bille': return { type: 'check', label: 'Use this check' };
    case 'mauerhuepfer': return { type: 'check', label: 'Use this board' };
    case 'troetofanten': return { type: 'round', label: 'Record this round' };
    default: return null;
  }
}

async function sessionPage(sid) {
  const s = await loadSession(sid);
  setTitle(s.name, '#/');
  const panel = PANELS[s.game](s);
  const tools = h('details', {},
    h('summary', {}, 'More'),
    h('div', { class: 'stack' },
      h('button', { type: 'button', id: 'undo', disabled: !s.can_undo, onclick: (ev) => busyButton(ev.currentTarget, async () => { await act({ type: 'undo' }); route(); })(ev) }, '↶ Undo the last step'),
      h('button', { type: 'button', class: 'danger', onclick: (ev) => busyButton(ev.currentTarget, async () => {
        if (!confirm('Delete this game for everybody?')) return;
        await api('DELETE', `/api/sessions/${sid}`);
        location.hash = '#/';
      })(ev) }, 'Delete this game'),
      h('p', { class: 'muted' }, 'Other phones at this table can open the same game: ', h('code', {}, location.href))),
    h('h3', { text: 'What happened' }),
    h('ol', { class: 'log', reversed: true }, s.log.slice().reverse().map((l) => h('li', { text: l.text }))));
  show($app, h('div', { id: 'panel' }, panel), tools);
  // Another phone at the table may record the turn: look for changes now and then.
  route.poll = setInterval(async () => {
    if (document.hidden || document.getElementById('sheet').hidden === false) return;
    try {
      const fresh = await api('GET', `/api/sessions/${encodeURIComponent(sid)}`);
      if (fresh.version !== current.session.version && location.hash === `#/s/${sid}`) route();
    } catch (e) { /* offline for a moment: try again later */ }
  }, SESSION_POLL_MS);
}

const PANELS = {
  'simsala-hopp': (s) => {
    const v = s.view;
    const name = (c) => playerName(s, c);
    const out = [];
    const standings = h('table', { id: 'standings' },
      h('tr', {}, h('th', {}, 'Player'), h('th', { class: 'num' }, 'Bat'), h('th', { class: 'num' }, 'Cups')),
      v.standings.map((c) => h('tr', { 'data-colour': c },
        h('td', {}, dot(c), ' ', name(c), c === v.magician ? ' ✦' : ''),
        h('td', { class: 'num' }, v.bats[c]),
        h('td', { class: 'num' }, '★'.repeat(v.cups[c]) || '0'))));
    if (v.phase === 'finished') {
      out.push(h('div', { class: 'banner', id: 'winner' }, `★ ${name(v.winner)} wins the tournament!`));
    } else if (v.phase === 'decision_tap') {
      out.push(h('div', { class: 'banner' }, `Magic Decision Tap: ${v.contenders.map(name).join(', ')}`),
        h('p', {}, `${name(v.current_tapper)}: set up the arena (all frogs), tap exactly once, then take the photo.`),
        photoButtons(s.id, `Photo after ${name(v.current_tapper)}'s tap`),
        h('button', { type: 'button', class: 'danger', onclick: (ev) => busyButton(ev.currentTarget, async () => { await act({ type: 'tap', foul: true }); route(); })(ev) }, `${name(v.current_tapper)} tapped more than once`));
    } else {
      out.push(h('div', { class: 'card' },
        h('p', { class: 'muted' }, `Round ${v.round} · turn ${v.turn + 1} of ${v.players.length} · ${v.cups_to_win} cups win`),
        h('p', { class: 'big', id: 'magician' }, dot(v.magician), ` ${name(v.magician)} is the magician`)));
      if (!v.started) {
        out.push(h('div', { class: 'card' }, h('p', {}, 'Who is the youngest? They are the first magician.'),
          h('div', { class: 'row' }, v.players.map((c) => h('button', {
            type: 'button', class: 'small' + (c === v.youngest ? ' primary' : ''),
            onclick: (ev) => busyButton(ev.currentTarget, async () => { await act({ type: 'first-magician', colour: c }); route(); })(ev),
          }, dot(c), name(c))))));
      }
      if (v.phase === 'transform') {
        out.push(h('p', {}, 'Spectators: turn the hourglass and call “Simsala Hopp!”. When it runs out: “Simsala Stopp!”, slide touching tiles apart, then take the photo.'),
          photoButtons(s.id, 'Simsala Stopp: take the photo'));
      } else {
        const ts = v.turn_score;
        if (v.phase === 'lazy_spell') {
          const who = v.current_spectator;
          out.push(h('div', { class: 'card', id: 'lazy' },
            h('h3', {}, `Lazy Spell: ${name(who)}`),
            h('p', {}, `${name(who)} may turn one frog over. What did it show?`),
            h('div', { class: 'grid2' }, G['simsala-hopp'].labels.filter((l) => l !== 'frog').map((l) =>
              h('button', { type: 'button', class: 'small', onclick: (ev) => busyButton(ev.currentTarget, async () => { await act({ type: 'lazy_spell', player: who, result: l }); route(); })(ev) }, dot(l.split('-').pop()), labelText(l)))),
            h('div', { class: 'stack', style: 'margin-top:10px' },
              h('button', { type: 'button', id: 'pass', onclick: (ev) => busyButton(ev.currentTarget, async () => { await act({ type: 'pass', player: who }); route(); })(ev) }, `${name(who)} passes`))));
        } else if (v.phase === 'count') {
          out.push(h('div', { class: 'stack' }, h('button', {
            type: 'button', class: 'primary', id: 'count-points',
            onclick: (ev) => busyButton(ev.currentTarget, async () => { await act({ type: 'count_points' }); route(); })(ev),
          }, 'Count points: move the bats')));
        }
        out.push(turnScoreCard(s, ts));
      }
    }
    out.push(h('h3', { text: 'Standings' }), standings);
    return out;
  },

  'magic-rabbit': (s) => {
    const v = s.view;
    const clock = h('div', { class: 'huge', id: 'hourglass' }, '2:30');
    const startedAt = v.hourglass_remaining_s === null ? null : Date.now() / 1000 - (v.hourglass_duration_s - v.hourglass_remaining_s);
    const tick = () => {
      if (startedAt === null) { clock.textContent = fmtTime(v.hourglass_duration_s); return; }
      const left = Math.max(0, v.hourglass_duration_s - (Date.now() / 1000 - startedAt));
      clock.textContent = left > 0 ? fmtTime(left) : 'Time is up!';
      clock.className = 'huge' + (left > 0 ? '' : ' bad');
    };
    tick();
    route.timer = setInterval(tick, 250);
    const out = [h('div', { class: 'card' }, clock,
      h('div', { class: 'stack' }, h('button', { type: 'button', class: startedAt === null ? 'primary' : '', id: 'start-hourglass',
        onclick: (ev) => busyButton(ev.currentTarget, async () => { await act({ type: 'start-hourglass' }); route(); })(ev) },
      startedAt === null ? 'Turn the hourglass' : 'Turn it again')))];
    if (startedAt !== null || !v.reveal) {
      out.push(h('p', {}, 'When the sand has run out: lay each rabbit just below its hat, the magician tile at one end, and take the photo.'),
        photoButtons(s.id, 'Photo of the reveal'));
    }
    if (v.reveal) {
      const sc = v.reveal.score;
      out.push(h('div', { class: 'card', id: 'verdict' },
        h('p', { class: 'big ' + (sc.won ? 'good' : 'bad') }, sc.won ? 'You won!' : 'Not won this time'),
        h('ul', { class: 'explain' }, (sc.reasons || []).map((r) => h('li', { text: r }))),
        h('button', { type: 'button', onclick: (ev) => busyButton(ev.currentTarget, async () => { await act({ type: 'new-game' }); route(); })(ev) }, 'Play again')));
    }
    out.push(h('p', { class: 'muted' }, `Games played: ${v.played}, won: ${v.won}.`));
    return out;
  },

  'hop-la-bille': (s) => {
    const v = s.view;
    const out = [];
    if (v.winner) out.push(h('div', { class: 'banner', id: 'winner' }, `★ ${v.winner} has won!`));
    out.push(h('table', { id: 'standings' },
      h('tr', {}, h('th', {}, 'Player'), h('th', { class: 'num' }, 'Cards returned'), v.variant.startsWith('pile') ? h('th', { class: 'num' }, 'Marbles') : null),
      v.players.map((p) => h('tr', {}, h('td', {}, dot(p.colour), ` ${p.name} (${p.colour})`),
        h('td', { class: 'num' }, p.returned), v.variant.startsWith('pile') ? h('td', { class: 'num' }, p.marbles) : null))));
    out.push(photoButtons(s.id, 'Photo of the cloth'));
    const last = v.last;
    if (last) {
      const cards = [];
      for (const [zone, list] of Object.entries(last.facts.cards || {})) {
        list.forEach((card, i) => {
          const done = (last.score.completed[zone] || []).includes(i);
          cards.push(h('div', { class: 'row', style: 'justify-content:space-between;border-bottom:1px solid var(--line);padding:6px 0' },
            h('span', {}, dot(card.colour === 'back' ? 'back' : card.colour), ` ${playerName(s, zone)}: ${card.colour} card `, done ? h('b', { class: 'good' }, 'complete ✓') : h('span', { class: 'muted' }, card.colour === 'back' ? 'returned' : 'not yet')),
            done ? h('button', { type: 'button', class: 'small', onclick: (ev) => busyButton(ev.currentTarget, async () => { await act({ type: 'return', zone, index: i }); route(); })(ev) }, 'Return it') : null));
        });
      }
      out.push(h('div', { class: 'card', id: 'cards' }, h('h3', {}, 'Cards at the last check'), cards));
    }
    out.push(h('details', { class: 'card' }, h('summary', {}, 'A card was returned earlier'),
      h('div', { class: 'stack' }, s.players.map((p) => h('div', { class: 'row' }, `${p.name}:`,
        ['green', 'blue', 'red'].map((c) => h('button', { type: 'button', class: 'small', onclick: (ev) => busyButton(ev.currentTarget, async () => { await act({ type: 'return-card', zone: p.colour, colour: c }); route(); })(ev) }, dot(c), c)))))));
    return out;
  },

  mauerhuepfer: (s) => {
    const v = s.view;
    const out = [photoButtons(s.id, 'Photo of the board')];
    if (v.last) {
      const sc = v.last.score;
      out.push(h('div', { class: 'card', id: 'board-read' },
        h('p', { class: 'big' }, (v.last.facts.dice || []).length ? `Dice: ${v.last.facts.dice.join(' and ')}` : 'Dice: none seen'),
        sc.winner ? h('div', { class: 'banner', id: 'winner' }, `★ ${playerName(s, sc.winner)} has won!`) : null,
        h('table', {}, Object.entries(sc.home || {}).filter(([c]) => s.players.some((p) => p.colour === c)).map(([c, n]) => h('tr', {}, h('td', {}, dot(c), ' ', playerName(s, c)), h('td', { class: 'num' }, `${n} of 4 home`)))),
        movesBlock(s, v.last)));
    }
    return out;
  },

  troetofanten: (s) => {
    const v = s.view;
    const out = [];
    if (v.winner) out.push(h('div', { class: 'banner', id: 'winner' }, `★ ${v.winner} reached ${v.target}!`));
    out.push(h('table', { id: 'standings' },
      h('tr', {}, h('th', {}, 'Player'), v.rounds.map((_, i) => h('th', { class: 'num' }, `R${i + 1}`)), h('th', { class: 'num' }, 'Total')),
      s.players.map((p) => h('tr', {}, h('td', {}, `${p.name} (${p.colour})`),
        v.rounds.map((r) => h('td', { class: 'num' }, r.points[p.colour] ?? 0)),
        h('td', { class: 'num' }, h('b', {}, v.totals[p.colour]))))));
    out.push(h('p', { class: 'muted' }, `Play rounds until someone reaches ${v.target} points.`
      + (s.players.length > 4 ? ' With more than 4 players, enter the points by hand (a photo reads the 4 sides of the table).' : '')));
    out.push(photoButtons(s.id, 'Photo of everyone\'s cards'));
    // Typed points are kept on the phone until recorded: the page is drawn again when another
    // phone changes the game (and on a reload), which set them back to 0.
    const draftKey = `points:${s.id}`;
    const typed = store('local', draftKey) || {};
    const inputs = s.players.map((p) => h('input', { type: 'number', inputmode: 'numeric', value: typed[p.colour] ?? 0, 'data-side': p.colour,
      oninput: () => store('local', draftKey, Object.fromEntries(inputs.map((x) => [x.dataset.side, x.value]))) }));
    out.push(h('details', { class: 'card', open: Object.keys(typed).length > 0 }, h('summary', {}, 'Enter points by hand'),
      s.players.map((p, i) => h('label', { class: 'field' }, p.name, inputs[i])),
      h('button', { type: 'button', class: 'primary', id: 'record-round', onclick: (ev) => busyButton(ev.currentTarget, async () => {
        const points = Object.fromEntries(inputs.map((x) => [x.dataset.side, Math.round(Number(x.value) || 0)]));
        // kept first: a 409 draws the page again from the draft, which a second tab of this
        // browser cleared when it recorded its own round
        store('local', draftKey, Object.fromEntries(inputs.map((x) => [x.dataset.side, x.value])));
        await act({ type: 'round', points }); store('local', draftKey, null); route();
      })(ev) }, 'Record the round')));
    return out;
  },
};

function fmtTime(sec) {
  const s = Math.ceil(sec);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function turnScoreCard(s, ts) {
  if (!ts) return null;
  return h('div', { class: 'card', id: 'turn-score' },
    h('h3', {}, 'This turn'),
    ts.players.map((c) => h('div', { class: 'score-line', 'data-colour': c },
      h('span', {}, dot(c), ` ${playerName(s, c)}${c === ts.magician ? ' (magician)' : ''}`),
      h('b', {}, (ts.points[c] > 0 ? '+' : '') + ts.points[c]))),
    h('details', { open: true }, h('summary', {}, 'Referee: why?'),
      h('ul', { class: 'explain' }, (ts.explanation || []).map((l) => h('li', { text: l })))));
}

function movesBlock(s, last) {
  const box = h('div', { id: 'moves' });
  const verdict = h('div', { id: 'move-verdict' });
  const colour = h('select', { id: 'move-colour' }, s.players.map((p) => h('option', { value: p.colour }, `${p.name} (${p.colour})`)));
  const moveKey = `move:${s.id}`;  // (kept when the page is drawn again, as typed points)
  const kept = store('local', moveKey) || {};
  const keep = () => store('local', moveKey, { from: from.value, to: to.value });
  // (labelled, one under the other: "from: B or a field" as a placeholder was cut to
  // "from: B or a" side by side on a phone, and went away with the first letter typed)
  const from = h('input', { type: 'text', placeholder: 'B or a field', id: 'move-from', autocapitalize: 'characters', value: kept.from || '', oninput: keep });
  const to = h('input', { type: 'text', placeholder: 'a field or goal', id: 'move-to', value: kept.to || '', oninput: keep });
  const load = async () => {
    show(box, h('p', { class: 'muted', text: 'Working out the legal moves…' }));
    try {
      const res = await api('POST', '/api/mauerhuepfer/moves', { facts: last.facts, colour: colour.value });
      show(box, h('p', {}, res.moves.length ? `${res.moves.length} legal move(s):` : 'No legal move: the turn passes.'),
        h('ul', { class: 'explain' }, res.moves.slice(0, 40).map((m) => h('li', { text: m.text }))));
    } catch (e) {
      show(box, h('p', { class: 'error', text: e.message }));
    }
  };
  const check = async () => {
    if (!from.value.trim() || !to.value.trim()) {  // a referee's "Not allowed" for no move misleads
      show(verdict, h('p', { class: 'error', text: 'Say where the pawn moves from (B or a field) and to (a field or goal).' }));
      return;
    }
    try {
      const res = await api('POST', '/api/mauerhuepfer/check', { facts: last.facts, colour: colour.value, move: { from: from.value.trim(), to: to.value.trim() } });
      show(verdict, h('p', { class: 'big ' + (res.ok ? 'good' : 'bad') }, res.ok ? 'Allowed' : 'Not allowed'), h('p', { text: res.reason }));
    } catch (e) {
      show(verdict, h('p', { class: 'error', text: e.message }));
    }
  };
  colour.onchange = load;
  return h('div', {}, h('h3', {}, 'Legal moves'), h('label', { class: 'field' }, 'For', colour),
    h('button', { type: 'button', class: 'small', onclick: load }, 'Show the moves'), box,
    h('h3', {}, 'Check a move'), h('label', { class: 'field', for: 'move-from' }, 'From', from), h('label', { class: 'field', for: 'move-to' }, 'To', to),
    h('button', { type: 'button', class: 'small', onclick: check, style: 'margin-top:8px' }, 'Is this move allowed?'), verdict);
}

// ---------------------------------------------------------------------------------------
// camera

async function cameraPage(sid) {
  const s = await loadSession(sid);
  setTitle(`${s.name}: photo`, `#/s/${sid}`);
  const video = h('video', { playsinline: true, muted: true, autoplay: true, id: 'viewfinder' });
  video.muted = true;
  const view = h('div', { class: 'camera' }, video);
  const status = h('p', { class: 'muted', id: 'camera-status' }, G[s.game].photo_hint);
  const shutter = h('button', { type: 'button', class: 'shutter', id: 'shutter', 'aria-label': 'Take the photo', disabled: true }, '');
  const file = h('input', { type: 'file', accept: 'image/*', capture: 'environment', id: 'photo-file', hidden: true });
  const pick = h('label', { class: 'btn', for: 'photo-file' }, 'Choose a photo');
  let inFlight = false;
  const readingKey = `reading:${sid}`;  // (the photo being read, kept through a reload)

  async function send(blob) {
    if (inFlight) return;            // only one frame in flight at a time
    inFlight = true;
    hideErrorToast();
    show(status, G[s.game].photo_hint);  // (the last photo's error stood under this one's reading)
    shutter.disabled = true;
    // No second photo while this one is read: the picker's photo was dropped without a word.
    file.disabled = true;
    pick.setAttribute('aria-disabled', 'true');
    // The photo lives in this page only: a reload while it is read would lose it. It is kept
    // in sessionStorage (a 1280-1600 px JPEG, a few hundred KB) to be sent again after one;
    // where that does not fit, only the mark that a photo was lost.
    const kept = { at: Date.now(), photo: await dataUrl(blob).catch(() => null) };
    if (!store('session', readingKey, kept)) store('session', readingKey, { at: kept.at });
    const busy = h('div', { class: 'busy' }, 'Reading the photo…');
    view.classList.add('reading');
    view.append(busy);
    try {
      const form = new FormData();
      form.append('photo', blob, 'photo.jpg');
      form.append('game', s.game);
      form.append('session', sid);
      const taught = store('local', `teach:${s.game}`);
      if (taught) form.append('teach', taught);
      const result = await api('POST', '/api/score', form);
      current.saw = { sid, result, baseFacts: result.facts, photoUrl: URL.createObjectURL(blob) };
      store('session', `saw:${sid}`, { result, baseFacts: result.facts });
      location.hash = `#/s/${sid}/saw`;
    } catch (e) {
      // The photo is kept to send again: the moment it shows (a Simsala Stopp) may be gone.
      const again = e.status === 0 || e.status >= 500
        ? h('button', { type: 'button', class: 'small', id: 'resend', onclick: () => send(blob) }, 'Send the same photo again')
        : null;
      // Said once, here (it was also in the toast over it); brought into view below.
      if (!pageLeaving) {
        show(status, h('span', { class: 'error' }, e.message), ' ', again, ' ',
          h('a', { href: `#/s/${sid}/hand` }, 'Type it in instead'));
      }
    } finally {
      if (!pageLeaving) store('session', readingKey, null);  // (a reload aborts the read)
      inFlight = false;
      busy.remove();
      view.classList.remove('reading');
      file.disabled = false;
      pick.removeAttribute('aria-disabled');
      shutter.disabled = !activeStream;
      if (status.querySelector('.error')) status.scrollIntoView({ block: 'nearest' });  // small phone
    }
  }

  shutter.onclick = async () => {
    if (inFlight || !video.videoWidth) return;
    const blob = await toJpeg(video, video.videoWidth, video.videoHeight);
    await send(blob);
  };
  file.onchange = async () => {
    const f = file.files[0];
    file.value = '';
    if (!f) return;
    let blob = f;
    try {
      const bmp = await createImageBitmap(f);
      blob = await toJpeg(bmp, bmp.width, bmp.height);
    } catch (e) { /* the browser cannot decode it: send as is, the server says why */ }
    await send(blob);
  };

  const reading = store('session', readingKey);
  if (reading && reading.at < PAGE_LOADED_AT) {  // sent before this page load: lost with it
    store('session', readingKey, null);
    const resend = reading.photo && h('button', { type: 'button', class: 'small', id: 'resend-lost',
      onclick: async () => send(await (await fetch(reading.photo)).blob()) }, 'Send that photo again');
    show(status, h('span', { class: 'error', id: 'photo-lost' }, 'The page was reloaded while a photo was read: it was not scored.',
      resend ? '' : ' Take it again.'), ' ', resend);
  }
  const taughtNow = store('local', `teach:${s.game}`);
  show($app, view, h('div', { class: 'shutter-row' }, shutter, pick, file), status,
    h('p', {}, h('a', { href: `#/s/${sid}/hand` }, 'No photo? Type it in.')),
    TEACHABLE.has(s.game) && h('p', { class: 'muted', id: 'teach-line' }, taughtNow ? `Using the taught pieces “${taughtNow}”. ` : 'Pieces misread? ',
      h('a', { href: `#/teach/${s.game}?back=${encodeURIComponent(sid)}` }, taughtNow ? 'Change' : 'Teach this copy\'s pieces')));

  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    show(view, h('p', { class: 'noimg' }, window.isSecureContext
      ? 'This browser has no camera access. Choose a photo instead.'
      : 'The camera works only over https (start the server with --https). Choose a photo instead.'));
    return;
  }
  try {
    const stream = await navigator.mediaDevices.getUserMedia({
      audio: false,
      video: { facingMode: { ideal: 'environment' }, width: { ideal: 1920 }, height: { ideal: 1440 } },
    });
    if (!location.hash.endsWith('/camera')) { stream.getTracks().forEach((t) => t.stop()); return; }
    activeStream = stream;
    video.srcObject = stream;
    await video.play().catch(() => {});
    shutter.disabled = false;
  } catch (e) {
    show(view, h('p', { class: 'noimg' }, `No camera (${e.name || e.message}). Choose a photo instead.`));
  }
}

function dataUrl(blob) {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(r.result);
    r.onerror = () => reject(r.error);
    r.readAsDataURL(blob);
  });
}

function toJpeg(source, w, hgt) {
  const scale = Math.min(1, CAMERA.maxSide / Math.max(w, hgt));
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(w * scale);
  canvas.height = Math.round(hgt * scale);
  canvas.getContext('2d').drawImage(source, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('could not encode the photo'))), 'image/jpeg', CAMERA.quality));
}

// ---------------------------------------------------------------------------------------
// what I saw

async function sawPage(sid) {
  const s = await loadSession(sid);
  setTitle(`${s.name}: what I saw`, `#/s/${sid}`);
  let saw = current.saw && current.saw.sid === sid ? current.saw : null;
  if (!saw) {
    const kept = store('session', `saw:${sid}`);
    if (!kept) { location.hash = `#/s/${sid}`; return; }
    saw = { sid, ...kept, photoUrl: kept.result.scan_id ? `/api/scans/${kept.result.scan_id}/photo` : null };
    if (saw.unscored) saw.unscored = 'failed';  // (reloaded before the score came: ask again)
    current.saw = saw;
  }
  renderSaw(s, saw);
}

function renderSaw(s, saw) {
  const r = saw.result;
  const figure = drawPieces(s, saw);
  const next = actionFor(s);
  const use = h('button', { type: 'button', class: 'primary', id: 'use-result', disabled: !next || !!saw.unscored }, next ? next.label : 'The game waits for another step');
  use.onclick = busyButton(use, async () => {
    await act({ type: next.type, facts: r.facts });
    store('session', `saw:${s.id}`, null);
    store('local', `draft:${s.id}`, null);
    current.saw = null;
    location.hash = `#/s/${s.id}`;
  });
  show($app, 
    figure,
    saw.unscored === 'failed' ? (saw.refused
      // The server refused the pieces as they are (two hats 2 while a swap is half done):
      // scoring them again gives the same answer, the next correction may mend them.
      ? h('p', { class: 'error', id: 'unscored' }, `Your change is kept but cannot be scored as it is: ${saw.refused} Correct the pieces further (or change this one back); the score follows.`)
      : h('p', { class: 'error', id: 'unscored' }, 'Your change is kept but not scored yet. ',
        h('button', { type: 'button', class: 'small', id: 'rescore', onclick: () => rescore(s, saw, r.pieces) }, 'Score it again'))) : null,
    r.pieces.length ? h('p', { class: 'muted' }, 'Tap a piece to change or remove it; tap empty space to add one.') : null,
    r.warnings.length ? h('ul', { class: 'warnings', id: 'warnings' }, warningMarks(r.warnings).map(({ text, spot, no }) => {
      // A doubt about one piece names it by photo pixels, "the card-blue at (870, 518)", which
      // nobody at the table can find: its number is drawn there on the photo, and a tap on
      // the doubt opens that piece. Doubts about the whole photo come first (a black and
      // white photo's came 27th, after 26 about single pieces).
      if (!spot) return h('li', { text });
      return h('li', { class: 'spotted', 'data-k': no, onclick: () => {
        const at = pieceAt(r.pieces, spot, pieceRadius(r) * 2.2);  // (as a tap there on the photo)
        document.getElementById('saw').scrollIntoView({ block: 'nearest' });
        if (at !== null) pieceSheet(s, saw, at);
      } }, h('span', { class: 'spot-no' }, String(no)), ` ${text}`);
    })) : null,
    // A change not scored yet leaves the last score on screen: it is dimmed and says so (a
    // refused hat swap on a won line still read "Won!" in big green letters).
    h('div', { class: saw.unscored ? 'card stale' : 'card', id: 'score' },
      saw.unscored ? h('p', { class: 'stale-note' }, 'Before your change:') : null, scoreBlock(s, r)),
    h('details', { class: saw.unscored ? 'card stale' : 'card', open: true, id: 'referee' }, h('summary', {}, saw.unscored ? 'Referee, before your change: why?' : 'Referee: why?'),
      h('ul', { class: 'explain' }, (r.explanation || []).map((l) => h('li', { text: l })))),
    h('details', { class: 'card', id: 'counts' }, h('summary', {}, 'What was counted'), countsBlock(s.game, r.facts)),
    h('div', { class: 'sticky-actions' }, use,
      h('div', { class: 'grid2' },
        h('a', { class: 'btn', href: `#/s/${s.id}/camera` }, 'Again'),
        h('a', { class: 'btn', href: `#/s/${s.id}/hand`, onclick: () => store('local', `draft:${s.id}`, r.facts) }, 'Correct by hand'))));
}

function scoreBlock(s, r) {
  const sc = r.score;
  const name = (c) => playerName(s, c);
  switch (r.game) {
    case 'simsala-hopp':
      return [h('h3', {}, 'Points this turn'), Object.entries(sc.points).map(([c, n]) => h('div', { class: 'score-line', 'data-colour': c },
        h('span', {}, dot(c), ` ${name(c)}${c === sc.magician ? ' (magician)' : ''}`), h('b', { 'data-points': c }, n)))];
    case 'magic-rabbit':
      return [h('p', { class: 'big ' + (sc.won ? 'good' : 'bad') }, sc.won ? 'Won!' : 'Not won'),
        sc.wrong_positions.length ? h('p', {}, `Wrong positions (from the magician, 1 = first): ${sc.wrong_positions.map((i) => i + 1).join(', ')}`) : null];
    case 'hop-la-bille':
      // the players' zones, and any other zone only where cards were read (the scorer answers
      // every zone: "South –", "Middle –" read as players of a two-player game)
      return [h('h3', {}, 'Complete cards'), Object.entries(sc.completed).filter(([z]) => s.players.some((p) => p.colour === z)
        || ((r.facts.cards || {})[z] || []).length).map(([z, idx]) => h('div', { class: 'score-line', 'data-zone': z },
        h('span', {}, dot(z), ` ${name(z)}`), h('b', {}, idx.length ? idx.map((i) => (r.facts.cards[z][i] || {}).colour).join(', ') : '–')))];
    case 'mauerhuepfer':
      return [h('p', { class: 'big' }, (r.facts.dice || []).length ? `Dice: ${r.facts.dice.join(' and ')}` : 'Dice: none seen'),
        Object.entries(sc.home || {}).filter(([c]) => s.players.some((p) => p.colour === c)).map(([c, n]) => h('div', { class: 'score-line' }, h('span', {}, dot(c), ` ${name(c)}`), h('b', {}, `${n} home`))),
        sc.winner ? h('p', { class: 'good big' }, `${name(sc.winner)} wins`) : null];
    case 'troetofanten':
      return [h('h3', {}, 'Points'), Object.entries(sc.points).map(([z, n]) => h('div', { class: 'score-line' },
        h('span', {}, dot(z), ` ${name(z)}`), h('b', { 'data-points': z }, n)))];
    default:
      return h('pre', {}, JSON.stringify(sc, null, 2));
  }
}

function countsBlock(game, facts) {
  if (game === 'magic-rabbit') {
    return h('table', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, 'Hat'), h('th', {}, 'Rabbit'), h('th', {}, 'Dove')),
      (facts.line || []).map((p, i) => h('tr', {}, h('td', {}, i + 1), h('td', {}, p.hat), h('td', {}, p.rabbit ?? '?'), h('td', {}, p.dove ? 'dove' : ''))));
  }
  const tables = [];
  const zoneMaps = game === 'simsala-hopp' ? facts : (facts.zones || {});
  for (const [zone, counts] of Object.entries(zoneMaps)) {
    const rows = Object.entries(counts || {}).filter(([, n]) => n);
    if (!rows.length) continue;
    tables.push(h('h3', {}, cap(zone)), h('table', {}, rows.map(([l, n]) => h('tr', {}, h('td', {}, labelText(l)), h('td', { class: 'num' }, n)))));
  }
  if (game === 'mauerhuepfer') {
    tables.push(h('p', {}, `Dice: ${(facts.dice || []).join(', ')}`),
      h('table', {}, Object.entries(facts.pawns || {}).map(([l, n]) => h('tr', {}, h('td', {}, labelText(l)), h('td', { class: 'num' }, n)))));
  }
  return tables.length ? tables : h('p', { class: 'muted', text: 'Nothing.' });
}

/** Pairs out of ascending order along a line [{hat, rabbit}], hats and rabbits counted alike
 *  (a rabbit not seen: left out): scoring/magic_rabbit.py inversions. */
function inversions(line) {
  let n = 0;
  for (const key of ['hat', 'rabbit']) {
    const seq = line.map((p) => p[key]).filter((v) => v !== null);
    for (let i = 0; i < seq.length; i++) for (let j = i + 1; j < seq.length; j++) if (seq[i] > seq[j]) n++;
  }
  return n;
}

/** Hat order along the Magic Rabbit line, as webapp/edit.py line_order reads it (the order of
 *  the facts the page rebuilds): along the principal axis of the hat centres, pointing away
 *  from the magician tile; without one, from the end the numbers ascend from (each rabbit to
 *  the nearest hat; fewer hats and rabbits out of order, a tie: left to right), the rule of
 *  vision/cards/lineup.py. Returns piece indices. */
function hatOrder(pieces) {
  const mag = pieces.filter((p) => p.label === 'magician')  // the surest (the first of equals), as edit.py
    .reduce((a, p) => (a && (a.confidence ?? 1) >= (p.confidence ?? 1) ? a : p), null);
  const hats = pieces.map((p, i) => [p, i]).filter(([p]) => p.label.startsWith('hat-'));
  if (!hats.length) return [];
  const n = hats.length;
  const mx = hats.reduce((a, [p]) => a + p.center[0], 0) / n;
  const my = hats.reduce((a, [p]) => a + p.center[1], 0) / n;
  let sxx = 0; let syy = 0; let sxy = 0;
  for (const [p] of hats) {
    const dx = p.center[0] - mx; const dy = p.center[1] - my;
    sxx += dx * dx; syy += dy * dy; sxy += dx * dy;
  }
  const angle = n >= 2 ? 0.5 * Math.atan2(2 * sxy, sxx - syy) : 0;
  let d = [Math.cos(angle), Math.sin(angle)];
  const ref = mag ? [mx - mag.center[0], my - mag.center[1]] : [1, 0];
  if (d[0] * ref[0] + d[1] * ref[1] < 0) d = [-d[0], -d[1]];
  const o = mag ? mag.center : [mx, my];
  const along = (p) => (p.center[0] - o[0]) * d[0] + (p.center[1] - o[1]) * d[1];
  hats.sort(([a], [b]) => along(a) - along(b));
  const order = hats.map(([, i]) => i);
  if (mag) return order;
  const num = (label) => Number(label.slice(label.lastIndexOf('-') + 1));
  const line = hats.map(([p]) => ({ hat: num(p.label), rabbit: null }));
  for (const p of pieces) {
    if (!p.label.startsWith('rabbit-')) continue;
    let best = 0;
    let bestDist = Infinity;
    hats.forEach(([q], k) => {
      const dist = Math.hypot(q.center[0] - p.center[0], q.center[1] - p.center[1]);
      if (dist < bestDist) { best = k; bestDist = dist; }
    });
    line[best].rabbit = num(p.label);
  }
  return inversions(line.slice().reverse()) < inversions(line) ? order.reverse() : order;
}

/** The photo's [width, height] in image pixels (a stand-in where the result has no photo). */
function photoSize(r) {
  return [(r.image && r.image.width) || 1000, (r.image && r.image.height) || 750];
}

/** A round piece's drawn radius (image pixels); a tap within 2.2 x it of its centre names it. */
function pieceRadius(r) { return Math.max(...photoSize(r)) * 0.018; }

function drawPieces(s, saw) {
  const r = saw.result;
  const [W, H] = photoSize(r);
  const wrap = h('div', { class: 'saw', id: 'saw' });
  if (saw.photoUrl) wrap.append(h('img', { src: saw.photoUrl, alt: 'Your photo', width: W, height: H }));
  else if (!r.pieces.length) return h('p', { class: 'muted', id: 'saw' }, 'Typed in by hand (no photo).');
  else wrap.append(h('div', { class: 'noimg', style: `aspect-ratio:${W}/${H}` }, ''));
  const layer = svg('svg', { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: 'none', id: 'overlay' });
  layer.append(svg('rect', { x: 0, y: 0, width: W, height: H, fill: 'transparent', class: 'bg' }));
  if (r.area) layer.append(svg('polygon', { class: 'area', points: r.area.map((p) => p.join(',')).join(' ') }));
  const wrong = new Set();
  if (r.game === 'magic-rabbit' && r.score && r.score.wrong_positions) {
    const order = hatOrder(r.pieces);
    for (const pos of r.score.wrong_positions) if (order[pos] !== undefined) wrong.add(order[pos]);
  }
  const rad = pieceRadius(r);
  const font = Math.max(W, H) * 0.03;
  const marks = warningMarks(r.warnings || []);
  r.pieces.forEach((p, i) => {
    const g = svg('g', { 'data-i': i, class: 'pc', 'data-label': p.label });
    const colour = labelColour(p.label);
    const cls = 'piece' + (wrong.has(i) ? ' wrong' : '');
    if (p.polygon) g.append(svg('polygon', { class: cls, stroke: colour, points: p.polygon.map((q) => q.join(',')).join(' ') }));
    else {
      g.append(svg('circle', { class: 'hit', cx: p.center[0], cy: p.center[1], r: rad * 2.2 }));
      g.append(svg('circle', { class: cls, stroke: colour, cx: p.center[0], cy: p.center[1], r: rad }));
    }
    const t = svg('text', { x: p.center[0], y: p.center[1] + font * 0.35, 'text-anchor': 'middle', 'font-size': font });
    t.textContent = shortLabel(p.label) + (p.zone === 'outside' ? ' ✗' : '');
    g.append(t);
    layer.append(g);
  });
  marks.forEach(({ spot, no }) => {  // each doubt's number where it is (see renderSaw)
    if (!spot) return;
    const g = svg('g', { class: 'warn-spot', 'data-k': no });
    g.append(svg('circle', { cx: spot[0], cy: spot[1], r: rad * 2.2 }));
    const t = svg('text', { x: spot[0] + rad * 2.2, y: spot[1] - rad * 2.2, 'text-anchor': 'middle', 'font-size': font * 1.3 });
    t.textContent = String(no);
    g.append(t);
    layer.append(g);
  });
  layer.addEventListener('click', (ev) => {
    const pt = layer.createSVGPoint();
    pt.x = ev.clientX; pt.y = ev.clientY;
    const loc = pt.matrixTransform(layer.getScreenCTM().inverse());
    const at = pieceAt(r.pieces, [loc.x, loc.y], rad * 2.2);
    if (at !== null) return pieceSheet(s, saw, at);
    const g = ev.target.closest('g.pc');  // (a click without a position: the element's piece)
    if (g) return pieceSheet(s, saw, Number(g.dataset.i));
    pieceSheet(s, saw, null, [Math.round(loc.x), Math.round(loc.y)]);
  });
  wrap.append(layer);
  return wrap;
}

/** The warnings as the page shows them: those about the whole photo first, then those that
 *  name a place ("at (x, y)"), numbered 1, 2, ... in their own order: [{text, spot, no}]. */
function warningMarks(warnings) {
  const all = warnings.map((text) => ({ text: String(text), spot: warningSpot(String(text)), no: null }));
  let n = 0;
  for (const m of all) if (m.spot) m.no = ++n;
  return [...all.filter((m) => !m.spot), ...all.filter((m) => m.spot)];
}

/** The photo point a warning names, "... at (870, 518) ..." (image pixels), or null. */
function warningSpot(text) {
  const m = /\bat \((\d+(?:\.\d+)?), (\d+(?:\.\d+)?)\)/.exec(text);
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/** The piece a tap at `pt` (image pixels) means: of the pieces whose outline (or, for a round
 *  piece, the circle of `hitRadius` round its centre) holds the tap, the one whose centre is
 *  nearest; null for none. The topmost outline was taken before: a dove's or marble's wide
 *  tap circle, drawn later, covered the centres of the hat or marbles beside it (tapping a
 *  piece's own centre opened another piece for 11 of 62 Magic Rabbit and 13 of 42 Hop la
 *  bille pieces of committed photos, session 19). */
function pieceAt(pieces, pt, hitRadius) {
  let best = null;
  let bestD = Infinity;
  pieces.forEach((p, i) => {
    if (!p.center) return;
    const d = Math.hypot(pt[0] - p.center[0], pt[1] - p.center[1]);
    const holds = p.polygon ? insidePolygon(pt, p.polygon) : d <= hitRadius;
    if (holds && d < bestD) { best = i; bestD = d; }
  });
  return best;
}

function insidePolygon(pt, poly) {
  let inside = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i]; const [xj, yj] = poly[j];
    if ((yi > pt[1]) !== (yj > pt[1]) && pt[0] < ((xj - xi) * (pt[1] - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

function guessZone(game, r, pt) {
  const zones = G[game].zones;
  if (!zones.length) return '';
  if (game === 'simsala-hopp') return r.area && insidePolygon(pt, r.area) ? 'arena' : 'outside';
  const [W, H] = photoSize(r);
  const poly = r.area || [[0, 0], [W, 0], [W, H], [0, H]];
  const cx = poly.reduce((a, p) => a + p[0], 0) / poly.length;
  const cy = poly.reduce((a, p) => a + p[1], 0) / poly.length;
  const span = Math.max(...poly.map((p) => Math.abs(p[0] - cx)), ...poly.map((p) => Math.abs(p[1] - cy)));
  const dx = (pt[0] - cx) / span; const dy = (pt[1] - cy) / span;
  if (Math.max(Math.abs(dx), Math.abs(dy)) < 0.45) return 'middle';
  if (Math.abs(dy) >= Math.abs(dx)) return dy > 0 ? 'south' : 'north';
  return dx > 0 ? 'east' : 'west';
}

function closeSheet() {
  const sh = document.getElementById('sheet');
  sh.hidden = true;
  sh.replaceChildren();
}

function pieceSheet(s, saw, index, point) {
  const r = saw.result;
  const g = G[s.game];
  const piece = index === null ? null : r.pieces[index];
  let zone = piece ? piece.zone : guessZone(s.game, r, point);
  const sheet = document.getElementById('sheet');
  const zoneRow = g.zones.length ? h('div', { class: 'row', id: 'zone-pick' }, 'Where:', g.zones.map((z) => {
    const b = h('button', { type: 'button', class: 'small' + (z === zone ? ' primary' : ''), 'data-zone': z }, z);
    b.onclick = () => {
      zone = z;
      zoneRow.querySelectorAll('button').forEach((x) => x.classList.toggle('primary', x.dataset.zone === z));
      if (piece) change({ ...piece, zone: z });
    };
    return b;
  })) : null;
  const change = (p) => {
    const pieces = r.pieces.slice();
    if (index === null) pieces.push(p); else if (p) pieces[index] = p; else pieces.splice(index, 1);
    closeSheet();
    rescore(s, saw, pieces);
  };
  show(sheet, 
    h('div', { class: 'row', style: 'justify-content:space-between' },
      h('h3', {}, piece ? `This is: ${labelText(piece.label)}` : 'Add a piece here'),
      h('button', { type: 'button', class: 'small', onclick: closeSheet }, 'Close')),
    zoneRow,
    h('div', { class: 'labels' }, g.labels.map((l) => h('button', {
      type: 'button', class: piece && piece.label === l ? 'on' : '', 'data-label': l,
      onclick: () => change(piece ? { ...piece, label: l, zone, confidence: 1 } : { label: l, zone, confidence: 1, center: point, polygon: null }),
    }, h('span', { class: 'dot', style: `background:${labelColour(l)}` }), labelText(l)))),
    piece ? h('div', { class: 'stack', style: 'margin-top:10px' }, h('button', { type: 'button', class: 'danger', id: 'remove-piece', onclick: () => change(null) }, 'Remove this piece')) : null);
  sheet.hidden = false;
}

let rescoreBusy = false;
let rescorePending = null;
/** Keep "what I saw" (with edits not scored yet) for a reload of the page. */
function keepSaw(sid, saw) {
  store('session', `saw:${sid}`, { result: saw.result, baseFacts: saw.baseFacts, unscored: saw.unscored || null, refused: saw.refused || null });
}

async function rescore(s, saw, pieces) {
  // Until the server has scored the edited pieces, the score and facts on the screen are the
  // old ones: the edit is kept (also over a reload) and the result cannot be used. A failed
  // request used to leave the old facts usable: "use these tiles" recorded the turn without
  // the correction, and a reload lost it.
  saw.result = { ...saw.result, pieces };
  saw.unscored = 'pending';
  saw.refused = null;
  keepSaw(s.id, saw);
  renderSaw(s, saw);                    // show the edit at once, the score follows
  if (rescoreBusy) { rescorePending = pieces; return; }
  rescoreBusy = true;
  try {
    const r = saw.result;
    const res = await api('POST', '/api/score/facts', { game: s.game, session: s.id, pieces, facts: saw.baseFacts, image: r.image, area: r.area });
    saw.result = { ...res, scan_id: r.scan_id };
    saw.unscored = null;
    saw.refused = null;
    keepSaw(s.id, saw);
    renderSaw(s, saw);
  } catch (e) {
    saw.unscored = 'failed';
    saw.refused = e.status >= 400 && e.status < 500 ? e.message : null;  // (not a network or server failure)
    keepSaw(s.id, saw);
    renderSaw(s, saw);
    toast(e.message, true);
  } finally {
    rescoreBusy = false;
    if (rescorePending) { const p = rescorePending; rescorePending = null; rescore(s, saw, p); }
  }
}

// ---------------------------------------------------------------------------------------
// facts typed in by hand

function defaultFacts(s) {
  const v = s.view;
  const last = v && v.last && v.last.facts;
  if (last) return JSON.parse(JSON.stringify(last));
  const sides = s.players.map((p) => p.colour);
  switch (s.game) {
    case 'simsala-hopp': return { arena: { frog: 15 }, outside: {} };
    case 'magic-rabbit': return { line: Array.from({ length: 9 }, (_, i) => ({ hat: i + 1, rabbit: i + 1, dove: false })) };
    case 'hop-la-bille': return { zones: Object.fromEntries([...sides, 'middle'].map((z) => [z, {}])), cards: Object.fromEntries(sides.map((z) => [z, []])) };
    case 'mauerhuepfer': return { dice: [1, 2], pawns: Object.fromEntries(sides.map((c) => [`pawn-${c}`, 4])), positions: {} };
    case 'troetofanten': return { zones: Object.fromEntries([...sides, 'middle'].map((z) => [z, {}])) };
    default: return {};
  }
}

function stepper(label, value, onChange, max) {
  const out = h('output', {}, value || 0);
  const set = (n) => { n = Math.max(0, Math.min(max ?? 99, n)); out.textContent = n; onChange(n); };
  return h('div', { class: 'stepper', 'data-label': label },
    h('span', {}, labelText(label)),
    h('button', { type: 'button', 'aria-label': `one ${label} less`, onclick: () => set(Number(out.textContent) - 1) }, '−'),
    out,
    h('button', { type: 'button', 'aria-label': `one ${label} more`, onclick: () => set(Number(out.textContent) + 1) }, '+'));
}

function countsEditor(zoneMap, zones, labels, save) {
  return zones.map((z, i) => {
    zoneMap[z] = zoneMap[z] || {};
    return h('details', { class: 'card', open: i === 0 || Object.values(zoneMap[z]).some(Boolean), 'data-zone': z },
      h('summary', {}, cap(z)),
      labels.map((l) => stepper(l, zoneMap[z][l], (n) => { if (n) zoneMap[z][l] = n; else delete zoneMap[z][l]; save(); })));
  });
}

const EDITORS = {
  'simsala-hopp': (s, f, save) => countsEditor(f, ['arena', 'outside'], G['simsala-hopp'].labels, save),
  troetofanten: (s, f, save) => countsEditor(f.zones, [...s.players.map((p) => p.colour), 'middle'], G.troetofanten.labels, save),
  'magic-rabbit': (s, f, save) => {
    const nums = [1, 2, 3, 4, 5, 6, 7, 8, 9];
    return h('table', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, 'Hat'), h('th', {}, 'Rabbit'), h('th', {}, 'Dove')),
      f.line.map((p, i) => h('tr', {}, h('td', {}, i + 1),
        h('td', {}, h('select', { onchange: (ev) => { p.hat = Number(ev.target.value); save(); } }, nums.map((n) => h('option', { value: n, selected: p.hat === n }, n)))),
        h('td', {}, h('select', { onchange: (ev) => { p.rabbit = ev.target.value === '' ? null : Number(ev.target.value); save(); } },
          h('option', { value: '', selected: p.rabbit === null }, '?'), nums.map((n) => h('option', { value: n, selected: p.rabbit === n }, n)))),
        h('td', {}, h('input', { type: 'checkbox', checked: !!p.dove, style: 'width:28px;height:28px', onchange: (ev) => { p.dove = ev.target.checked; save(); } })))));
  },
  mauerhuepfer: (s, f, save) => {
    const die = (i) => h('select', { onchange: (ev) => { f.dice[i] = Number(ev.target.value); f.dice.sort((a, b) => a - b); save(); } },
      [1, 2, 3, 4, 5, 6].map((n) => h('option', { value: n, selected: f.dice[i] === n }, n)));
    const pos = h('textarea', { spellcheck: 'false' }, JSON.stringify(f.positions || {}, null, 1));
    pos.onchange = () => { try { f.positions = JSON.parse(pos.value || '{}'); save(); } catch (e) { toast('positions: not valid JSON', true); } };
    return [h('div', { class: 'row' }, 'Dice:', die(0), die(1)),
      h('div', { class: 'card' }, G.mauerhuepfer.labels.filter((l) => l.startsWith('pawn-')).map((l) => stepper(l, f.pawns[l], (n) => { f.pawns[l] = n; save(); }, 4))),
      h('label', { class: 'field' }, 'Positions {pawn label: [field ids]}', pos)];
  },
  'hop-la-bille': (s, f, save) => {
    const marbles = G['hop-la-bille'].labels.filter((l) => l.startsWith('marble-'));
    const sides = s.players.map((p) => p.colour);
    const cards = h('div', {});
    const drawCards = () => show(cards, sides.map((z) => h('div', { class: 'card' },
      h('h3', {}, `${playerName(s, z)}'s cards`),
      (f.cards[z] = f.cards[z] || []).map((c, i) => h('div', { class: 'card' },
        h('div', { class: 'row' }, h('select', { onchange: (ev) => { c.colour = ev.target.value; if (c.colour === 'back') c.marbles = []; save(); drawCards(); } },
          ['green', 'blue', 'red', 'back'].map((x) => h('option', { value: x, selected: c.colour === x }, x))),
        h('button', { type: 'button', class: 'small danger', onclick: () => { f.cards[z].splice(i, 1); save(); drawCards(); } }, 'Remove')),
        c.colour === 'back' ? null : marbles.map((m) => stepper(m, c.marbles.filter((x) => x === m).length, (n) => {
          c.marbles = c.marbles.filter((x) => x !== m).concat(Array(n).fill(m)); save();
        }, 5)))),
      h('button', { type: 'button', class: 'small', onclick: () => { f.cards[z].push({ colour: 'green', marbles: [] }); save(); drawCards(); } }, '+ card'))));
    drawCards();
    return [h('h3', {}, 'Marbles in each game area'), countsEditor(f.zones, [...sides, 'middle'], marbles, save), cards];
  },
};

/** Why the game's form cannot show these facts (JSON typed in may have another shape), or
 * null when it can. The form is drawn on a copy, so nothing is changed. */
function editorError(s, f) {
  const expected = `expected an object with ${Object.keys(defaultFacts(s)).join(', ')}`;
  if (!f || typeof f !== 'object' || Array.isArray(f)) return expected;
  try { EDITORS[s.game](s, JSON.parse(JSON.stringify(f)), () => {}); } catch (e) { return expected; }
  return null;
}

async function handPage(sid) {
  const s = await loadSession(sid);
  setTitle(`${s.name}: type it in`, `#/s/${sid}`);
  const draftKey = `draft:${sid}`;
  let facts = store('local', draftKey) || defaultFacts(s);
  const save = () => store('local', draftKey, facts);
  const json = h('textarea', { spellcheck: 'false', id: 'facts-json' });
  const form = h('div', { id: 'editor' });
  const draw = () => show(form, EDITORS[s.game](s, facts, () => { save(); json.value = JSON.stringify(facts, null, 1); }));
  json.value = JSON.stringify(facts, null, 1);
  const unfit = editorError(s, facts);
  if (unfit) {  // a kept draft the form cannot show: the form starts afresh, the draft stays
    facts = defaultFacts(s);  // in the JSON box to be mended (and in storage until then)
    toast(`Your kept entries do not fit the form (${unfit}); they are under “the facts as JSON”.`, true);
  }
  draw();
  const go = h('button', { type: 'button', class: 'primary', id: 'score-facts' }, 'Score it');
  go.onclick = busyButton(go, async () => {
    save();
    const result = await api('POST', '/api/score/facts', { game: s.game, session: sid, facts });
    current.saw = { sid, result, baseFacts: result.facts, photoUrl: null };
    store('session', `saw:${sid}`, { result, baseFacts: result.facts });
    location.hash = `#/s/${sid}/saw`;
  });
  show($app, h('p', { class: 'muted' }, 'What is on the table now? Your entries are kept on this phone until they are used.'),
    form,
    h('details', { class: 'card' }, h('summary', {}, 'Advanced: the facts as JSON'), json,
      h('button', { type: 'button', class: 'small', onclick: () => {
        let v;
        try { v = JSON.parse(json.value); } catch (e) { toast(`Not valid JSON: ${e.message}`, true); return; }
        const unfit = editorError(s, v);
        if (unfit) { toast(`Not applied: ${unfit}`, true); return; }
        Object.keys(facts).forEach((k) => delete facts[k]); Object.assign(facts, v); save(); draw(); toast('Applied.');
      } }, 'Apply the JSON')),
    h('div', { class: 'sticky-actions' }, go));
}

route();

// ---------------------------------------------------------------------------------------
// teach: photograph this copy's pieces, tap each to name it (POST /api/teach); the chosen
// profile is remembered per game (localStorage `teach:<game>`) and sent with every photo.

const TEACHABLE = new Set(['simsala-hopp', 'hop-la-bille', 'magic-rabbit', 'troetofanten', 'mauerhuepfer']);  // vision.teach.teachable
const TEACH_ON_TABLE = new Set(['magic-rabbit', 'troetofanten']);  // no play area in the photo

/** The teach screen's photos, taps and name, kept in the phone's IndexedDB (photos are too
 *  big for localStorage) until they are learnt; a reload (or the phone dropping the tab
 *  while the camera app was open) lost them. `value`: undefined reads, null deletes. */
function teachDb() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open('tablescore', 1);
    req.onupgradeneeded = () => req.result.createObjectStore('teach');
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}
async function teachKept(game, value) {
  try {
    const db = await teachDb();
    return await new Promise((resolve, reject) => {
      const tx = db.transaction('teach', value === undefined ? 'readonly' : 'readwrite');
      const st = tx.objectStore('teach');
      const req = value === undefined ? st.get(game) : value === null ? st.delete(game) : st.put(value, game);
      tx.oncomplete = () => { db.close(); resolve(req.result); };
      tx.onerror = () => { db.close(); reject(tx.error); };
      tx.onabort = () => { db.close(); reject(tx.error); };
    });
  } catch (e) { return null; }  // (no IndexedDB, a private window: kept in memory only)
}

async function teachPage(game) {
  const back = new URLSearchParams(location.hash.split('?')[1] || '').get('back');
  setTitle(`Teach: ${G[game].name}`, back ? `#/s/${back}/camera` : '#/');
  const seq = routeSeq;
  const info = await api('GET', `/api/teach?game=${encodeURIComponent(game)}`);
  const kept = await teachKept(game);
  if (seq !== routeSeq) return;  // (left before the answer came)
  const photos = ((kept && kept.photos) || []).map((k) => ({ ...k, url: URL.createObjectURL(k.blob) }));  // {blob, url, w, h, taps: [{x, y, label}]}
  const chosen = store('local', `teach:${game}`);
  const list = h('div', { class: 'stack', id: 'teach-photos' });
  const nameIn = h('input', { type: 'text', id: 'teach-name', value: (kept && kept.name) || chosen || `my-${game}`, maxlength: 64 });
  const keep = () => teachKept(game, photos.length ? { photos: photos.map(({ blob, w, h: ht, taps }) => ({ blob, w, h: ht, taps })), name: nameIn.value } : null);
  nameIn.addEventListener('input', keep);
  const status = h('p', { class: 'muted', id: 'teach-status' },
    `Photograph some pieces ${TEACH_ON_TABLE.has(game) ? 'on the table' : game === 'mauerhuepfer' ? 'on the board' : 'on the play area'}, then tap each piece and name it. One piece of each kind is enough.`);
  const file = h('input', { type: 'file', accept: 'image/*', capture: 'environment', id: 'teach-file', hidden: true, multiple: true });
  const save = h('button', { type: 'button', class: 'primary', id: 'teach-save', disabled: true }, 'Learn these pieces');

  function redraw() {
    show(list, photos.map((ph, pi) => {
      const wrap = h('div', { class: 'saw' }, h('img', { src: ph.url, alt: `Teach photo ${pi + 1}`, width: ph.w, height: ph.h }));
      const layer = svg('svg', { viewBox: `0 0 ${ph.w} ${ph.h}`, preserveAspectRatio: 'none' });
      layer.append(svg('rect', { x: 0, y: 0, width: ph.w, height: ph.h, fill: 'transparent' }));
      const font = Math.max(ph.w, ph.h) * 0.03;
      ph.taps.forEach((t) => {
        layer.append(svg('circle', { class: 'piece', stroke: labelColour(t.label), cx: t.x, cy: t.y, r: font }));
        const tx = svg('text', { x: t.x, y: t.y + font * 0.35, 'text-anchor': 'middle', 'font-size': font });
        tx.textContent = shortLabel(t.label);
        layer.append(tx);
      });
      layer.addEventListener('click', (ev) => {
        const pt = layer.createSVGPoint();
        pt.x = ev.clientX; pt.y = ev.clientY;
        const loc = pt.matrixTransform(layer.getScreenCTM().inverse());
        tapSheet(ph, Math.round(loc.x), Math.round(loc.y));
      });
      wrap.append(layer);
      return wrap;
    }));
    keep();
    const n = photos.reduce((a, ph) => a + ph.taps.length, 0);
    save.disabled = !n;
    // per kind as the profile keeps it (Troetofanten: one elephant teaches every elephant)
    const unit = (l) => (info.units && info.units[l]) || l;
    const named = new Set(photos.flatMap((ph) => ph.taps.map((t) => unit(t.label))));
    const missing = [...new Set(info.labels.map(unit))].filter((u) => !named.has(u));
    if (photos.length) show(status, n ? '' : 'Tap a piece on the photo to name it. ', `${n} piece(s) named.`, missing.length ? ` Not yet: ${missing.map(labelText).join(', ')}.` : ' Every kind is named.');
  }

  function tapSheet(ph, x, y) {
    const near = ph.taps.findIndex((t) => Math.hypot(t.x - x, t.y - y) < Math.max(ph.w, ph.h) * 0.03);
    const sheet = document.getElementById('sheet');
    show(sheet,
      h('div', { class: 'row', style: 'justify-content:space-between' },
        h('h3', {}, near >= 0 ? `This is: ${labelText(ph.taps[near].label)}` : 'This piece is…'),
        h('button', { type: 'button', class: 'small', onclick: closeSheet }, 'Close')),
      h('div', { class: 'labels' }, info.labels.map((l) => h('button', {
        type: 'button', 'data-label': l,
        onclick: () => { if (near >= 0) ph.taps[near].label = l; else ph.taps.push({ x, y, label: l }); closeSheet(); redraw(); },
      }, h('span', { class: 'dot', style: `background:${labelColour(l)}` }), labelText(l)))),
      near >= 0 ? h('div', { class: 'stack', style: 'margin-top:10px' }, h('button', { type: 'button', class: 'danger', onclick: () => { ph.taps.splice(near, 1); closeSheet(); redraw(); } }, 'Remove this name')) : null);
    sheet.hidden = false;
  }

  file.onchange = async () => {
    for (const f of Array.from(file.files)) {
      try {
        const bmp = await createImageBitmap(f);
        const blob = await toJpeg(bmp, bmp.width, bmp.height);
        const scale = Math.min(1, CAMERA.maxSide / Math.max(bmp.width, bmp.height));
        photos.push({ blob, url: URL.createObjectURL(blob), w: Math.round(bmp.width * scale), h: Math.round(bmp.height * scale), taps: [] });
      } catch (e) { toast(`${f.name}: this browser cannot read the photo`, true); }
    }
    file.value = '';
    redraw();
  };

  save.onclick = (ev) => busyButton(ev.currentTarget, async () => {
    const form = new FormData();
    form.append('game', game);
    form.append('name', nameIn.value.trim());
    const taps = [];
    photos.forEach((ph, i) => {
      form.append('photo', ph.blob, `teach-${i + 1}.jpg`);
      ph.taps.forEach((t) => taps.push({ photo: i, x: t.x, y: t.y, label: t.label }));
    });
    form.append('taps', JSON.stringify(taps));
    try {
      const r = await api('POST', '/api/teach', form);
      await teachKept(game, null);  // learnt: nothing left to keep
      store('local', `teach:${game}`, r.name);
      toast(`Learnt ${Object.keys(r.labels).length} kinds of piece in ${Math.round(r.timings_ms.total)} ms. The next photo uses them.`);
      location.hash = back ? `#/s/${back}/camera` : '#/';
    } catch (e) {
      show(status, h('span', { class: 'error' }, e.message));
      toast(e.message, true);
    }
  })(ev);

  const use = info.profiles.length ? h('div', { class: 'stack', id: 'teach-profiles' },
    h('h2', { text: 'Use pieces taught before' }),
    info.profiles.map((p) => h('button', { type: 'button', class: p.name === chosen ? 'primary' : '', 'data-profile': p.name,
      onclick: () => { store('local', `teach:${game}`, p.name); route(); } },
    `${p.name} (${Object.keys(p.labels).length} kinds)`)),
    chosen ? h('button', { type: 'button', id: 'teach-off', onclick: () => { store('local', `teach:${game}`, null); route(); } }, 'Read photos without taught pieces') : null) : null;

  show($app, status,
    h('div', { class: 'row' }, h('label', { class: 'btn', for: 'teach-file' }, 'Add a photo'), file),
    list,
    h('div', { class: 'row' }, h('label', { for: 'teach-name' }, 'Name: '), nameIn),
    h('div', { class: 'stack' }, save),
    use);
  if (photos.length) redraw();  // the kept photos and taps, back after a reload
}
