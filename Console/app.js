// The console's page logic: sign-in, maps and map sets, upload and delete, the 3D viewer, live queries
// and client management. Everything comes from the account-scoped API with the in-memory token.
import * as api from '/console/api.js';
import { Viewer } from '/console/viewer.js';
import { readZip, captureParts } from '/console/zip.js';
import { drawUsage } from '/console/chart.js';

const $ = (id) => document.getElementById(id);
const state = { session: null, maps: [], selected: null, viewer: null, queries: [], stopStream: null, poll: null, usage: null };
window.__console = state;

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('data-')) e.setAttribute(k, v);
    else if (k === 'onclick') e.addEventListener('click', v);
    else e[k] = v;
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(c ?? ''));
  return e;
}

function showError(e) {
  const box = $('error');
  box.textContent = e ? `${e.code ? e.code + ': ' : ''}${e.message}` : '';
  box.hidden = !e;
}

const bytes = (n) => n > 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MB` : n > 1024 ? `${(n / 1024).toFixed(0)} kB` : `${n} B`;
const when = (iso) => iso ? new Date(iso).toLocaleString() : '';
const fixed = (x, d = 2) => (x === null || x === undefined) ? '' : Number(x).toFixed(d);

// Sign-in

$('signin-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const error = $('signin-error');
  error.hidden = true;
  $('signin-button').disabled = true;
  try {
    await api.signIn($('client-id').value.trim(), $('client-secret').value);
    $('client-secret').value = '';
    state.session = await api.json('/v1/console/session');
    enter();
  } catch (e) {
    error.textContent = e.code === 'INVALID_CREDENTIALS' ? 'Sign-in failed: the client id or secret is wrong.'
      : `Sign-in failed: ${e.message}${e.code ? ` (${e.code})` : ''}`;
    error.hidden = false;
  } finally {
    $('signin-button').disabled = false;
  }
});

$('signout').addEventListener('click', () => {
  api.signOut();
  if (state.stopStream) state.stopStream();
  location.reload();
});

function enter() {
  const s = state.session;
  $('signin').hidden = true;
  $('nav').hidden = false;
  $('signout').hidden = false;
  $('who').textContent = `${s.clientName || s.clientId} · account ${s.accountName} · ${s.scopes.join(' ')}`;
  $('nav-clients').hidden = !s.scopes.includes('admin');
  show('maps');
  loadMaps();
  startLive();
}

for (const b of document.querySelectorAll('nav button')) b.addEventListener('click', () => show(b.dataset.view));

function show(view) {
  for (const b of document.querySelectorAll('nav button')) b.classList.toggle('active', b.dataset.view === view);
  for (const v of document.querySelectorAll('.view')) v.hidden = v.id !== `view-${view}`;
  if (view === 'clients') loadClients().catch(showError);
  if (view === 'live') renderLiveChart();
}

// Maps

$('maps-refresh').addEventListener('click', () => loadMaps());

async function loadMaps() {
  try {
    const list = await api.json('/v1/vps/map?limit=100');
    state.maps = list.data;
    const body = document.querySelector('#maps tbody');
    body.replaceChildren(...list.data.map((m) => el('tr', { 'data-code': m.id, 'data-name': m.name, onclick: () => openMap(m.id) },
      el('td', {}, m.name), el('td', { class: 'mono code-cell' }, ''), el('td', { class: `status-${m.status}` }, m.status),
      el('td', { class: 'size-cell' }, ''), el('td', {}, when(m.updatedAt)),
      el('td', {}, el('button', { type: 'button', class: 'small danger', onclick: (e) => { e.stopPropagation(); deleteMap(m); } }, 'Delete')))));
    $('maps-empty').hidden = list.data.length > 0;
    // The list has no codes or sizes; the details do.
    for (const m of list.data) {
      api.json(`/v1/vps/map/${m.id}`).then((d) => {
        const row = body.querySelector(`tr[data-code="${m.id}"]`);
        if (!row) return;
        row.dataset.mapCode = d.mapCode;
        row.querySelector('.code-cell').textContent = d.mapCode;
        row.querySelector('.size-cell').textContent = bytes(d.storage || 0);
      }).catch(() => {});
    }
    showError(null);
  } catch (e) { showError(e); }
}

async function deleteMap(m) {
  if (!confirm(`Delete map "${m.name}"? Its files go with it.`)) return;
  try {
    await api.request(`/v1/vps/map/${m.id}`, { method: 'DELETE' });
    if (state.selected && state.selected.id === m.id) { $('details').hidden = true; state.selected = null; }
    loadMaps();
  } catch (e) { showError(e); }
}

$('mapset-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const box = $('mapset');
  try {
    const r = await api.json(`/v1/vps/map-set/${encodeURIComponent($('mapset-code').value.trim())}`);
    const s = r.mapSet;
    box.replaceChildren(el('p', {}, `${s.name} (${s.mapSetCode}) — ${s.status}`),
      el('ul', {}, ...s.mapSetData.map((e) => el('li', {}, `#${e.order} ${e.map ? `${e.map.mapName} (${e.map.mapCode}) ${e.map.status}` : e.id} at `
        + `(${fixed(e.relativePose.position.x)}, ${fixed(e.relativePose.position.y)}, ${fixed(e.relativePose.position.z)})`))));
  } catch (e) { box.replaceChildren(el('p', { class: 'error' }, `${e.code}: ${e.message}`)); }
});

// Upload

$('upload-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const status = $('upload-status');
  const file = $('upload-file').files[0];
  if (!file) return;
  const form = new FormData();
  form.append('name', $('upload-name').value.trim());
  try {
    if (file.name.endsWith('.zip')) {
      status.textContent = 'Reading the archive…';
      const parts = captureParts(await readZip(await file.arrayBuffer()));
      for (const p of parts) form.append(p.path, new Blob([p.bytes]), p.path);
      status.textContent = `Uploading ${parts.length - 1} images…`;
    } else {
      form.append('mapFile', file, file.name);
      status.textContent = 'Uploading the map…';
    }
    const r = await api.json('/v1/vps/map/upload', { method: 'POST', body: form });
    status.textContent = r.status === 'processing' ? `Accepted: ${r.mapCode} is being built.` : `Stored: ${r.mapCode}.`;
    await loadMaps();
    openMap(r._id);
  } catch (e) { status.textContent = `Upload failed: ${e.code || ''} ${e.message}`; }
});

// Map details and the viewer

async function openMap(id) {
  clearTimeout(state.poll);
  for (const row of document.querySelectorAll('#maps tbody tr')) row.classList.toggle('selected', row.dataset.code === id);
  try {
    const [details, scene] = await Promise.all([api.json(`/v1/vps/map/${id}`), api.json(`/v1/console/maps/${id}/scene`)]);
    state.selected = { id, details, scene };
    $('details').hidden = false;
    $('details-title').textContent = `${details.mapName} · ${details.mapCode}`;
    facts(details, scene);
    buildReport(scene);
    $('keyframe').hidden = true;
    if (scene.status === 'processing') state.poll = setTimeout(() => openMap(id), 2000);
    if (scene.status === 'active') await loadScene(id, scene);
    renderUsage();
  } catch (e) { showError(e); }
}

function facts(d, scene) {
  const rows = [['Status', d.status], ['Points', scene.pointCount.toLocaleString()], ['Keyframes', scene.keyframes.length],
    ['Mesh', scene.hasMesh ? 'yes' : 'no'], ['Size', bytes(d.storage || 0)], ['Created', when(d.createdAt)], ['Updated', when(d.updatedAt)]];
  if (scene.georeference) {
    const g = scene.georeference;
    rows.push(['Georeference', `${fixed(g.latitude, 6)}, ${fixed(g.longitude, 6)}, ${fixed(g.altitude, 1)} m, heading ${fixed(g.headingDegrees, 1)}°`]);
  }
  if (scene.failure) rows.push(['Build failed', scene.failure]);
  else if (d.failure) rows.push(['Build failed', `${d.failure.code || ''}: ${d.failure.message || ''}`]);
  // Build progress (stage, percent): the map details' `build` while the map builds.
  const progress = d.build || d.progress;
  if (progress) rows.push(['Progress', `${progress.stage || ''} ${progress.percent ?? ''}%`]);
  // Likewise a map quality report, shown as its top-level numbers and words.
  const quality = d.quality || d.qualityReport;
  if (quality && typeof quality === 'object') {
    rows.push(['Quality', Object.entries(quality).filter(([, v]) => typeof v !== 'object')
      .map(([k, v]) => `${k}: ${typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(3) : v}`).join(' · ')]);
  }
  $('details-facts').replaceChildren(...rows.flatMap(([k, v]) => [el('dt', {}, k), el('dd', { class: k === 'Build failed' ? 'error' : '' }, String(v))]));
}

function buildReport(scene) {
  const box = $('build-report');
  const f = scene.buildFunnel;
  if (!f) { box.replaceChildren(); return; }
  const lines = Object.entries(f).filter(([, v]) => typeof v === 'number').map(([k, v]) => `${k}: ${Number.isInteger(v) ? v : v.toFixed(3)}`);
  box.replaceChildren(el('h3', {}, 'Build report'), el('p', { class: 'hint' }, lines.join(' · ')));
}

async function loadScene(id, scene) {
  if (!state.viewer) {
    state.viewer = new Viewer($('viewer-canvas'));
    state.viewer.onPick = (k) => showKeyframe(k);
    for (const [box, layer] of [['show-points', 'points'], ['show-mesh', 'mesh'], ['show-frusta', 'frusta'], ['show-queries', 'queries']]) {
      $(box).addEventListener('change', () => { state.viewer.visible[layer] = $(box).checked; state.viewer.dirty = true; });
    }
  }
  const v = state.viewer;
  const points = await (await api.request(`/v1/console/maps/${id}/points`)).arrayBuffer();
  v.frame(scene.bounds);
  v.setPoints(points);
  v.setKeyframes(scene.keyframes);
  v.setAxes(scene.georeference);
  v.layers.mesh = null;
  if (scene.hasMesh) {
    try { v.setMesh(await (await api.request(`/v1/console/maps/${id}/mesh`)).arrayBuffer()); } catch (_) { /* points stay */ }
  }
  updateQueryCameras();
  $('viewer-stats').textContent = `${scene.pointCount.toLocaleString()} points · ${scene.keyframes.length} keyframes`;
  $('viewer-canvas').dataset.ready = 'true';
}

async function showKeyframe(k) {
  const id = state.selected.id;
  try {
    const r = await api.request(`/v1/console/maps/${id}/keyframes/${k.id}/image`);
    const kind = r.headers.get('X-Keyframe-Image');
    const img = $('keyframe-image');
    if (img.src) URL.revokeObjectURL(img.src);
    img.src = URL.createObjectURL(await r.blob());
    $('keyframe-caption').textContent = `Keyframe ${k.id} (${k.name}), ${k.width}×${k.height}, ${k.keypoints} keypoints`
      + (kind === 'features' ? ' — no image kept: its keypoints in their points\u2019 colours' : '');
    $('keyframe').hidden = false;
    $('keyframe').dataset.keyframe = String(k.id);
  } catch (e) { showError(e); }
}

function updateQueryCameras() {
  if (!state.viewer || !state.selected) return;
  const code = state.selected.details.mapCode;
  state.viewer.setQueries(state.queries.filter((q) => q.camera && q.answeredMap === code).map((q) => q.camera));
}

// Live queries

function startLive() {
  api.json('/v1/console/queries').then((r) => {
    for (const q of r.queries) addQuery(q, false);
    state.stopStream = api.followEvents(`/v1/console/queries/stream`, (type, data) => {
      if (type === 'query') addQuery(JSON.parse(data), true);
    }, (s) => { $('live-state').textContent = s; });
  }).catch(showError);
  refreshUsage();
}

function addQuery(q, fresh) {
  if (state.queries.some((x) => x.sequence === q.sequence)) return;
  state.queries.push(q);
  if (state.queries.length > 200) state.queries.shift();
  const stages = Object.entries(q.stages || {}).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ');
  const row = el('tr', { 'data-seq': String(q.sequence), 'data-target': q.target || '', class: fresh ? 'new' : '' },
    el('td', {}, new Date(q.time).toLocaleTimeString()), el('td', { class: 'mono' }, q.target || '—'), el('td', {}, q.mode),
    el('td', { class: q.poseFound ? 'found' : 'lost' }, q.poseFound ? 'found' : 'not found'), el('td', {}, fixed(q.confidence)),
    el('td', {}, fixed(q.inlierMargin)), el('td', {}, `${q.milliseconds} ms`), el('td', { class: 'hint' }, stages),
    el('td', { class: 'lost' }, q.failure || ''));
  $('live-list').prepend(row);
  while ($('live-list').children.length > 100) $('live-list').lastChild.remove();
  if (fresh) { updateQueryCameras(); refreshUsage(); }
}

async function refreshUsage() {
  try { state.usage = await api.json('/v1/console/usage'); } catch (_) { return; }
  renderUsage();
  renderLiveChart();
}

function renderUsage() {
  if (!state.usage || !state.selected) return;
  const code = state.selected.details.mapCode;
  const m = state.usage.maps.find((x) => x.target === code) || { minutes: [], queries: 0, found: 0 };
  drawUsage($('usage-chart'), m.minutes, state.usage.now);
  $('usage-summary').textContent = `${m.queries} queries in the last 2 h, ${m.queries ? Math.round(100 * m.found / m.queries) : 0}% with a pose`;
}

function renderLiveChart() {
  if (!state.usage) return;
  document.querySelector('#usage tbody').replaceChildren(...state.usage.maps.map((m) => {
    const share = m.queries ? m.found / m.queries : 0;
    return el('tr', { 'data-target': m.target }, el('td', { class: 'mono' }, m.target), el('td', {}, String(m.queries)),
      el('td', {}, String(m.found)), el('td', {}, el('span', { class: 'bar', 'data-share': String(share) }), ` ${Math.round(100 * share)}%`));
  }));
  for (const bar of document.querySelectorAll('#usage .bar')) bar.style.width = `${Math.round(60 * Number(bar.dataset.share))}px`;
  const all = new Map();
  for (const m of state.usage.maps) for (const x of m.minutes) {
    const s = all.get(x.minute) || { minute: x.minute, queries: 0, found: 0 };
    s.queries += x.queries; s.found += x.found; all.set(x.minute, s);
  }
  drawUsage($('live-chart'), [...all.values()], state.usage.now, 60);
}

// Clients (admin)

async function loadClients() {
  const r = await api.json('/v1/console/clients');
  document.querySelector('#clients tbody').replaceChildren(...r.clients.map((c) => el('tr', { 'data-client': c.id },
    el('td', { class: 'mono' }, c.id), el('td', {}, c.name), el('td', {}, c.scopes.join(' ')),
    el('td', { class: c.revoked ? 'lost' : 'found' }, c.revoked ? 'revoked' : 'active'), el('td', {}, when(c.createdAt)),
    el('td', {}, c.revoked || c.id === state.session.clientId ? '' : el('button', { type: 'button', class: 'small danger', onclick: () => revoke(c) }, 'Revoke')))));
}

async function revoke(c) {
  if (!confirm(`Revoke ${c.name} (${c.id})? Its tokens stop working at once.`)) return;
  try { await api.json(`/v1/console/clients/${c.id}/revoke`, { method: 'POST' }); await loadClients(); } catch (e) { showError(e); }
}

$('client-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const scopes = ['query', 'write', 'admin'].filter((s) => $(`scope-${s}`).checked);
  try {
    const r = await api.json('/v1/console/clients', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: $('client-name').value.trim(), scopes }),
    });
    const box = $('client-secret-once');
    box.textContent = `client id: ${r.client.id}   client secret: ${r.secret}   (shown only now)`;
    box.hidden = false;
    $('client-name').value = '';
    await loadClients();
  } catch (e) { showError(e); }
});
