"""The report page: the data of :mod:`referee.report.data` in one self-contained HTML file.

The page is its template (``assets/report.html``) with the style, the script and the
data inlined: it opens from the file system with no network and no server.  The data is
JSON in a ``<script type="application/json">`` element, with ``<`` escaped so that no
text in it (an engine's name, a reason) can end the element.
"""

from __future__ import annotations

import html
import json
import os
from functools import lru_cache
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any, Sequence

__all__ = ["REPORT_FILE", "render", "write_page", "embedded_data", "to_json"]

#: The page's file in ``--out DIR``.
REPORT_FILE = "report.html"

_DATA_OPEN = '<script type="application/json" id="report-data">'
#: One encoder for every game (json.dumps with options would make one a call).
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False, check_circular=False)


@lru_cache(maxsize=None)
def _asset(name: str) -> str:
    return resources.files("referee.report").joinpath("assets", name).read_text(encoding="utf-8")


def _title(data: dict) -> str:
    names = [e["name"] for e in data.get("engines", [])]
    if data.get("kind") == "match" and len(names) == 2:
        return f"{names[0]} vs {names[1]}"
    return f"{data.get('kind', 'tournament')} of {len(names)} engines"


def to_json(obj: Any) -> str:
    """``obj`` as the page embeds it: compact JSON with ``<`` escaped (only strings hold one, so
    it is the same JSON), which no text can turn into the end of the script element."""
    return _ENCODER.encode(obj).replace("<", "\\u003c")


def render(data: dict, games_json: Sequence[str] | None = None) -> str:
    """The page for ``data`` (what :meth:`referee.report.data.ReportBuilder.data` gives);
    ``games_json``: its games already in :func:`to_json` form, one string each (a long
    match's page is then written without encoding every game again)."""
    if games_json is None:
        text = to_json(data)
    else:
        rest = to_json({k: v for k, v in data.items() if k != "games"})
        text = rest[:-1] + ',"games":[' + ",".join(games_json) + "]}"
    return Template(_asset("report.html")).substitute(
        title=html.escape(_title(data) + " - referee report"), css=_asset("report.css"), js=_asset("report.js"),
        data=text)


def write_page(out_dir: str | os.PathLike, data: dict, games_json: Sequence[str] | None = None) -> Path:
    """Write the page of ``data`` as ``out_dir/report.html``, through a temporary file renamed over
    it, so that a browser (or a copy) never reads half a page."""
    path = Path(out_dir) / REPORT_FILE
    tmp = path.with_name(f".{REPORT_FILE}.tmp")
    tmp.write_text(render(data, games_json), encoding="utf-8")
    os.replace(tmp, path)
    return path


def embedded_data(page: str) -> dict:
    """The data a rendered page holds (``ValueError`` when it holds none)."""
    start = page.find(_DATA_OPEN)
    if start < 0:
        raise ValueError("no report data in the page")
    start += len(_DATA_OPEN)
    end = page.find("</script>", start)
    return json.loads(page[start:end])
