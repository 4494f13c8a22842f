"""The same Diff both ways: the H200 pair offline through the CLI, and stored on a real
aggregator as two runs diffed by a real differ over gRPC."""
import pytest

import profdiff
from conftest import first_difference

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("options", [
    {},
    {"views": "operators,kernels", "top": 5, "group_by": "shape", "kernels_by": "op"},
    {"views": ["findings", "overview", "memory"], "normalize": "total", "min_change": 10},
], ids=["defaults", "grouped", "total"])
def test_offline_and_service_diff_are_equal(h200_pair, h200_runs, servers, options):
    offline = profdiff.diff(*h200_pair, **options)
    stored = profdiff.diff(*h200_runs, server=servers.differ, **options)
    assert stored.server == servers.differ and offline.server is None
    # Every field, the run names included (the runs are named as the files are).
    assert offline.report == stored.report, first_difference(offline.report, stored.report)
    assert offline == stored
    for name in offline.tables:
        assert offline.table(name).equals(stored.table(name)), name


def test_a_run_beside_a_path_goes_through_the_cli(h200_pair, h200_runs, servers):
    mixed = profdiff.diff(h200_pair[0], h200_runs[1], server=servers.differ)
    assert mixed.report == profdiff.diff(*h200_pair).report


def test_server_from_the_environment_and_the_html_report(h200_runs, servers, monkeypatch):
    monkeypatch.setenv("PROFDIFF_SERVER", servers.differ)
    stored = profdiff.diff(*h200_runs, views="findings")
    page = stored.html()  # `profdiff diff RUN RUN --server ... --format html`
    assert "<html" in page and stored.findings[0].text[:40] in page


def test_show_and_runs(h200_pair, h200_runs, servers):
    stored = profdiff.show(h200_runs[0], server=servers.differ)
    offline = profdiff.show(h200_pair[0])
    # The agent records the host it uploaded from; a file read here has none.
    for worker in stored.profile.workers:
        assert worker.worker.hostname
        worker.worker.ClearField("hostname")
    # Per-step values added as `profdiff show` adds them.
    assert stored.profile == offline.profile, first_difference(stored.profile, offline.profile)
    runs = profdiff.runs(servers.differ)
    row = runs.set_index("run").loc["transformer-fp32"]
    assert row["state"] == "complete" and row["world_size"] == 1
    assert runs["event_count"].dtype.kind == "i" and str(runs["created"].dtype).startswith("datetime64")


def test_unknown_run_is_the_servers_not_found(h200_runs, servers):
    with pytest.raises(profdiff.ProfdiffError, match="nope") as missing:
        profdiff.diff(h200_runs[0], "nope", server=servers.differ)
    assert missing.value.code == "NOT_FOUND"
