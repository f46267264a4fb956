"""Expert parallelism live (issue 43): a small MoE language model whose
expert layers really send the tokens' hidden states with
torch.distributed.nn.functional.all_to_all_single over gloo
(ep_worker.py, 2 processes). Per rank, the bytes the c10d calls moved (a
dispatch mode of the test's own) are what the library's what-if
parallel={"ep": 2} predicts for that rank from one process - the
all-to-alls (4 x tokens x top-k x hidden x 4 bytes per layer: dispatch and
combine, forward and backward) and the all-reduce of the parameters that
are not experts' - and what the Inspector's rank row counted."""
import json
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
dist = pytest.importorskip("torch.distributed")
pytest.importorskip("torch.distributed.nn.functional")
if int(torch.__version__.split(".")[0]) < 2:
    pytest.skip("the what-if's training=True needs PyTorch 2.x",
                allow_module_level=True)

HERE = os.path.dirname(os.path.abspath(__file__))


def test_live_expert_parallel_matches_what_if(tmp_path):
    world = 2
    env = dict(os.environ, GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1",
               USE_LIBUV="0")
    procs = [subprocess.Popen(
        [sys.executable, os.path.join(HERE, "ep_worker.py"), str(r),
         str(world), str(tmp_path / "store"), str(tmp_path)], env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        for r in range(world)]
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=240)[0].decode())
    except subprocess.TimeoutExpired:
        for p in procs:
            p.kill()
        pytest.fail("ranks did not finish in 240 s")
    for p, o in zip(procs, outs):
        assert p.returncode == 0, o[-3000:]
    ranks = [json.loads((tmp_path / f"rank{r}.json").read_text())
             for r in range(world)]
    sys.path.insert(0, HERE)
    from ep_worker import EXPERTS, HIDDEN, LAYERS
    w = ranks[0]["what_if"]
    tokens, topk = ranks[0]["tokens"], world
    # by hand: dispatch and combine, forward and backward, per layer
    assert w["comm"]["all_to_all"] == LAYERS * 4 * tokens * topk * HIDDEN * 4
    assert w["mesh"] == {"ep": world} and EXPERTS % world == 0
    for res in ranks:
        moved = res["comm"]
        assert moved["all_to_all"] == w["comm"]["all_to_all"], res["rank"]
        assert moved["all_reduce"] == w["comm"]["all_reduce"], res["rank"]
        assert moved["all_gather"] == moved["reduce_scatter"] == 0
        assert w["comm"] == moved
        assert res["params"] == w["params"]
        # the Inspector's rank row: the same bytes, by kind
        assert res["row"]["collectives"]["bytes"] == moved
        assert res["row"]["collectives"]["calls"]["all_to_all"] == \
            4 * LAYERS
