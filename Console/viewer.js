// A WebGL viewer of one map: the point cloud in its colours, the mesh, keyframe camera frusta, the
// georeference axes and localized query cameras; orbit (drag), pan (shift- or right-drag), zoom (wheel),
// click a keyframe to pick it. The map frame is right-handed with +Y up (metres); cameras come as
// mapFromCamera in computer-vision axes (x right, y down, z forward).

const POINT_VS = `
attribute vec3 position; attribute vec3 color;
uniform mat4 viewProjection; uniform float pointSize;
varying vec3 vColor;
void main() { gl_Position = viewProjection * vec4(position, 1.0); gl_PointSize = pointSize; vColor = color; }`;
const POINT_FS = `
precision mediump float; varying vec3 vColor; uniform float alpha;
void main() { gl_FragColor = vec4(vColor, alpha); }`;

// The full-canvas quad of the splatted points (see Viewer.splat).
const QUAD_VS = `
attribute vec2 corner; varying vec2 uv;
void main() { uv = vec2((corner.x + 1.0) / 2.0, (1.0 - corner.y) / 2.0); gl_Position = vec4(corner, 0.0, 1.0); }`;
const QUAD_FS = `
precision mediump float; varying vec2 uv; uniform sampler2D image;
void main() { gl_FragColor = texture2D(image, uv); }`;

/** True for renderers that draw in software (SwiftShader, llvmpipe): there each GL point costs ~1 µs. */
function softwareRenderer(gl) {
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  const name = info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER);
  return { name, software: /swiftshader|llvmpipe|softpipe|software/i.test(String(name)) };
}

function compile(gl, vs, fs) {
  const program = gl.createProgram();
  for (const [type, text] of [[gl.VERTEX_SHADER, vs], [gl.FRAGMENT_SHADER, fs]]) {
    const shader = gl.createShader(type);
    gl.shaderSource(shader, text);
    gl.compileShader(shader);
    if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(shader));
    gl.attachShader(program, shader);
  }
  gl.linkProgram(program);
  if (!gl.getProgramParameter(program, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(program));
  return program;
}

// Column-major 4×4 matrices.
function multiply(a, b) {
  const out = new Float32Array(16);
  for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) {
    let s = 0;
    for (let k = 0; k < 4; k++) s += a[k * 4 + r] * b[c * 4 + k];
    out[c * 4 + r] = s;
  }
  return out;
}
function perspective(fovy, aspect, near, far) {
  const f = 1 / Math.tan(fovy / 2), nf = 1 / (near - far);
  return new Float32Array([f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) * nf, -1, 0, 0, 2 * far * near * nf, 0]);
}
function lookAt(eye, target, up) {
  const z = normalize(sub(eye, target)), x = normalize(cross(up, z)), y = cross(z, x);
  return new Float32Array([x[0], y[0], z[0], 0, x[1], y[1], z[1], 0, x[2], y[2], z[2], 0,
    -dot(x, eye), -dot(y, eye), -dot(z, eye), 1]);
}
const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const add = (a, b) => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const scale = (a, s) => [a[0] * s, a[1] * s, a[2] * s];
const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const normalize = (a) => { const n = Math.hypot(a[0], a[1], a[2]) || 1; return [a[0] / n, a[1] / n, a[2] / n]; };

/** Rotates v by the unit quaternion q = [x, y, z, w]. */
export function rotate(q, v) {
  const [x, y, z, w] = q;
  const u = [x, y, z];
  const t = scale(cross(u, v), 2);
  return add(add(v, scale(t, w)), cross(u, t));
}

/** The 16 line endpoints of a camera's frustum at `depth` metres (apex to corners, then the rectangle). */
export function frustumLines(camera, intrinsics, depth) {
  const { width, height, fx, fy, cx, cy } = intrinsics;
  const corners = [[0, 0], [width, 0], [width, height], [0, height]].map(([u, v]) =>
    add(camera.position, rotate(camera.rotation, [(u - cx) / fx * depth, (v - cy) / fy * depth, depth])));
  const apex = camera.position;
  const lines = [];
  for (let i = 0; i < 4; i++) lines.push(apex, corners[i], corners[i], corners[(i + 1) % 4]);
  return lines;
}

export class Viewer {
  constructor(canvas) {
    this.canvas = canvas;
    const gl = canvas.getContext('webgl', { antialias: false, preserveDrawingBuffer: false, alpha: false });
    if (!gl) throw new Error('WebGL is not available in this browser');
    this.gl = gl;
    this.uintIndices = !!gl.getExtension('OES_element_index_uint');
    this.program = compile(gl, POINT_VS, POINT_FS);
    this.loc = {
      position: gl.getAttribLocation(this.program, 'position'), color: gl.getAttribLocation(this.program, 'color'),
      viewProjection: gl.getUniformLocation(this.program, 'viewProjection'),
      pointSize: gl.getUniformLocation(this.program, 'pointSize'), alpha: gl.getUniformLocation(this.program, 'alpha'),
    };
    this.quad = compile(gl, QUAD_VS, QUAD_FS);
    this.quadCorner = gl.getAttribLocation(this.quad, 'corner');
    this.quadBuffer = this.buffer(new Float32Array([-1, -1, 1, -1, -1, 1, 1, 1]));
    this.texture = null;
    // How points are drawn: 'gl' (one GL point each) or 'splat' (projected and depth-tested here, on the
    // CPU, into an image the GPU then draws): on a software renderer the per-primitive cost of 100,000 GL
    // points is ~100 ms a frame, while splatting them costs a few milliseconds.
    const renderer = softwareRenderer(gl);
    this.renderer = renderer.name;
    this.pointMode = renderer.software ? 'splat' : 'gl';
    // A software renderer also draws at three quarters of the canvas's size (the page scales the image
    // up): every frame's pixels are copied, drawn and composited on the CPU there.
    if (renderer.software) {
      canvas.width = Math.round(canvas.width * 0.75);
      canvas.height = Math.round(canvas.height * 0.75);
    }
    this.layers = { points: null, mesh: null, frusta: null, queries: null, axes: null };
    this.visible = { points: true, mesh: true, frusta: true, queries: true };
    this.keyframes = [];
    this.queries = [];
    this.target = [0, 0, 0];
    this.yaw = 0.8; this.pitch = 0.5; this.distance = 10;
    this.frameCount = 0;
    this.fps = 0;
    this.onPick = null;
    this.dirty = true;
    this.installControls();
    const tick = (t) => {
      if (this.dirty || this.spinning) { this.draw(); this.dirty = false; this.count(t); }
      this.raf = requestAnimationFrame(tick);
    };
    this.raf = requestAnimationFrame(tick);
  }

  count(t) {
    this.frameCount++;
    if (!this.fpsStart) { this.fpsStart = t; this.fpsFrames = 0; }
    this.fpsFrames++;
    if (t - this.fpsStart >= 1000) { this.fps = this.fpsFrames * 1000 / (t - this.fpsStart); this.fpsStart = t; this.fpsFrames = 0; }
  }

  buffer(data) {
    const gl = this.gl, b = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, b);
    gl.bufferData(gl.ARRAY_BUFFER, data, gl.STATIC_DRAW);
    return b;
  }

  /** Points from the `VPSPTS01` encoding (docs/FORMATS.md). */
  setPoints(arrayBuffer) {
    const view = new DataView(arrayBuffer);
    const magic = new TextDecoder().decode(new Uint8Array(arrayBuffer, 0, 8));
    if (magic !== 'VPSPTS01') throw new Error('not a VPSPTS01 point buffer');
    const n = view.getUint32(8, true);
    const positions = new Float32Array(arrayBuffer.slice(12, 12 + 12 * n));
    const colors = new Uint8Array(arrayBuffer.slice(12 + 12 * n, 12 + 15 * n));
    this.layers.points = { position: this.buffer(positions), color: this.buffer(colors), colorType: this.gl.UNSIGNED_BYTE, count: n, mode: this.gl.POINTS };
    this.cloud = { positions, packed: new Uint32Array(n), n };
    const little = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
    for (let i = 0; i < n; i++) {
      const r = colors[3 * i], g = colors[3 * i + 1], b = colors[3 * i + 2];
      this.cloud.packed[i] = little ? (0xff000000 | (b << 16) | (g << 8) | r) >>> 0 : ((r << 24) | (g << 16) | (b << 8) | 0xff) >>> 0;
    }
    this.pointCount = n;
    this.dirty = true;
    return positions;
  }

  /** Frames the view on an axis-aligned box [minX, minY, minZ, maxX, maxY, maxZ]. */
  frame(bounds) {
    if (!bounds) return;
    this.target = [(bounds[0] + bounds[3]) / 2, (bounds[1] + bounds[4]) / 2, (bounds[2] + bounds[5]) / 2];
    const size = Math.max(bounds[3] - bounds[0], bounds[4] - bounds[1], bounds[5] - bounds[2], 0.5);
    this.distance = size * 1.05;
    this.size = size;
    this.dirty = true;
  }

  lineLayer(lines, rgb) {
    const positions = new Float32Array(lines.flat());
    const colors = new Float32Array(lines.length * 3);
    for (let i = 0; i < lines.length; i++) colors.set(rgb(i), 3 * i);
    return { position: this.buffer(positions), color: this.buffer(colors), count: lines.length, mode: this.gl.LINES };
  }

  setKeyframes(keyframes) {
    this.keyframes = keyframes;
    const depth = Math.max(0.1, (this.size || 4) * 0.03);
    const lines = [];
    for (const k of keyframes) lines.push(...frustumLines(k.camera, k, depth));
    this.layers.frusta = lines.length ? this.lineLayer(lines, () => [0.31, 0.62, 1]) : null;
    this.dirty = true;
  }

  /** Query cameras (drawn with the intrinsics of the map's first keyframe, or a 60° camera). */
  setQueries(cameras) {
    this.queries = cameras;
    const k = this.keyframes[0] || { width: 640, height: 480, fx: 554, fy: 554, cx: 320, cy: 240 };
    const depth = Math.max(0.15, (this.size || 4) * 0.05);
    const lines = [];
    for (const c of cameras) lines.push(...frustumLines(c, k, depth));
    this.layers.queries = lines.length ? this.lineLayer(lines, () => [1, 0.6, 0.15]) : null;
    this.dirty = true;
  }

  /** East (red), up (green), north (blue) at the map origin. */
  setAxes(geo) {
    if (!geo) { this.layers.axes = null; this.dirty = true; return; }
    const length = Math.max(0.5, (this.size || 4) * 0.25);
    const o = [0, 0, 0];
    const lines = [o, scale(geo.east, length), o, scale(geo.up, length), o, scale(geo.north, length)];
    const colors = [[1, 0.25, 0.25], [0.3, 1, 0.3], [0.35, 0.5, 1]];
    this.layers.axes = this.lineLayer(lines, (i) => colors[i >> 1]);
    this.dirty = true;
  }

  /** A triangle mesh from a GLB (the first TRIANGLES primitives; nodes without transforms, as our maps write). */
  setMesh(arrayBuffer) {
    this.layers.mesh = null;
    const gl = this.gl;
    const view = new DataView(arrayBuffer);
    if (arrayBuffer.byteLength < 20 || view.getUint32(0, true) !== 0x46546c67) return false;
    const jsonLength = view.getUint32(12, true);
    const doc = JSON.parse(new TextDecoder().decode(new Uint8Array(arrayBuffer, 20, jsonLength)));
    const binStart = 20 + jsonLength + 8;
    const accessor = (i, Kind, components) => {
      const a = doc.accessors[i], bv = doc.bufferViews[a.bufferView];
      const offset = binStart + (bv.byteOffset || 0) + (a.byteOffset || 0);
      return new Kind(arrayBuffer.slice(offset, offset + a.count * components * Kind.BYTES_PER_ELEMENT));
    };
    const positions = [], indices = [];
    let base = 0;
    for (const mesh of doc.meshes || []) for (const p of mesh.primitives || []) {
      if ((p.mode ?? 4) !== 4 || p.attributes.POSITION === undefined) continue;
      const pos = accessor(p.attributes.POSITION, Float32Array, 3);
      positions.push(pos);
      const count = pos.length / 3;
      if (p.indices !== undefined) {
        const a = doc.accessors[p.indices];
        const Kind = a.componentType === 5125 ? Uint32Array : a.componentType === 5123 ? Uint16Array : Uint8Array;
        for (const i of accessor(p.indices, Kind, 1)) indices.push(i + base);
      } else for (let i = 0; i < count; i++) indices.push(i + base);
      base += count;
    }
    if (!indices.length) return false;
    const all = new Float32Array(base * 3);
    let at = 0;
    for (const p of positions) { all.set(p, at); at += p.length; }
    // Lines of every triangle edge: readable over the points without lighting.
    const lines = new Float32Array(indices.length * 6);
    for (let t = 0; t + 2 < indices.length; t += 3) for (let e = 0; e < 3; e++) {
      const a = indices[t + e], b = indices[t + (e + 1) % 3];
      lines.set(all.subarray(3 * a, 3 * a + 3), (t + e) * 6);
      lines.set(all.subarray(3 * b, 3 * b + 3), (t + e) * 6 + 3);
    }
    const colors = new Float32Array(lines.length).fill(0.55);
    this.layers.mesh = { position: this.buffer(lines), color: this.buffer(colors), count: lines.length / 3, mode: gl.LINES, alpha: 0.35 };
    this.dirty = true;
    return true;
  }

  eye() {
    const cp = Math.cos(this.pitch);
    return add(this.target, [this.distance * cp * Math.sin(this.yaw), this.distance * Math.sin(this.pitch),
      this.distance * cp * Math.cos(this.yaw)]);
  }

  viewProjection() {
    const aspect = this.canvas.width / this.canvas.height;
    const near = Math.max(0.01, this.distance / 1000), far = this.distance * 20 + 100;
    return multiply(perspective(Math.PI / 3.2, aspect, near, far), lookAt(this.eye(), this.target, [0, 1, 0]));
  }

  draw() {
    const gl = this.gl;
    gl.viewport(0, 0, this.canvas.width, this.canvas.height);
    gl.clearColor(0.043, 0.047, 0.059, 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.enable(gl.DEPTH_TEST);
    gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
    const viewProjection = this.viewProjection();
    const pointSize = Math.max(1.5, Math.min(4, 2.2 * 10 / Math.max(1, this.distance / Math.max(1, (this.size || 4) / 4))));
    const splat = this.pointMode === 'splat' && this.cloud && this.visible.points !== false;
    if (splat) this.splat(viewProjection, pointSize);
    gl.useProgram(this.program);
    gl.uniformMatrix4fv(this.loc.viewProjection, false, viewProjection);
    for (const [name, layer] of Object.entries(this.layers)) {
      if (!layer || this.visible[name] === false || (splat && name === 'points')) continue;
      gl.uniform1f(this.loc.pointSize, pointSize);
      gl.uniform1f(this.loc.alpha, layer.alpha || 1);
      if (layer.alpha) gl.enable(gl.BLEND); else gl.disable(gl.BLEND);
      gl.bindBuffer(gl.ARRAY_BUFFER, layer.position);
      gl.enableVertexAttribArray(this.loc.position);
      gl.vertexAttribPointer(this.loc.position, 3, gl.FLOAT, false, 0, 0);
      gl.bindBuffer(gl.ARRAY_BUFFER, layer.color);
      gl.enableVertexAttribArray(this.loc.color);
      gl.vertexAttribPointer(this.loc.color, 3, layer.colorType || gl.FLOAT, !!layer.colorType, 0, 0);
      gl.drawArrays(layer.mode, 0, layer.count);
    }
  }

  /**
   * Draws the points into an image on the CPU (perspective projection, a depth buffer, squares of
   * `size` pixels), then that image over the canvas; the lines drawn after it stay on top.
   */
  splat(m, size) {
    const gl = this.gl, w = this.canvas.width, h = this.canvas.height;
    if (!this.splatImage || this.splatImage.w !== w || this.splatImage.h !== h) {
      this.splatImage = { w, h, pixels: new Uint32Array(w * h), depth: new Float32Array(w * h) };
      this.texture = gl.createTexture();
      gl.bindTexture(gl.TEXTURE_2D, this.texture);
      for (const [k, v] of [[gl.TEXTURE_MIN_FILTER, gl.NEAREST], [gl.TEXTURE_MAG_FILTER, gl.NEAREST],
        [gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE], [gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE]]) gl.texParameteri(gl.TEXTURE_2D, k, v);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, w, h, 0, gl.RGBA, gl.UNSIGNED_BYTE, null);
    }
    const t0 = performance.now();
    const { pixels, depth } = this.splatImage;
    const little = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
    pixels.fill(little ? 0xff0f0c0b : 0x0b0c0fff);
    depth.fill(Infinity);
    const { positions: p, packed, n } = this.cloud;
    const m0 = m[0], m1 = m[1], m3 = m[3], m4 = m[4], m5 = m[5], m7 = m[7], m8 = m[8], m9 = m[9], m11 = m[11];
    const m12 = m[12], m13 = m[13], m15 = m[15];
    const s = Math.max(1, Math.round(size)), half = (s - 1) >> 1, hw = w / 2, hh = h / 2;
    for (let i = 0, j = 0; i < n; i++, j += 3) {
      const x = p[j], y = p[j + 1], z = p[j + 2];
      const cw = m3 * x + m7 * y + m11 * z + m15;
      if (cw <= 1e-3) continue;
      const px = ((m0 * x + m4 * y + m8 * z + m12) / cw + 1) * hw - half | 0;
      const py = (1 - (m1 * x + m5 * y + m9 * z + m13) / cw) * hh - half | 0;
      if (px < 0 || py < 0 || px + s > w || py + s > h) continue;
      const color = packed[i];
      for (let dy = 0; dy < s; dy++) {
        let k = (py + dy) * w + px;
        for (let dx = 0; dx < s; dx++, k++) if (cw < depth[k]) { depth[k] = cw; pixels[k] = color; }
      }
    }
    const t1 = performance.now();
    gl.bindTexture(gl.TEXTURE_2D, this.texture);
    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(pixels.buffer));
    this.splatMs = { project: t1 - t0, upload: performance.now() - t1 };
    gl.disable(gl.DEPTH_TEST);
    gl.disable(gl.BLEND);
    gl.disableVertexAttribArray(this.loc.position);
    gl.disableVertexAttribArray(this.loc.color);
    gl.useProgram(this.quad);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.quadBuffer);
    gl.enableVertexAttribArray(this.quadCorner);
    gl.vertexAttribPointer(this.quadCorner, 2, gl.FLOAT, false, 0, 0);
    gl.drawArrays(gl.TRIANGLE_STRIP, 0, 4);
    gl.disableVertexAttribArray(this.quadCorner);
    gl.enable(gl.DEPTH_TEST);
  }

  /** Screen position (canvas pixels) of a map point, or null behind the camera. */
  project(p) {
    const m = this.viewProjection();
    const x = m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12];
    const y = m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13];
    const w = m[3] * p[0] + m[7] * p[1] + m[11] * p[2] + m[15];
    if (w <= 0) return null;
    return [(x / w + 1) / 2 * this.canvas.width, (1 - y / w) / 2 * this.canvas.height];
  }

  /** The keyframe whose camera centre is nearest to a canvas pixel (within 14 px). */
  pick(px, py) {
    let best = null, bestDistance = 14;
    for (const k of this.keyframes) {
      const s = this.project(k.camera.position);
      if (!s) continue;
      const d = Math.hypot(s[0] - px, s[1] - py);
      if (d < bestDistance) { best = k; bestDistance = d; }
    }
    return best;
  }

  installControls() {
    const c = this.canvas;
    let drag = null;
    c.addEventListener('contextmenu', (e) => e.preventDefault());
    c.addEventListener('pointerdown', (e) => {
      drag = { x: e.clientX, y: e.clientY, moved: 0, pan: e.shiftKey || e.button === 2 };
      c.setPointerCapture(e.pointerId);
    });
    c.addEventListener('pointermove', (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      drag.x = e.clientX; drag.y = e.clientY; drag.moved += Math.abs(dx) + Math.abs(dy);
      if (drag.pan) {
        const forward = normalize(sub(this.target, this.eye()));
        const right = normalize(cross(forward, [0, 1, 0])), up = cross(right, forward);
        const k = this.distance / c.clientHeight;
        this.target = add(this.target, add(scale(right, -dx * k), scale(up, dy * k)));
      } else {
        this.yaw -= dx * 0.008;
        this.pitch = Math.max(-1.5, Math.min(1.5, this.pitch + dy * 0.008));
      }
      this.dirty = true;
    });
    c.addEventListener('pointerup', (e) => {
      if (drag && drag.moved < 4 && this.onPick) {
        const r = c.getBoundingClientRect();
        const k = this.pick((e.clientX - r.left) * c.width / r.width, (e.clientY - r.top) * c.height / r.height);
        if (k) this.onPick(k);
      }
      drag = null;
    });
    c.addEventListener('wheel', (e) => {
      e.preventDefault();
      this.distance = Math.max(0.05, this.distance * Math.exp(e.deltaY * 0.001));
      this.dirty = true;
    }, { passive: false });
  }

  /**
   * Redraws every animation frame for `ms` milliseconds while turning, and answers the frames per
   * second; `mode` ('gl' or 'splat') overrides how points are drawn for the run.
   */
  benchmark(ms, mode) {
    const chosen = this.pointMode;
    if (mode) this.pointMode = mode;
    return new Promise((resolve) => {
      let frames = 0, start = null;
      const step = (t) => {
        if (start === null) start = t;
        this.yaw += 0.01;
        this.draw();
        frames++;
        if (t - start < ms) { requestAnimationFrame(step); return; }
        // Then frames drawn and waited for one by one (readPixels waits for the GPU): the cost of a draw alone.
        const pixel = new Uint8Array(4), n = 10, t0 = performance.now();
        for (let i = 0; i < n; i++) {
          this.yaw += 0.01;
          this.draw();
          this.gl.readPixels(0, 0, 1, 1, this.gl.RGBA, this.gl.UNSIGNED_BYTE, pixel);
        }
        const syncMs = (performance.now() - t0) / n;
        const splatMs = this.splatMs;
        const result = { fps: frames * 1000 / (t - start), frames, ms: t - start, points: this.pointCount || 0, syncMs,
          width: this.canvas.width, height: this.canvas.height, mode: this.pointMode, chosen, renderer: this.renderer, splatMs };
        this.pointMode = chosen;
        this.dirty = true;
        resolve(result);
      };
      requestAnimationFrame(step);
    });
  }

  /** How many canvas pixels differ from the background (a check that something was drawn). */
  litPixels() {
    const gl = this.gl, w = this.canvas.width, h = this.canvas.height;
    this.draw();
    const px = new Uint8Array(w * h * 4);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
    let lit = 0;
    for (let i = 0; i < px.length; i += 4) if (Math.abs(px[i] - 11) + Math.abs(px[i + 1] - 12) + Math.abs(px[i + 2] - 15) > 24) lit++;
    return lit;
  }
}
