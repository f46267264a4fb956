"""Per rank under FSDP2, DTensor tensor parallelism, both, and DDP (issue
43): 2 and 4 local processes over gloo (parallel_worker.py). Checked
against PyTorch itself on every rank: the local parameter, gradient and
AdamW-state bytes from the local shards after optimizer.step(), and the
bytes per collective kind the real step sent (every collective the step
issued, seen by a dispatch mode), and the forward's MACs against
FlopCounterMode's. The what-if of the same mesh, from one
process on an unwrapped model, gives rank 0's live numbers."""
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


def _run(tmp_path, mode, world):
    env = dict(os.environ, GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1",
               USE_LIBUV="0")
    procs = [subprocess.Popen(
        [sys.executable, os.path.join(HERE, "parallel_worker.py"), str(r),
         str(world), str(tmp_path / "store"), mode,
         str(tmp_path / f"rank{r}.json")], env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        for r in range(world)]
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=240)[0].decode())
    except subprocess.TimeoutExpired:
        for p in procs:
            p.kill()
        outs = [p.communicate()[0].decode() for p in procs]
        pytest.fail("ranks did not finish in 240 s (a collective deadlock?)"
                    ":\n" + "\n".join(outs))
    for p, o in zip(procs, outs):
        assert p.returncode == 0, o[-3000:]
    return [json.loads((tmp_path / f"rank{r}.json").read_text())
            for r in range(world)]


@pytest.mark.parametrize("mode,world,mesh", [
    ("fsdp", 2, {"fsdp": 2}), ("fsdp", 4, {"fsdp": 4}),
    ("tp", 2, {"tp": 2}), ("fsdp_tp", 4, {"fsdp": 2, "tp": 2}),
    ("ddp", 2, {"dp": 2})])
def test_per_rank_against_pytorch(tmp_path, mode, world, mesh):
    ranks = _run(tmp_path, mode, world)
    for r, res in enumerate(ranks):
        live = res["live"]
        assert live is not None, f"rank {r}: no per_rank block"
        assert live["world_size"] == world and live["mesh"] == mesh
        for k in ("params", "param_bytes", "grad_bytes", "optimizer_bytes"):
            assert live[k] == res[k], (r, k, live[k], res[k])
        assert live["comm"] == res["comm"], (r, live["comm"], res["comm"])
        assert live["comm_bytes"] == sum(res["comm"].values())
        assert not live["estimate"]
        # MACs: FlopCounterMode counts the matmuls at the logical shapes
        # (DTensor's global ones under TP): the modules the plan splits
        # run 1/tp of theirs on the rank; the attention products (CPU's
        # fused SDPA, which it does not count) by hand: 2 per layer of
        # batch x heads x S x S x head_dim, heads split by tp
        tp = mesh.get("tp", 1)
        fc = res["flop_counter"] - res["flop_counter_split"] * (1 - 1 / tp)
        attn = 2 * 2 * (2 * 4 * 16 * 16 * 16) / tp
        want = fc / 2 + attn
        assert live["macs"] == pytest.approx(want, rel=0.005), \
            (r, live["macs"], want)
    # the what-if from one process is rank 0's live figures
    assert ranks[0]["what_if"] == ranks[0]["live"]
