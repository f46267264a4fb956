"""Two ranks (two processes, gloo, this machine only): each records its own
passes, the saved report merges them - the spread of latency over ranks
and which rank saw a NaN first."""
import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")
dist = pytest.importorskip("torch.distributed")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


@pytest.mark.skipif(not dist.is_available(), reason="no torch.distributed")
def test_two_ranks_merge(tmp_path):
    env = dict(os.environ, GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1")
    procs = [subprocess.Popen(
        [sys.executable, os.path.join(HERE, "inspector_ddp_worker.py"),
         str(r), "2", str(tmp_path / "store"), str(tmp_path)], env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT) for r in range(2)]
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=150)[0].decode())
    except subprocess.TimeoutExpired:
        for p in procs:
            p.kill()
        outs = [p.communicate()[0].decode() for p in procs]
        pytest.fail("ranks did not finish in 150 s:\n" + "\n".join(outs))
    for p, o in zip(procs, outs):
        assert p.returncode == 0, o
    doc = json.loads((tmp_path / "run_DistributedDataParallel.inspect.json")
                     .read_text())
    assert doc["ranks"] == 2
    assert sorted((p["rank"], p["pass"]) for p in doc["passes"]) == \
        [(0, 0), (0, 1), (1, 0), (1, 1)]
    by = {m["path"]: m for m in doc["modules"]}
    slow = by["module.1"]
    assert slow["calls"] == 4 and slow["ranks"]["count"] == 2
    spread = slow["ranks"]["forward_ms"]
    # A sleep is a floor, not a ceiling: on a loaded machine a pass can take
    # longer, so only the lower bounds and their order are asserted.
    assert spread["min"] >= 20, spread
    assert spread["max"] >= 40 and spread["max"] >= spread["min"], spread
    assert spread["median"] == pytest.approx((spread["min"] + spread["max"])
                                             / 2, abs=1e-3)
    first = doc["first_nonfinite"]["forward"]
    assert first["path"] == "module.2" and first["role"] == "producer"
    assert first["rank"] == 1 and first["pass"] == 0
    assert by["module.2"]["nonfinite"]["first_rank"] == 1
    # each rank's row: DDP all-reduced every gradient once per backward,
    # in one bucket (the model is far below DDP's 25 MiB buckets): by
    # hand, (4 x 4 + 4 + 4 x 2 + 2) float32 elements x 2 passes
    for r, row in enumerate(doc["per_rank"]):
        assert row["rank"] == r and row["passes"] == 2
        seen = row["collectives"]
        assert seen["bytes"]["all_reduce"] == 30 * 4 * 2, seen
        assert seen["calls"]["all_reduce"] == 2, seen
        assert seen["bytes_total"] == 240
    assert by["module.1"]["ranks"]["slowest"]["forward"] == 1
    seed = json.loads((tmp_path / "run_DistributedDataParallel.json")
                      .read_text())
    assert "module" in seed["DistributedDataParallel"]["children"]
