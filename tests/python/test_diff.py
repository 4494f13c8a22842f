"""profdiff.diff offline: the H200 pair (fp32 against bf16 autocast) through the CLI."""
import html
import math

import numpy as np
import pandas as pd
import pytest

import profdiff
from conftest import run_cli


@pytest.fixture(scope="module")
def h200(cli, h200_pair):
    return profdiff.diff(*h200_pair)


def test_overview_has_the_step_time_with_numeric_dtypes_and_nan_where_missing(h200):
    overview = h200.overview
    step = overview.set_index("metric").loc["Average step time"]
    assert step["unit"] == "us"
    assert step["baseline"] == pytest.approx(24647.56, rel=1e-4)
    assert step["experimental"] == pytest.approx(30717.85, rel=1e-4)
    assert step["delta_pct"] == pytest.approx(24.63, abs=0.01)
    assert bool(step["noise_significant"]) is True
    for column in ("baseline", "experimental", "delta", "delta_pct", "noise_ci_low"):
        assert overview[column].dtype == np.float64, column
    for column in ("noise_baseline_samples", "noise_experimental_samples"):
        assert overview[column].dtype == np.int64, column
    assert overview["noise_significant"].dtype == np.bool_
    # The device row is text: no numbers, NaN rather than 0.
    device = overview.set_index("metric").loc["Device"]
    assert device["baseline_text"] == "NVIDIA H200"
    assert math.isnan(device["baseline"]) and math.isnan(device["delta"])


def test_every_table_has_numeric_dtypes_and_missing_values_are_nan(h200):
    for name in h200.tables:
        frame = h200.table(name)
        for column in frame.columns:
            kind = frame[column].dtype
            assert kind in (np.float64, np.int64, np.bool_, np.dtype("O")), (name, column, kind)
            if kind == np.dtype("O"):  # text columns hold text only
                assert all(isinstance(v, str) for v in frame[column]), (name, column)
    kernels = h200.kernels
    # A kernel the bf16 run never launched has no per-call mean there: NaN, not 0.
    deleted = kernels[kernels["change"] == "deleted"]
    assert len(deleted) > 0
    assert deleted["experimental_mean_us"].isna().all()
    assert (deleted["experimental_total_us"] == 0).all()
    # A percentage of a baseline of 0 does not exist.
    added = h200.operators[h200.operators["change"] == "added"]
    assert len(added) > 0 and added["delta_pct_host_total_us"].isna().all()


def test_findings_have_text_and_evidence(h200):
    findings = h200.findings
    assert findings, "the H200 pair has findings"
    assert findings[0].kind == "step_time"
    assert findings[0].text.startswith("Step time 24.6 ms -> 30.7 ms per step")
    assert str(findings[0]) == findings[0].text
    evidence = findings[0].evidence[0]
    assert (evidence.table, evidence.name, evidence.unit) == ("overview", "Average step time", "us")
    assert evidence.delta == pytest.approx(6070.29, rel=1e-4)
    assert any(f.kind == "bottleneck" and "host-bound" in f.text for f in findings)


def test_module_tree_is_flattened_in_tree_order(h200):
    modules = h200.modules
    assert modules.loc[0, "depth"] == 0 and modules.loc[0, "index_path"] == ""
    assert (modules["depth"] >= 0).all() and modules["depth"].dtype == np.int64
    encoder = modules[modules["name"] == "TransformerEncoder_0"].iloc[0]
    assert encoder["status"] == "matched"
    # The finding's "-14.6 ms of device time per step (forward -4.7 ms, backward -9.8 ms)".
    assert encoder["compared"] == "device_us"
    assert encoder["delta_device_us"] == pytest.approx(-4700, rel=0.02)
    assert encoder["delta_device_us"] + encoder["delta_backward_us"] == pytest.approx(-14600,
                                                                                      rel=0.02)
    # Only a forward module has a backward node.
    assert modules[modules["kind"] != "module"]["baseline_backward_us"].isna().all()


def read_csv(path):
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


def assert_same_table(name, mine, theirs):
    assert list(mine.columns) == list(theirs.columns), name
    assert len(mine) == len(theirs), name
    for column in mine.columns:
        a, b = mine[column], theirs[column]
        if a.dtype == np.dtype("O"):
            assert (a == b.fillna("").astype(str)).all(), (name, column)
        elif a.dtype == np.bool_:
            assert (a == b).all(), (name, column)
        else:  # the CSV prints numbers to 6 or more significant digits
            assert np.allclose(a.astype(float), b.astype(float), rtol=1e-6, atol=1e-9,
                               equal_nan=True), (name, column)


def test_every_table_equals_the_clis_csv(h200, h200_pair, cli, tmp_path):
    run_cli(cli, "diff", *h200_pair, "--format", "csv", "-o", f"{tmp_path}/")
    written = sorted(p.stem for p in tmp_path.glob("*.csv"))
    assert written == sorted(set(h200.tables) - {"hta"})
    for name in written:
        assert_same_table(name, h200.table(name), read_csv(tmp_path / f"{name}.csv"))


def test_show_tables_equal_the_clis_csv(h200_pair, cli, tmp_path):
    profile = profdiff.show(h200_pair[0])
    assert profile.run == "transformer-fp32"
    run_cli(cli, "show", h200_pair[0], "--format", "csv", "-o", f"{tmp_path}/")
    for name in profile.tables:
        assert_same_table(name, profile.table(name), read_csv(tmp_path / f"{name}.csv"))
    overview = profile.overview
    assert overview.loc[0, "device_name"] == "NVIDIA H200"
    assert overview.loc[0, "average_step_duration_us"] == pytest.approx(24647.56, rel=1e-4)


def test_options_reach_the_cli(h200_pair):
    shaped = profdiff.diff(*h200_pair, views="operators", top=5, group_by="shape")
    assert len(shaped.operators) == 5 and shaped.kernels.empty
    assert shaped.report.baseline.operator_grouping == 2  # GROUPING_NAME_AND_SHAPE
    strict = profdiff.diff(*h200_pair, views=["kernels"], min_change=50)
    assert strict.report.options.min_change_pct == 50


def test_html_report_inline_and_to_file(h200, tmp_path):
    shown = h200._repr_html_()
    assert shown.startswith("<iframe srcdoc=\"")
    page = html.unescape(shown.split('srcdoc="', 1)[1].split('" style=', 1)[0])
    assert page == h200.html()
    assert page.lstrip().startswith("<!DOCTYPE html>") and "<html" in page
    assert "<script src=" not in page and "<link rel=\"stylesheet\"" not in page  # self-contained
    for finding in h200.findings[:3]:
        assert finding.text[:40] in page
    h200.to_html(tmp_path / "report.html")
    assert (tmp_path / "report.html").read_text(encoding="utf-8") == page


def test_bad_arguments_are_refused_before_anything_runs(h200_pair):
    with pytest.raises(TypeError, match="unknown option"):
        profdiff.diff(*h200_pair, topp=3)
    with pytest.raises(ValueError, match="normalize"):
        profdiff.diff(*h200_pair, normalize="weekly")
    with pytest.raises(ValueError, match="views"):
        profdiff.diff(*h200_pair, views="everything")


def test_errors_name_what_failed(h200_pair, tmp_path, monkeypatch, cli):
    # The CLI's own error, with its exit status.
    with pytest.raises(profdiff.ProfdiffError) as failed:
        profdiff.diff(h200_pair[0], tmp_path / "missing.pt.trace.json.gz")
    assert failed.value.returncode == 1
    assert "missing.pt.trace.json.gz" in str(failed.value) and failed.value.stderr
    # A run id without a server.
    monkeypatch.delenv("PROFDIFF_SERVER", raising=False)
    with pytest.raises(profdiff.ProfdiffError, match="no server"):
        profdiff.diff("run_a", "run_b")
    # An unreachable server.
    with pytest.raises(profdiff.ProfdiffError, match="server 127.0.0.1:1: unreachable") as down:
        profdiff.diff("run_a", "run_b", server="127.0.0.1:1", timeout=10)
    assert down.value.code == "UNAVAILABLE"
    with pytest.raises(profdiff.ProfdiffError, match="127.0.0.1:1"):
        profdiff.runs("127.0.0.1:1", timeout=10)
    # No binary.
    monkeypatch.setenv("PROFDIFF_BIN", str(tmp_path / "no-profdiff"))
    with pytest.raises(profdiff.ProfdiffError, match="PROFDIFF_BIN=.*no-profdiff"):
        profdiff.diff(*h200_pair)
    monkeypatch.delenv("PROFDIFF_BIN")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(profdiff.ProfdiffError, match="profdiff binary was not found"):
        profdiff.show(h200_pair[0])
