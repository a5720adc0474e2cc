"""Writing the spec (a small YAML writer) and safetensors weights."""

import json
import re

import numpy as np


def _yaml(value, indent=0):
    """A small YAML writer for the spec (block mappings, flow lists)."""
    pad = "  " * indent
    lines = []
    if isinstance(value, dict):
        for key, v in value.items():
            if isinstance(v, dict):
                lines.append("%s%s:" % (pad, key))
                lines.append(_yaml(v, indent + 1))
            elif isinstance(v, list) and v and isinstance(v[0], dict):
                lines.append("%s%s:" % (pad, key))
                for item in v:
                    body = _yaml(item, indent + 2).splitlines()
                    lines.append("%s  - %s" % (pad, body[0].strip()))
                    lines += body[1:]
            else:
                lines.append("%s%s: %s" % (pad, key, _scalar(v)))
        return "\n".join(lines) + ("\n" if indent == 0 else "")
    raise TypeError(value)


def _scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, list):
        return "[" + ", ".join(_scalar(x) for x in v) + "]"
    text = str(v)
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_/]*", text) and text.lower() not in (
            "true", "false", "null", "yes", "no", "on", "off", "y", "n"):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _write_safetensors(path, arrays):
    header, offset, blobs = {}, 0, []
    for key in sorted(arrays):
        a = np.ascontiguousarray(arrays[key], dtype=np.float32)
        data = a.tobytes()
        header[key] = {"dtype": "F32", "shape": list(a.shape),
                       "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little"))
        f.write(text)
        for data in blobs:
            f.write(data)
