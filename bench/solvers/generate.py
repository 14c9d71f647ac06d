#!/usr/bin/env python3
"""Generate synthetic 2D-3D correspondence sets for the absolute-pose solver benchmark.

Writes ``DIR/sets_0.50.bin``, ``DIR/sets_0.75.bin`` and ``DIR/sets_0.90.bin`` (outlier ratios
0.5, 0.75, 0.9). Generation is deterministic for a given ``--seed``. The scene of set ``i``
(pose, 3D points, inlier noise, gravity) depends only on ``(seed, i)`` and is therefore the same
in all three files; only the choice of outliers and their pixels depends on the ratio.

Scene model
-----------
* Pinhole camera fx = fy = 500, cx = 320, cy = 240, 640 x 480 pixels. Pixel (0, 0) is the
  top-left corner of the top-left pixel; ``u = fx X/Z + cx``, ``v = fy Y/Z + cy``. Camera frame:
  +X right, +Y down, +Z forward.
* ``R`` (camFromWorld) is uniform on SO(3); the camera centre ``c`` is uniform in the cube
  [-10, 10]^3 m and ``t = -R c`` so that ``X_cam = R X_world + t``. World frame is Y-up.
* Each correspondence: a pixel uniform in the image and a depth uniform in [2, 10] m are
  back-projected and mapped to the world (``X_world = R^T (X_cam - t)``). Inliers store the true
  pixel plus N(0, 1 px^2) noise per coordinate; ``round(ratio * n)`` outliers, at random
  positions, store an independent uniform pixel instead (their 3D point is kept).
* ``gravity_cam`` is ``R (0, -1, 0)`` rotated by exactly 0.2 degrees about a random axis
  perpendicular to it (unit length).

Binary format (little-endian, no padding)
-----------------------------------------
File header::

    char[8]  magic "VPSBSOL1"
    uint32   S, number of sets
    uint32   reserved, 0

Then S sets, each::

    uint32      n, number of correspondences
    uint32      set index
    float64[4]  fx, fy, cx, cy
    uint32[2]   width, height
    float64[3]  gravity direction in the camera frame (unit, noisy)
    float64[9]  R, camFromWorld rotation, row-major
    float64[3]  t, camFromWorld translation (X_cam = R X_world + t)
    float64[5n] n records (u, v, X, Y, Z): pixel and world point
    uint8[n]    is_inlier (1 inlier, 0 outlier)
"""

from __future__ import annotations

import argparse
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAGIC = b"VPSBSOL1"
RATIOS = (0.5, 0.75, 0.9)
FX, FY, CX, CY = 500.0, 500.0, 320.0, 240.0
WIDTH, HEIGHT = 640, 480
CUBE_HALF_SIZE = 10.0
DEPTH_RANGE = (2.0, 10.0)
PIXEL_SIGMA = 1.0
GRAVITY_NOISE_DEG = 0.2
GRAVITY_WORLD = np.array([0.0, -1.0, 0.0])

_FILE_HEADER = struct.Struct("<8sII")
_SET_HEADER = struct.Struct("<II4dII3d9d3d")


@dataclass
class CorrespondenceSet:
    """One benchmark problem: intrinsics, ground-truth pose, gravity and correspondences."""

    index: int
    intrinsics: tuple[float, float, float, float]  # fx, fy, cx, cy
    size: tuple[int, int]  # width, height
    gravity_cam: np.ndarray  # (3,)
    R: np.ndarray  # (3, 3) camFromWorld
    t: np.ndarray  # (3,)
    points2d: np.ndarray  # (n, 2) float64
    points3d: np.ndarray  # (n, 3) float64, world frame
    is_inlier: np.ndarray  # (n,) bool

    @property
    def n(self) -> int:
        """Number of correspondences."""
        return len(self.points2d)


def sets_filename(ratio: float) -> str:
    """File name of the sets for an outlier ratio, e.g. ``sets_0.75.bin``."""
    return f"sets_{ratio:.2f}.bin"


def random_rotation(rng: np.random.Generator) -> np.ndarray:
    """Uniformly random rotation matrix (normalized Gaussian quaternion)."""
    w, x, y, z = rng.standard_normal(4)
    norm = np.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / norm, x / norm, y / norm, z / norm
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


def perturb_direction(g: np.ndarray, angle_deg: float, rng: np.random.Generator) -> np.ndarray:
    """Rotates unit vector ``g`` by ``angle_deg`` about a random axis perpendicular to it."""
    axis = rng.standard_normal(3)
    axis -= axis.dot(g) * g
    axis /= np.linalg.norm(axis)
    angle = np.radians(angle_deg)
    rotated = np.cos(angle) * g + np.sin(angle) * np.cross(axis, g)
    return rotated / np.linalg.norm(rotated)


def project(points_cam: np.ndarray) -> np.ndarray:
    """Pinhole projection of camera-frame points (n, 3) to pixels (n, 2)."""
    u = FX * points_cam[:, 0] / points_cam[:, 2] + CX
    v = FY * points_cam[:, 1] / points_cam[:, 2] + CY
    return np.stack([u, v], axis=1)


def uniform_pixels(rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` pixels uniform over the image area."""
    return rng.uniform([0.0, 0.0], [WIDTH, HEIGHT], size=(count, 2))


def make_scene(seed: int, index: int, n: int) -> CorrespondenceSet:
    """Outlier-free scene of set ``index``: pose, gravity, world points and noisy pixels."""
    rng = np.random.default_rng([seed, index])
    R = random_rotation(rng)
    centre = rng.uniform(-CUBE_HALF_SIZE, CUBE_HALF_SIZE, size=3)
    t = -R @ centre
    pixels = uniform_pixels(rng, n)
    depth = rng.uniform(*DEPTH_RANGE, size=n)
    points_cam = np.stack(
        [(pixels[:, 0] - CX) / FX * depth, (pixels[:, 1] - CY) / FY * depth, depth], axis=1
    )
    points_world = (points_cam - t) @ R  # rows: R^T (X_cam - t)
    observed = pixels + rng.normal(0.0, PIXEL_SIGMA, size=(n, 2))
    gravity = perturb_direction(R @ GRAVITY_WORLD, GRAVITY_NOISE_DEG, rng)
    return CorrespondenceSet(
        index=index,
        intrinsics=(FX, FY, CX, CY),
        size=(WIDTH, HEIGHT),
        gravity_cam=gravity,
        R=R,
        t=t,
        points2d=observed,
        points3d=points_world,
        is_inlier=np.ones(n, dtype=bool),
    )


def add_outliers(scene: CorrespondenceSet, ratio: float, seed: int) -> CorrespondenceSet:
    """Copy of ``scene`` where ``round(ratio * n)`` random pixels are replaced by uniform ones."""
    rng = np.random.default_rng([seed, scene.index, round(ratio * 1000)])
    count = int(round(ratio * scene.n))
    chosen = rng.permutation(scene.n)[:count]
    points2d = scene.points2d.copy()
    points2d[chosen] = uniform_pixels(rng, count)
    is_inlier = np.ones(scene.n, dtype=bool)
    is_inlier[chosen] = False
    return CorrespondenceSet(
        index=scene.index,
        intrinsics=scene.intrinsics,
        size=scene.size,
        gravity_cam=scene.gravity_cam.copy(),
        R=scene.R.copy(),
        t=scene.t.copy(),
        points2d=points2d,
        points3d=scene.points3d.copy(),
        is_inlier=is_inlier,
    )


def encode_set(s: CorrespondenceSet) -> bytes:
    """Serializes one set (header, records, inlier flags)."""
    header = _SET_HEADER.pack(
        s.n, s.index, *s.intrinsics, *s.size, *s.gravity_cam, *s.R.reshape(9), *s.t
    )
    records = np.hstack([s.points2d, s.points3d]).astype("<f8")
    flags = s.is_inlier.astype(np.uint8)
    return header + records.tobytes() + flags.tobytes()


def write_sets(path: Path, sets: list[CorrespondenceSet]) -> None:
    """Writes a sets file."""
    with open(path, "wb") as f:
        f.write(_FILE_HEADER.pack(MAGIC, len(sets), 0))
        for s in sets:
            f.write(encode_set(s))


def read_sets(path: Path) -> list[CorrespondenceSet]:
    """Reads a sets file written by ``write_sets``."""
    data = Path(path).read_bytes()
    magic, count, _ = _FILE_HEADER.unpack_from(data, 0)
    if magic != MAGIC:
        raise ValueError(f"{path}: bad magic {magic!r}")
    offset = _FILE_HEADER.size
    sets = []
    for _ in range(count):
        fields = _SET_HEADER.unpack_from(data, offset)
        offset += _SET_HEADER.size
        n, index = fields[0], fields[1]
        records = np.frombuffer(data, dtype="<f8", count=5 * n, offset=offset).reshape(n, 5)
        offset += 40 * n
        flags = np.frombuffer(data, dtype=np.uint8, count=n, offset=offset)
        offset += n
        sets.append(
            CorrespondenceSet(
                index=index,
                intrinsics=tuple(fields[2:6]),
                size=tuple(fields[6:8]),
                gravity_cam=np.array(fields[8:11]),
                R=np.array(fields[11:20]).reshape(3, 3),
                t=np.array(fields[20:23]),
                points2d=np.ascontiguousarray(records[:, :2]),
                points3d=np.ascontiguousarray(records[:, 2:]),
                is_inlier=flags.astype(bool),
            )
        )
    if offset != len(data):
        raise ValueError(f"{path}: {len(data) - offset} trailing bytes")
    return sets


def check_sets(sets: list[CorrespondenceSet]) -> dict[str, float]:
    """Sanity statistics: inlier reprojection RMS (px), outlier fraction, gravity error (deg)."""
    residuals, outliers, total, gravity_err = [], 0, 0, []
    for s in sets:
        cam = s.points3d @ s.R.T + s.t
        res = project(cam[s.is_inlier]) - s.points2d[s.is_inlier]
        residuals.append(res.reshape(-1))
        outliers += int((~s.is_inlier).sum())
        total += s.n
        cos = np.clip(s.gravity_cam.dot(s.R @ GRAVITY_WORLD), -1.0, 1.0)
        gravity_err.append(np.degrees(np.arccos(cos)))
    return {
        "inlier_rms_px_per_coord": float(np.sqrt(np.mean(np.concatenate(residuals) ** 2))),
        "outlier_fraction": outliers / total,
        "gravity_err_deg_max": float(np.max(gravity_err)),
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, type=Path, help="output directory")
    p.add_argument("--sets", type=int, default=200, help="sets per outlier ratio")
    p.add_argument("--points", type=int, default=1000, help="correspondences per set")
    p.add_argument("--seed", type=int, default=7, help="random seed")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Generates and writes one file per outlier ratio, then prints sanity statistics."""
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    scenes = [make_scene(args.seed, i, args.points) for i in range(args.sets)]
    for ratio in RATIOS:
        sets = [add_outliers(scene, ratio, args.seed) for scene in scenes]
        path = args.out / sets_filename(ratio)
        write_sets(path, sets)
        stats = check_sets(read_sets(path))
        print(f"{path}: {len(sets)} sets, {stats}", file=sys.stderr)


if __name__ == "__main__":
    main()
