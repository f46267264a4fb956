"""The Inspector per rank under FSDP2, DTensor tensor parallelism and both
(issue 43, item 3): 2 and 4 local processes over gloo
(inspector_parallel_worker.py), two real AdamW steps each. Every rank's
Inspector finishes without a collective deadlock, and the merged report
(text, JSON checked against docs/inspect.schema.json, the HTML page) has
one row per rank, checked against PyTorch on that rank: the collectives a
dispatch mode of the test's own saw (bytes and calls per kind), the local
parameter, gradient and AdamW-state bytes after optimizer.step() against
the library's static per-rank counts (nns_per_rank), whose collectives per
step are half the two steps'; each rank's times are its passes' sums and
fit in the wall time of its steps; the module rank 1 slows down names
rank 1 as its slowest."""
import json
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
fsdp = pytest.importorskip("torch.distributed.fsdp")
if not hasattr(fsdp, "fully_shard"):
    pytest.skip("torch.distributed.fsdp.fully_shard (FSDP2) is missing",
                allow_module_level=True)

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "docs")
KINDS = ("all_gather", "reduce_scatter", "all_reduce", "all_to_all")


def _run(tmp_path, mode, world):
    env = dict(os.environ, GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1",
               USE_LIBUV="0")
    procs = [subprocess.Popen(
        [sys.executable, os.path.join(HERE, "inspector_parallel_worker.py"),
         str(r), str(world), str(tmp_path / "store"), mode, str(tmp_path)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        for r in range(world)]
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=300)[0].decode())
    except subprocess.TimeoutExpired:
        for p in procs:
            p.kill()
        outs = [p.communicate()[0].decode() for p in procs]
        pytest.fail("ranks did not finish in 300 s (a collective deadlock?)"
                    ":\n" + "\n".join(outs))
    for p, o in zip(procs, outs):
        assert p.returncode == 0, o[-3000:]
    return [json.loads((tmp_path / f"rank{r}.json").read_text())
            for r in range(world)]


@pytest.mark.parametrize("mode,world", [("fsdp", 2), ("tp", 2),
                                        ("fsdp_tp", 4)])
def test_inspector_per_rank(tmp_path, mode, world):
    ranks = _run(tmp_path, mode, world)
    saved = json.loads((tmp_path / "run_LlamaForCausalLM.inspect.json")
                       .read_text())
    for res in ranks:
        assert not res["errors"], res["errors"]
        # every rank holds the same merged inspection; rank 0 saved it
        assert res["doc"]["per_rank"] == saved["per_rank"]
    rows = {row["rank"]: row for row in saved["per_rank"]}
    assert sorted(rows) == list(range(world)) and saved["ranks"] == world
    for res in ranks:
        row = rows[res["rank"]]
        # the collectives the rank issued in its two steps, as the test's
        # own dispatch mode saw them (nothing of nnscan's own: the static
        # counts at start() and the merge issue none)
        got = row["collectives"]
        assert got["bytes"] == res["comm_bytes"], (res["rank"], got)
        assert got["calls"] == res["comm_calls"], (res["rank"], got)
        assert got["bytes_total"] == sum(res["comm_bytes"].values())
        assert sum(res["comm_bytes"].values()) > 0
        # the library's static counts of the rank's shards against the
        # local shards after optimizer.step(); its collectives per step
        c = row["counts"]
        assert c["world_size"] == world and c["mesh"] == res["mesh"]
        for k in ("params", "param_bytes", "grad_bytes", "optimizer_bytes"):
            assert c[k] == res[k], (res["rank"], k, c[k], res[k])
        assert {k: 2 * v for k, v in c["comm"].items()} == \
            res["comm_bytes"], (res["rank"], c["comm"])
        # times: the rank's passes summed, within its steps' wall time
        passes = [p for p in saved["passes"] if p["rank"] == res["rank"]]
        assert row["passes"] == len(passes) == 2
        assert row["forward_ms"] == pytest.approx(
            sum(p["forward_ms"] for p in passes), abs=1e-3)
        assert row["backward_ms"] == pytest.approx(
            sum(p["backward_ms"] for p in passes), abs=1e-3)
        assert 0 < row["forward_ms"] + row["backward_ms"] <= res["wall_ms"]
        assert row["forward_alloc_bytes"] > 0
    # rank 1 slept 40 ms in each forward of model.layers.1.mlp
    by = {m["path"]: m for m in saved["modules"]}
    # the user's classes, not the ones fully_shard made (FSDP<Class>)
    assert by[""]["type"] == "LlamaForCausalLM"
    assert by["model.layers.1"]["type"] == "LlamaDecoderLayer"
    mlp = by["model.layers.1.mlp"]
    assert mlp["ranks"]["slowest"]["forward"] == 1
    assert mlp["ranks"]["count"] == world
    assert rows[1]["forward_ms"] >= 80
    # the text report: the rank rows and the Slowest rank column
    text = ranks[0]["text"]
    assert "Per rank" in text and "Slowest" in text
    for r in range(world):
        assert f"rank {r}: 2 passes" in text
    # the JSON contract
    jsonschema = pytest.importorskip("jsonschema")
    with open(os.path.join(DOCS, "inspect.schema.json")) as f:
        schema = json.load(f)
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
              for e in jsonschema.Draft202012Validator(schema)
              .iter_errors(saved)][:3]
    assert not errors, errors
    # the HTML page carries them for its rank table (docs/html.md)
    sys.path.insert(0, HERE)
    from html_page import embedded
    kind, doc = embedded(ranks[0]["html"])
    assert kind == "nnscan.inspect" and doc["per_rank"] == saved["per_rank"]
