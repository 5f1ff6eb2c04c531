#!/usr/bin/env python3
"""Screenshot an HTML report with headless Chromium and check the PNG is not blank.

    tools/screenshot.py runs/fir4/<run>/report.html report.png [--width 1280 --height 2400]

Chromium runs as an argv list (no shell) in its own process group, killed as a group at the
timeout; offline: a dead proxy makes any network fetch fail. (Not through hyperheurist.runner:
its address-space cap is meant for EDA tools and makes Chromium abort.) The PNG check uses
a small zlib + numpy decoder (no imaging library needed). Exit 0 ok, 1 blank image, 3 no Chromium
or Chromium failed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

import numpy as np

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    """``HH_CHROMIUM`` if set, else the first Chromium-like browser on PATH."""
    env = os.environ.get("HH_CHROMIUM")
    if env:
        return env if Path(env).is_file() else None
    return next((p for b in BROWSERS if (p := shutil.which(b))), None)


def screenshot(html: Path, png: Path, *, width: int = 1280, height: int = 2400, timeout_s: float = 120.0) -> Path:
    """Render ``html`` to ``png``; RuntimeError when Chromium is missing or writes no image."""
    browser = find_chromium()
    if browser is None:
        raise RuntimeError("chromium not found (apt-get install -y --no-install-recommends chromium, "
                           "or set HH_CHROMIUM)")
    html, png = Path(html).resolve(), Path(png).resolve()
    if not html.is_file():
        raise RuntimeError(f"{html}: no such file")
    png.parent.mkdir(parents=True, exist_ok=True)
    png.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="hh-shot-") as tmp:
        argv = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                "--disable-extensions", "--disable-background-networking", "--mute-audio",
                "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
                "--force-device-scale-factor=1", f"--user-data-dir={tmp}/profile",
                f"--window-size={width},{height}", f"--screenshot={png}", html.as_uri()]
        rc, err = _run(argv, Path(tmp), timeout_s)
        if not png.is_file():
            lines = [ln for ln in err.splitlines() if "dbus" not in ln.lower()]
            raise RuntimeError(f"chromium wrote no screenshot ({rc}): {lines[-1] if lines else 'no stderr'}")
    return png


def _run(argv: list[str], cwd: Path, timeout_s: float) -> tuple[str, str]:
    """Run ``argv`` in a new process group; returns (outcome, stderr). The group is killed at the timeout."""
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        _, err = proc.communicate(timeout=timeout_s)
        outcome = f"exit {proc.returncode}"
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        outcome = f"timed out after {timeout_s:g} s"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # helpers left behind by the browser
        except ProcessLookupError:
            pass
    return outcome, err.decode("utf-8", errors="replace")


def _unfilter(raw: bytes, width: int, height: int, bpp: int) -> np.ndarray:
    stride = width * bpp
    out = np.zeros((height, stride), dtype=np.uint8)
    prev = np.zeros(stride, dtype=np.int32)
    pos = 0
    for y in range(height):
        ftype, line = raw[pos], np.frombuffer(raw, np.uint8, stride, pos + 1).astype(np.int32)
        pos += stride + 1
        if ftype == 0:
            cur = line
        elif ftype == 1:  # Sub: running sum per channel
            cur = np.cumsum(line.reshape(-1, bpp), axis=0).reshape(-1) & 0xFF
        elif ftype == 2:  # Up
            cur = (line + prev) & 0xFF
        else:  # Average / Paeth depend on the byte to the left: byte loop
            cur = _unfilter_slow(ftype, line.tolist(), prev.tolist(), bpp)
        out[y] = cur
        prev = np.asarray(cur, dtype=np.int32)
    return out


def _unfilter_slow(ftype: int, line: list[int], prev: list[int], bpp: int) -> np.ndarray:
    cur = [0] * len(line)
    for i, v in enumerate(line):
        a = cur[i - bpp] if i >= bpp else 0
        b = prev[i]
        if ftype == 3:
            cur[i] = (v + ((a + b) >> 1)) & 0xFF
            continue
        c = prev[i - bpp] if i >= bpp else 0
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
        cur[i] = (v + pred) & 0xFF
    return np.array(cur, dtype=np.int32)


def decode_png(data: bytes) -> np.ndarray:
    """An 8-bit, non-interlaced RGB/RGBA/grey PNG as an (height, width, channels) uint8 array."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, bytearray(), None
    while pos < len(data):
        (length,), kind = struct.unpack(">I", data[pos:pos + 4]), data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError("PNG without IHDR")
    width, height, depth, ctype, _, _, interlace = header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(ctype)
    if depth != 8 or channels is None or interlace:
        raise ValueError(f"unsupported PNG (depth {depth}, colour type {ctype}, interlace {interlace})")
    rows = _unfilter(zlib.decompress(bytes(idat)), width, height, channels)
    return rows.reshape(height, width, channels)


def encode_png(img: np.ndarray) -> bytes:
    """An RGB/RGBA uint8 array as a PNG (filter 0): for cropping screenshots to review."""
    h, w, ch = img.shape
    raw = b"".join(b"\x00" + img[y].tobytes() for y in range(h))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    ctype = {3: 2, 4: 6}[ch]
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, ctype, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def distinct_colours(img: np.ndarray) -> int:
    """How many different pixel colours the image holds (1 = blank)."""
    flat = img[..., :3].reshape(-1, 3).astype(np.uint32)
    return int(np.unique((flat[:, 0] << 16) | (flat[:, 1] << 8) | flat[:, 2]).size)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("html", type=Path)
    ap.add_argument("png", type=Path)
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=2400)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--min-colours", type=int, default=16, help="fewer distinct colours = blank (exit 1)")
    args = ap.parse_args()
    try:
        out = screenshot(args.html, args.png, width=args.width, height=args.height, timeout_s=args.timeout)
    except RuntimeError as exc:
        print(f"screenshot: {exc}", file=sys.stderr)
        return 3
    img = decode_png(out.read_bytes())
    n = distinct_colours(img)
    print(f"screenshot: {out} {img.shape[1]}x{img.shape[0]}, {n} distinct colours")
    return 0 if n >= args.min_colours else 1


if __name__ == "__main__":
    sys.exit(main())
