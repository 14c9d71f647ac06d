// A small bar chart on a canvas: queries per minute (bars) and the share with a pose found (line).

/** Draws `minutes` ([{ minute, queries, found }]) over the `span` minutes ending at `now`. */
export function drawUsage(canvas, minutes, now, span = 30) {
  const ctx = canvas.getContext('2d');
  const w = canvas.width, h = canvas.height, left = 30, bottom = 18, top = 8;
  ctx.clearRect(0, 0, w, h);
  ctx.fillStyle = '#0b0c0f';
  ctx.fillRect(0, 0, w, h);
  const byMinute = new Map(minutes.map((m) => [m.minute, m]));
  const peak = Math.max(1, ...minutes.map((m) => m.queries));
  const slot = (w - left - 6) / span;
  ctx.font = '10px sans-serif';
  ctx.fillStyle = '#9aa1ad';
  ctx.fillText(String(peak), 4, top + 8);
  ctx.fillText('0', 4, h - bottom);
  ctx.fillText(`last ${span} min`, left, h - 4);
  ctx.fillText('success %', w - 62, h - 4);
  let previous = null;
  for (let i = 0; i < span; i++) {
    const m = byMinute.get(now - span + 1 + i);
    const x = left + i * slot;
    if (!m) { previous = null; continue; }
    const bar = (h - bottom - top) * m.queries / peak;
    ctx.fillStyle = '#4f9dff';
    ctx.fillRect(x + 1, h - bottom - bar, Math.max(1, slot - 2), bar);
    const y = h - bottom - (h - bottom - top) * (m.found / m.queries);
    ctx.fillStyle = '#4cd07d';
    ctx.fillRect(x + slot / 2 - 2, y - 2, 4, 4);
    if (previous) {
      ctx.strokeStyle = '#4cd07d';
      ctx.beginPath(); ctx.moveTo(previous[0], previous[1]); ctx.lineTo(x + slot / 2, y); ctx.stroke();
    }
    previous = [x + slot / 2, y];
  }
}
