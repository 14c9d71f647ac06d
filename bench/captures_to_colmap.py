"""Write a COLMAP text model (cameras.txt, images.txt, empty points3D.txt) from a capture dataset's poses.

For trying `multiset eval --colmap DIR --images CAPTURES --leave-one-out` on a `multiset synth` dataset:
  multiset synth --venue room --frames 80 --seed 7 --out /tmp/room --sensor ideal
  python bench/captures_to_colmap.py --captures /tmp/room --out /tmp/room/sparse [--ar-poses]
Poses are the simulator's `truth` (venue frame) unless --ar-poses. captures.json stores worldFromCamera in
the ARKit convention (x right, y up, camera looking down -z; quaternion x, y, z, w); COLMAP wants
cam_from_world in the computer-vision convention (y down, looking down +z): flip the camera's y and z axes
and invert. Both use the top-left pixel corner as (0, 0), so intrinsics carry over unchanged.
"""

import argparse
import json
import os

import numpy as np


def matrix(q):
    x, y, z, w = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def quaternion_wxyz(r):
    # Shepperd's method on the largest diagonal term.
    t = np.trace(r)
    if t > 0:
        s = 2 * np.sqrt(1 + t)
        return np.array([s / 4, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s])
    i = int(np.argmax(np.diag(r)))
    j, k = (i + 1) % 3, (i + 2) % 3
    s = 2 * np.sqrt(1 + r[i, i] - r[j, j] - r[k, k])
    q = np.zeros(4)
    q[0] = (r[k, j] - r[j, k]) / s
    q[1 + i] = s / 4
    q[1 + j] = (r[j, i] + r[i, j]) / s
    q[1 + k] = (r[k, i] + r[i, k]) / s
    return q


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--captures", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--ar-poses", action="store_true")
    args = parser.parse_args()
    with open(os.path.join(args.captures, "captures.json")) as f:
        frames = json.load(f)["frames"]
    flip = np.diag([1.0, -1.0, -1.0])
    cameras, images = {}, []
    for frame in frames:
        pose = frame["arPose"] if args.ar_poses else frame.get("truth")
        if frame.get("trackingState") != "normal" or pose is None:
            continue
        k = frame["intrinsics"]
        key = (k["width"], k["height"], k["fx"], k["fy"], k["cx"], k["cy"])
        camera_id = cameras.setdefault(key, len(cameras) + 1)
        world_from_cam = matrix(pose["rotation"]) @ flip
        rotation = world_from_cam.T
        translation = -rotation @ np.asarray(pose["position"], dtype=float)
        images.append((len(images) + 1, quaternion_wxyz(rotation), translation, camera_id, frame["image"]))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "cameras.txt"), "w") as f:
        for (w, h, fx, fy, cx, cy), camera_id in cameras.items():
            f.write(f"{camera_id} PINHOLE {w} {h} {fx!r} {fy!r} {cx!r} {cy!r}\n")
    with open(os.path.join(args.out, "images.txt"), "w") as f:
        for image_id, q, t, camera_id, name in images:
            f.write(f"{image_id} {' '.join(repr(float(v)) for v in q)} {' '.join(repr(float(v)) for v in t)} "
                    f"{camera_id} {name}\n\n")
    open(os.path.join(args.out, "points3D.txt"), "w").close()
    print(f"{len(images)} images, {len(cameras)} camera(s) -> {args.out}")


if __name__ == "__main__":
    main()
