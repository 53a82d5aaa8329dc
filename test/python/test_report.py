"""The compile report: its fusion picture against the IR's provenance, the page in a real
browser (Debian's chromium, headless), and the progress line of long compiles on a
pseudo-terminal (and its silence on a pipe)."""

from __future__ import annotations

import html
import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from conftest import ROOT, needs_tools
from xdsl.dialects import func
from xdsl.parser import Parser

from dialects import tensorexpr as te
from pipeline import compile
from pipeline.registry import context
from pipeline.tools.report import write_report


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory):
    """(compiled, path of the report) of SchNet, traced and profiled, run at 40 atoms."""
    from examples import schnet

    compiled = compile(schnet.energy_forces(torch.float32), schnet.inputs(23, torch.float32, 0),
                       schnet.dynamic_shapes, trace=True, profile=True)
    inputs = schnet.inputs(40, torch.float32, 1)
    for _ in range(3):
        compiled(*inputs.values())
    return compiled, write_report(compiled, tmp_path_factory.mktemp("report") / "schnet.html")


def _function(text: str) -> func.FuncOp:
    module = Parser(context(), text).parse_module()
    return next(op for op in module.ops if isinstance(op, func.FuncOp))


def _nests(compiled) -> list:
    """The fused stage's te ops with an origin, in order: nest n of the report."""
    return [op for op in _function(compiled.ir("fused")).body.block.ops if te.origin(op) is not None]


@needs_tools("dot")
def test_every_aten_op_is_in_one_nest_of_the_picture(report) -> None:
    """Each aten op's node is colored by exactly one nest (its home, the first that computes
    it), lists every nest that computes it, and that is what `te.origin` says in the IR."""
    compiled, path = report
    aten = [op for op in _function(compiled.ir("aten")).body.block.ops if op.dialect_name() == "aten"]
    nests = _nests(compiled)
    expected: dict[int, list[int]] = {k: [] for k in range(len(aten))}
    for n, op in enumerate(nests):
        for k in te.origin(op) or ():
            expected[k].append(n)

    page = path.read_text()
    classes = {int(m[1]): html.unescape(m[2]).split() for m in
               re.finditer(r'<g id="aten&#45;(\d+)" class="([^"]*)"', page)}
    assert sorted(classes) == list(range(len(aten))), "one node per aten op"
    for k, op in enumerate(aten):
        homes = [c for c in classes[k] if c.startswith("home-") or c == "nocode"]
        assert len(homes) == 1, (k, op.name, classes[k])
        in_picture = sorted(int(c[5:]) for c in classes[k] if c.startswith("nest-"))
        assert in_picture == expected[k], (k, op.name)
        if expected[k]:
            assert homes == [f"home-{expected[k][0]}"]
        else:  # no code of its own: only the aliases of SchNet's graph
            assert homes == ["nocode"] and op.name == "aten.alias", (k, op.name)
    assert len(nests) > 20 and sum(1 for v in expected.values() if v) > 200


def test_report_needs_a_traced_compile(tmp_path: Path) -> None:
    compiled = compile(lambda x: (x * x).sum(), [torch.ones(3)])
    with pytest.raises(ValueError, match="trace=True"):
        write_report(compiled, tmp_path / "r.html")


def _browser():
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is in the test extra")
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(a)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver), options=options)


@needs_tools("dot", "chromium", "chromedriver")
def test_report_in_a_browser(report, tmp_path: Path) -> None:
    """Offline (file://), the graph and both charts render, selecting a nest lists its aten
    ops with their source lines, and the console stays clean; a screenshot is saved."""
    compiled, path = report
    assert "http://" not in re.sub(r'xmlns(:xlink)?="http://[^"]*"', "", path.read_text()) and "https://" not in \
        path.read_text(), "the page must not load anything from the network"
    browser = _browser()
    try:
        browser.get(path.as_uri())
        count = browser.execute_script
        assert count("return document.querySelectorAll('#fusion-graph svg g.node.aten').length") > 200
        assert count("return document.querySelectorAll('#time-chart rect').length") > 5
        assert count("return document.querySelectorAll('#memory-chart rect.buffer').length") > 5
        assert "planned peak" in browser.find_element("id", "memory-chart").text
        slowest = count("return document.querySelector('#time-chart g.bar').dataset.nest")
        browser.find_element("css selector", f"tr.nest-row[data-nest='{slowest}']").click()
        panel = browser.find_element("id", "nest-panel").text
        assert f"nest {slowest}" in panel, panel
        listed = [int(k) for k in re.findall(r"^#(\d+) aten\.", panel, re.M)]
        assert listed and listed == list(te.origin(_nests(compiled)[int(slowest)])), panel
        assert re.search(r"\.py:\d+: ", panel), panel  # the ops' source lines
        assert count("return document.querySelectorAll('#fusion-graph g.node.hit').length") >= 1
        browser.execute_script("document.getElementById('fusion').scrollIntoView()")
        browser.save_screenshot(str(tmp_path / "report.png"))
        errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
        assert not errors, errors
    finally:
        browser.quit()
    assert (tmp_path / "report.png").stat().st_size > 10_000


def _driver(args: list[str], **kwargs) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": ROOT, "COLUMNS": "120", "TERM": "xterm"}
    return subprocess.Popen([sys.executable, "-m", "pipeline", *args], cwd=ROOT, env=env, **kwargs)


def test_progress_on_a_terminal_and_silence_on_a_pipe(tmp_path: Path) -> None:
    """`python -m pipeline compile` of the e3nn example names its stages on a terminal
    (a pseudo-terminal here) and prints nothing but its last line into a pipe."""
    args = ["compile", "examples/e3nn_like.py", "--emit", "aten", "-o", str(tmp_path / "out.mlir")]
    controller, terminal = pty.openpty()
    process = _driver(args, stdin=subprocess.DEVNULL, stdout=terminal, stderr=terminal)
    os.close(terminal)
    seen = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    os.close(controller)
    assert process.wait(timeout=600) == 0
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", seen.decode(errors="replace"))  # rich's colors, cursor moves
    assert "compiling" in text and "energy_forces" in text
    assert re.search(r"(capture|tensorexpr|fused|loops|llvm|native) +\d+\.\d s", text), text[-2000:]

    piped = _driver(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = piped.communicate(timeout=600)
    assert piped.returncode == 0 and out == ""
    assert err.strip().splitlines() == [line for line in err.strip().splitlines() if line.startswith("//")]
    assert "compiling" not in err and "\x1b" not in err
