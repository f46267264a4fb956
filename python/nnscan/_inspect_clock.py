"""The Inspector's clocks and memory counters: a host clock that stops
while the inspector's own hooks run, or CUDA events; the CUDA allocator's
counters, or on CPU the bytes of every newly allocated op output."""
import math
import threading
import time

from ._inspect_shared import _SHARED_LOCK


def _storage(t):
    """t's storage without PyTorch 2's TypedStorage deprecation warning."""
    get = getattr(t, "untyped_storage", None)
    return get() if get is not None else t.storage()


def _alloc_counter():
    """A TorchDispatchMode that adds up the bytes of every op output with
    storage of its own (not a view of, nor written into, an input): the
    CPU's bytes allocated, as a counter that only grows. `off` > 0 while
    an inspector's own hooks run (their ops are nobody's)."""
    from .dispatch_mode import DispatchMode
    import torch
    Tensor = torch.Tensor

    def tensors(obj, out):
        """The tensors of an op's output or arguments: tensors, and
        tuples, lists and dicts of them (what an aten op takes and gives;
        PyTorch's tree_flatten walks them too, at several times the cost
        on 2.x: most of this mode's time a call)."""
        if isinstance(obj, Tensor):
            out.append(obj)
        elif isinstance(obj, (tuple, list)):
            for v in obj:
                tensors(v, out)
        elif isinstance(obj, dict):
            for v in obj.values():
                tensors(v, out)
        return out

    class Mode(DispatchMode):
        def __init__(self):
            super().__init__()
            self.total = 0
            self.off = 0
            self.comm = None  # a CommCount once an inspector needs one

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            if self.off:
                return out
            if self.comm is not None:
                self.comm.see(func, args)
            seen = None
            for t in ((out,) if isinstance(out, Tensor)
                      else tensors(out, [])):
                try:
                    st = _storage(t)
                    ptr, nbytes = st.data_ptr(), st.nbytes()
                except Exception:  # sparse, meta: nothing to count
                    continue
                if seen is None:
                    seen = set()
                    for a in tensors((args, kwargs), []):
                        try:
                            seen.add(_storage(a).data_ptr())
                        except Exception:
                            pass
                if ptr not in seen:
                    seen.add(ptr)
                    self.total += nbytes
            return out

    return Mode()


class _SharedCounter:
    """One allocation counter (a dispatch mode) per thread for every
    inspector that counts CPU memory there: entered by the first, left by
    the last (a dispatch mode's exit pops the thread's newest mode, so two
    could not leave in any order). Dispatch modes are per thread."""
    by_thread = {}  # thread id -> [mode, users]

    @classmethod
    def acquire(cls):
        with _SHARED_LOCK:
            e = cls.by_thread.get(threading.get_ident())
            if e is None:
                mode = _alloc_counter()
                mode.__enter__()
                e = cls.by_thread[threading.get_ident()] = [mode, 0]
            e[1] += 1
            return e[0]

    @classmethod
    def release(cls, mode):
        with _SHARED_LOCK:
            for tid, e in list(cls.by_thread.items()):
                if e[0] is not mode:
                    continue
                e[1] -= 1
                if e[1] == 0:
                    del cls.by_thread[tid]
                    mode.__exit__(None, None, None)


class Clock:
    """Events at hook entry: (time in ms, bytes allocated so far, live
    bytes), on the host clock less the time spent in the inspector's own
    hooks, or as CUDA events resolved when the pass is sent."""

    def __init__(self, torch, cuda, memory, collectives=False):
        self.torch = torch
        self.cuda = cuda
        self.memory = memory
        self.overhead = 0.0          # seconds spent in our own hooks
        self.t0 = time.perf_counter()
        self.counter = None          # the shared dispatch mode
        self.alloc = None            # it, when it counts CPU memory for us
        self.comm_base = None        # collectives seen before start
        self.comm_seen = None        # those seen from start to close()
        self.cuda_base = None
        if cuda:
            self.cuda_base = torch.cuda.Event(enable_timing=True)
            self.cuda_base.record()
        if (memory and not cuda) or collectives:
            self.counter = _SharedCounter.acquire()
        if memory and not cuda:
            self.alloc = self.counter
        if collectives:
            from ._inspect_ranks import CommCount
            if self.counter.comm is None:
                self.counter.comm = CommCount()
            self.comm_base = self.counter.comm.snapshot()

    def close(self):
        """Notes the collectives seen since start (comm_seen: calls and
        bytes by kind) and leaves the dispatch mode (the last user takes
        it away)."""
        if self.counter is not None:
            if self.comm_base is not None:
                calls, nbytes = self.counter.comm.snapshot()
                c0, b0 = self.comm_base
                self.comm_seen = ([a - b for a, b in zip(calls, c0)],
                                  [a - b for a, b in zip(nbytes, b0)])
            _SharedCounter.release(self.counter)
            self.counter = self.alloc = None

    def enter(self):
        """A hook starts: our ops are nobody's; returns the entry time."""
        if self.counter is not None:
            self.counter.off += 1
        return time.perf_counter()

    def leave(self, t_in):
        self.overhead += time.perf_counter() - t_in
        if self.counter is not None:
            self.counter.off -= 1

    def now(self, t_in):
        """The event at the moment a hook was entered."""
        if self.cuda:
            ev = self.torch.cuda.Event(enable_timing=True)
            ev.record()
            if self.memory:
                # the nested dict memory_stats() flattens, sorts and copies
                # in Python at every call (bench/cuda_stats_flatten.py)
                st = self.torch.cuda.memory_stats_as_nested_dict()
                st = st.get("allocated_bytes", {}).get("all", {})
                return (ev, st.get("allocated", -1), st.get("current", -1))
            return (ev, -1, -1)
        t = (t_in - self.t0 - self.overhead) * 1e3
        alloc = self.alloc.total if self.alloc is not None else -1
        return (t, alloc, -1)

    def resolve(self, ev):
        """An event as (ms, alloc, live) numbers (CUDA events resolved)."""
        if ev is None:
            return (math.nan, -1, -1)
        t, a, l = ev
        if self.cuda:
            t.synchronize()
            t = self.cuda_base.elapsed_time(t)
        return (t, a, l)
