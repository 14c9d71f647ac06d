// Reads the files of a .zip archive (stored or deflated entries) with the browser's own
// DecompressionStream; enough for a capture folder zipped by any common tool.

async function inflate(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The archive's files as [{ path, bytes }], directories left out. */
export async function readZip(arrayBuffer) {
  const view = new DataView(arrayBuffer);
  const bytes = new Uint8Array(arrayBuffer);
  let end = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 65557); i--) {
    if (view.getUint32(i, true) === 0x06054b50) { end = i; break; }
  }
  if (end < 0) throw new Error('not a zip archive (no end of central directory)');
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const files = [];
  for (let n = 0; n < count; n++) {
    if (view.getUint32(at, true) !== 0x02014b50) throw new Error('corrupt zip central directory');
    const method = view.getUint16(at + 10, true);
    const compressed = view.getUint32(at + 20, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const local = view.getUint32(at + 42, true);
    const path = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extraLength + commentLength;
    if (path.endsWith('/')) continue;
    const dataStart = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const raw = bytes.subarray(dataStart, dataStart + compressed);
    if (method === 0) files.push({ path, bytes: raw.slice() });
    else if (method === 8) files.push({ path, bytes: await inflate(raw) });
    else throw new Error(`${path}: unsupported zip compression method ${method}`);
  }
  return files;
}

/** The capture dataset inside an archive: paths relative to the folder holding captures.json. */
export function captureParts(files) {
  const index = files.find((f) => f.path === 'captures.json' || f.path.endsWith('/captures.json'));
  if (!index) throw new Error('the archive has no captures.json');
  const root = index.path.slice(0, index.path.length - 'captures.json'.length);
  return files.filter((f) => f.path.startsWith(root) && !f.path.split('/').some((s) => s.startsWith('.')))
    .map((f) => ({ path: f.path.slice(root.length), bytes: f.bytes }));
}
