"""schemathesis hooks for `make test-hostile`: valid data for what JSON Schema cannot express.

The published schema (`/v1/openapi.json`) states every field, pattern and range the server checks on
its own; a few rules tie fields together and no schema can state them: the image must decode to the
declared width × height, 0 < px < width, fx and fy within 1/100–100 × the longer side, a quaternion
norm within 0.9–1.1, frames contiguous from image1, and a map file must be a valid `.vpsmap`. For
requests schemathesis generates as *valid* (its positive phase) this hook puts in a real 640×480
JPEG with matching intrinsics, unit quaternions and a real map file. Requests generated as invalid
(negative) are sent untouched, so the server's own rejection of bad data is what is tested; and
schemathesis revalidates every case after this hook, so a case it edits is judged as it is sent.
"""

import base64
import os

import schemathesis
import schemathesis.generation.case as _case_module
from schemathesis.transport.serialization import Binary

JPEG_BYTES = open(os.environ["HOSTILE_QUERY_JPEG"], "rb").read()
# Binary parts as schemathesis represents them (so revalidation sees `format: binary` values).
JPEG = Binary(JPEG_BYTES)
MAP_FILE = Binary(open(os.environ["HOSTILE_MAP_FILE"], "rb").read())
EMPTY_CAPTURES = '{"format":"multiset-captures","version":1,"device":{"model":"t","name":"t"},"frames":[]}'
INTRINSICS = {"fx": 500.0, "fy": 500.0, "px": 320.0, "py": 240.0, "width": 640, "height": 480}
POSE = {"x": 0.0, "y": 0.0, "z": 0.0, "qx": 0.0, "qy": 0.0, "qz": 0.0, "qw": 1.0}


# schemathesis 4.32 revalidates a case that a hook edited, and judges every body holding a binary
# part invalid (it cannot validate `Binary` values), which would turn each edited valid request into
# an "invalid" one. Validate such bodies with each binary part read as the string `format: binary`
# says it is; nothing else about the validation changes.
def _plain(value):
    if isinstance(value, (Binary, bytes)):
        return ""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


_validate_component = _case_module.Case._validate_component


def _validate_plain(self, location, value, validator_cls):
    return _validate_component(self, location, _plain(value), validator_cls)


_case_module.Case._validate_component = _validate_plain


def _positive(case):
    meta = getattr(case, "meta", None)
    return meta is not None and meta.generation.mode.is_positive


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    if not _positive(case) or not isinstance(case.body, dict):
        return
    path = case.operation.path
    # A copy: the generator may derive other cases from the same dictionary.
    body = dict(case.body)
    if path in ("/v1/vps/map/query-form", "/v1/vps/object/query"):
        body.update(INTRINSICS)
        body["queryImage"] = JPEG
    elif path == "/v1/vps/map/multi-image-query":
        body.update(INTRINSICS)
        has5 = "image5" in body or "image5_data" in body
        has6 = has5 and ("image6" in body or "image6_data" in body)
        count = 4 + has5 + has6
        for n in range(1, 7):
            body.pop(f"image{n}", None)
            body.pop(f"image{n}_data", None)
            if n <= count:
                body[f"image{n}"] = JPEG
                body[f"image{n}_data"] = dict(POSE)
    elif path == "/v1/vps/map/query":
        for key in INTRINSICS:
            body.pop(key, None)
        body["cameraIntrinsics"] = {k: INTRINSICS[k] for k in ("fx", "fy", "px", "py")}
        body["resolution"] = {"width": 640, "height": 480}
        body["queryImage"] = base64.b64encode(JPEG_BYTES).decode()
    elif path == "/v1/vps/map/uploads":
        if "captures.json" in body:
            body["captures.json"] = Binary(EMPTY_CAPTURES.encode())
    elif path == "/v1/vps/map/upload":
        if "mapFile" in body:
            body["mapFile"] = MAP_FILE
        if "captures.json" in body:
            body["captures.json"] = EMPTY_CAPTURES
    case.body = body
