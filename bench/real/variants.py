#!/usr/bin/env python3
"""Stress variants of real scenes with true poses, for what a development set does not show.

Reads every scene of ``--data`` (a folder of ``<scene>/{images,sparse}``, COLMAP text models with
PINHOLE cameras, as ``../shared/data/real-dev``) and writes, per scene, under ``--out``:

- ``<scene>-half``: every second image (baselines twice as wide, half the views);
- ``<scene>-mixcam``: three cameras in one model — every third image from the second on resized to
  0.6× (614×409 for the dev set), every third from the third on turned to portrait (90° clockwise,
  intrinsics and pose turned with it), the rest as they were;
- ``<scene>-distort``: each image warped through an OPENCV lens model (k1 = 0.12 or −0.18 on
  alternate images, k2 = 0.04, small tangential terms), the model written as OPENCV;
- ``<scene>-fisheye``: wider lenses of COLMAP's other models — even images through OPENCV_FISHEYE
  (focal length 0.8×, black where the original saw nothing), odd ones through FULL_OPENCV (rational);
- ``<scene>-exposure``: gamma 0.6 / 1.0 / 1.7 in turn, a gain of 0.7–1.3 and a colour cast per image
  (cameras that render the same light differently);
- ``<scene>-zoom``: every second image the central 60 % scaled back to full size (a 1.67× longer lens);
- ``<scene>-noise``: Gaussian noise of σ 8 grey levels after a slight blur (a small sensor in dim light);
- ``<scene>-upscale``: every image enlarged 3× by cubic interpolation, at the size of the Strecha
  originals (3069×2046 for the dev set): pixel thresholds, pyramids and budgets of a high-resolution
  camera's files (not its detail);
- ``<scene>-tiny``, ``<scene>-large`` and ``<scene>-huge``: the same images with the world scaled by
  0.02, 4 and 30 (a tabletop, a courtyard and a city block seen the same way; errors scale with it;
  counts need not fall until σ nears the 0.5 m wrong-answer limit).

Each variant is a COLMAP text model (``points3D.txt`` empty) that ``multiset eval --colmap`` and
``bench/real/peer.py`` both read, so ``REAL_DATA=<out> bash bench/real/run.sh`` compares them.
Images are re-encoded as JPEG (quality 92), which alone moves medians of 8–11 images by up to ±25 %.
COLMAP's pixel convention throughout (the centre of the top-left pixel at (0.5, 0.5)).

Usage: ``python bench/real/variants.py --data ../shared/data/real-dev --out /tmp/variants``
(needs OpenCV and NumPy: ``make .venv/.ok``).
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import cv2
import numpy as np

# Quarter turn of the camera frame for a 90° clockwise image turn: x' = -y, y' = x.
TURN = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
TURN_Q = np.array([np.sqrt(0.5), 0.0, 0.0, np.sqrt(0.5)])  # (w, x, y, z) of TURN


def read_scene(scene: Path) -> list[dict]:
    """Images of a COLMAP text model: pose (quaternion w, x, y, z and translation) and camera."""
    cams = {}
    for line in (scene / "sparse/cameras.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            cid, model, w, h, *p = line.split()
            if model != "PINHOLE":
                raise SystemExit(f"{scene}: camera {cid} is {model}; variants start from PINHOLE models")
            cams[int(cid)] = (int(w), int(h), [float(x) for x in p])
    rows = [ln for ln in (scene / "sparse/images.txt").read_text().splitlines() if not ln.startswith("#")]
    images = []
    for header in rows[::2]:
        if not header.strip():
            continue
        _, qw, qx, qy, qz, tx, ty, tz, cid, name = header.split()
        images.append({"q": np.array([float(qw), float(qx), float(qy), float(qz)]),
                       "t": np.array([float(tx), float(ty), float(tz)]), "name": name,
                       "cam": ("PINHOLE", *cams[int(cid)]), "path": scene / "images" / name})
    return images


def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product (w, x, y, z)."""
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def loaded(image: dict) -> dict:
    out = dict(image)
    out["pixels"] = cv2.imread(str(image["path"]), cv2.IMREAD_COLOR)
    return out


def resized(image: dict, s: float) -> dict:
    _, w, h, (fx, fy, cx, cy) = image["cam"]
    W, H = round(w * s), round(h * s)
    out = dict(image)
    # Area averaging to shrink, cubic interpolation to enlarge.
    interpolation = cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC
    out["pixels"] = cv2.resize(image["pixels"], (W, H), interpolation=interpolation)
    out["cam"] = ("PINHOLE", W, H, [fx * W / w, fy * H / h, cx * W / w, cy * H / h])
    return out


def portrait(image: dict) -> dict:
    _, w, h, (fx, fy, cx, cy) = image["cam"]
    out = dict(image)
    out["pixels"] = cv2.rotate(image["pixels"], cv2.ROTATE_90_CLOCKWISE)
    out["cam"] = ("PINHOLE", h, w, [fy, fx, h - cy, cx])
    out["q"] = quat_mul(TURN_Q, image["q"])
    out["t"] = TURN @ image["t"]
    return out


def distorted(image: dict, k1: float, k2: float, p1: float, p2: float) -> dict:
    """The image as a lens with OpenCV's distortion (k1, k2, p1, p2) would have taken it."""
    _, w, h, (fx, fy, cx, cy) = image["cam"]
    K = np.array([[fx, 0, cx - 0.5], [0, fy, cy - 0.5], [0, 0, 1.0]])  # OpenCV's pixel convention
    uu, vv = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    grid = np.stack([uu.ravel(), vv.ravel()], 1).reshape(-1, 1, 2)
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 1e-6)
    source = cv2.undistortPoints(grid, K, np.array([k1, k2, p1, p2]), P=K, criteria=criteria).reshape(h, w, 2)
    out = dict(image)
    out["pixels"] = cv2.remap(image["pixels"], source[..., 0].astype(np.float32), source[..., 1].astype(np.float32),
                              cv2.INTER_CUBIC, borderMode=cv2.BORDER_CONSTANT)
    out["cam"] = ("OPENCV", w, h, [fx, fy, cx, cy, k1, k2, p1, p2])
    return out


def fisheye(image: dict, rational: bool) -> dict:
    """The image as a wider lens would have taken it: OpenCV's fisheye model (COLMAP OPENCV_FISHEYE,
    focal length 0.8×, k = 0.03, −0.01, 0.002, 0) or, with ``rational``, OpenCV's rational model
    (COLMAP FULL_OPENCV: k1..k6 = −0.25, 0.06, 0.01, 0.05, 0, 0, p1 = 0.0005, p2 = −0.0004)."""
    _, w, h, (fx, fy, cx, cy) = image["cam"]
    K = np.array([[fx, 0, cx - 0.5], [0, fy, cy - 0.5], [0, 0, 1.0]])  # OpenCV's pixel convention
    uu, vv = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    grid = np.stack([uu.ravel(), vv.ravel()], 1).reshape(-1, 1, 2)
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 1e-9)
    if rational:
        coeffs = [-0.25, 0.06, 0.0005, -0.0004, 0.01, 0.05, 0.0, 0.0]  # k1 k2 p1 p2 k3 k4 k5 k6
        cam = ("FULL_OPENCV", w, h, [fx, fy, cx, cy, *coeffs])
        source = cv2.undistortPoints(grid, K, np.array(coeffs), P=K, criteria=criteria).reshape(h, w, 2)
    else:
        coeffs = [0.03, -0.01, 0.002, 0.0]
        Kf = K.copy()
        Kf[0, 0], Kf[1, 1] = 0.8 * fx, 0.8 * fy
        cam = ("OPENCV_FISHEYE", w, h, [0.8 * fx, 0.8 * fy, cx, cy, *coeffs])
        source = cv2.fisheye.undistortPoints(grid, Kf, np.array(coeffs), P=K).reshape(h, w, 2)
    out = dict(image)
    out["pixels"] = cv2.remap(image["pixels"], source[..., 0].astype(np.float32), source[..., 1].astype(np.float32),
                              cv2.INTER_CUBIC, borderMode=cv2.BORDER_CONSTANT)
    out["cam"] = cam
    return out


def exposed(image: dict, index: int) -> dict:
    """Another camera's rendering of the same light: gamma 0.6 / 1.0 / 1.7 in turn, a gain of 0.7–1.3 and a
    colour cast of up to ±12 % per channel (seeded by the image's index)."""
    rng = np.random.default_rng(1000 + index)
    gamma = (0.6, 1.0, 1.7)[index % 3]
    gain = rng.uniform(0.7, 1.3) * rng.uniform(0.88, 1.12, size=3)
    x = (image["pixels"].astype(np.float64) / 255.0) ** gamma * gain
    out = dict(image)
    out["pixels"] = np.clip(x * 255.0 + 0.5, 0, 255).astype(np.uint8)
    return out


def zoomed(image: dict, s: float) -> dict:
    """A longer lens: the central fraction ``s`` of the image, scaled back to full size (focal length / s)."""
    _, w, h, (fx, fy, cx, cy) = image["cam"]
    x0, y0 = w * (1 - s) / 2, h * (1 - s) / 2
    # Output pixel (u, v) in COLMAP's convention sees input (x0 + s·u, y0 + s·v).
    M = np.array([[s, 0, x0 + 0.5 * s - 0.5], [0, s, y0 + 0.5 * s - 0.5]])
    out = dict(image)
    out["pixels"] = cv2.warpAffine(image["pixels"], M, (w, h), flags=cv2.INTER_CUBIC | cv2.WARP_INVERSE_MAP)
    out["cam"] = ("PINHOLE", w, h, [fx / s, fy / s, (cx - x0) / s, (cy - y0) / s])
    return out


def noisy(image: dict, index: int) -> dict:
    """A small sensor in dim light: Gaussian noise of σ 8 grey levels and a slight blur (σ 0.8 px)."""
    rng = np.random.default_rng(2000 + index)
    x = cv2.GaussianBlur(image["pixels"], (0, 0), 0.8).astype(np.float64)
    out = dict(image)
    out["pixels"] = np.clip(x + rng.normal(0, 8, x.shape) + 0.5, 0, 255).astype(np.uint8)
    return out


def world_scaled(image: dict, s: float) -> dict:
    out = dict(image)
    out["t"] = image["t"] * s
    return out


def write(folder: Path, images: list[dict]) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    (folder / "images").mkdir(parents=True)
    (folder / "sparse").mkdir()
    cameras, poses = [], []
    for i, image in enumerate(images, 1):
        model, w, h, p = image["cam"]
        cameras.append(f"{i} {model} {w} {h} " + " ".join(repr(float(x)) for x in p))
        pose = " ".join(repr(float(x)) for x in (*image["q"], *image["t"]))
        poses.append(f"{i} {pose} {i} {image['name']}\n")
        cv2.imwrite(str(folder / "images" / image["name"]), image["pixels"], [cv2.IMWRITE_JPEG_QUALITY, 92])
    (folder / "sparse/cameras.txt").write_text("\n".join(cameras) + "\n")
    (folder / "sparse/images.txt").write_text("".join(line + "\n" for line in poses))
    (folder / "sparse/points3D.txt").write_text("")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="folder of <scene>/{images,sparse}")
    parser.add_argument("--out", type=Path, required=True, help="where the variants go")
    args = parser.parse_args()
    scenes = sorted(d for d in args.data.iterdir() if (d / "sparse").is_dir())
    if not scenes:
        raise SystemExit(f"no scene with a sparse/ folder in {args.data}")
    for scene in scenes:
        images = read_scene(scene)
        name = scene.name
        write(args.out / f"{name}-half", [loaded(im) for im in images[::2]])
        write(args.out / f"{name}-mixcam", [
            resized(loaded(im), 0.6) if i % 3 == 1 else portrait(loaded(im)) if i % 3 == 2 else loaded(im)
            for i, im in enumerate(images)])
        write(args.out / f"{name}-distort", [
            distorted(loaded(im), -0.18 if i % 2 else 0.12, 0.04, 0.001, -0.0008) for i, im in enumerate(images)])
        write(args.out / f"{name}-fisheye", [fisheye(loaded(im), rational=bool(i % 2)) for i, im in enumerate(images)])
        write(args.out / f"{name}-exposure", [exposed(loaded(im), i) for i, im in enumerate(images)])
        write(args.out / f"{name}-zoom", [zoomed(loaded(im), 0.6) if i % 2 else loaded(im) for i, im in enumerate(images)])
        write(args.out / f"{name}-noise", [noisy(loaded(im), i) for i, im in enumerate(images)])
        write(args.out / f"{name}-upscale", [resized(loaded(im), 3.0) for im in images])
        write(args.out / f"{name}-tiny", [world_scaled(loaded(im), 0.02) for im in images])
        write(args.out / f"{name}-large", [world_scaled(loaded(im), 4.0) for im in images])
        write(args.out / f"{name}-huge", [world_scaled(loaded(im), 30.0) for im in images])
        print(f"variants: {name} -> {args.out}/{name}-{{half,mixcam,distort,fisheye,exposure,zoom,noise,upscale,tiny,large,huge}}")


if __name__ == "__main__":
    main()
