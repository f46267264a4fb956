"""How PyTorch lays out the results of its meta kernels, for fast_meta's
kernels: torch.empty_like's order of a tensor's dims, and the tests that
say a tensor is laid out plainly enough for a kernel to answer."""
import torch

META = torch.device("meta")  # (a string device is parsed per call)


def _like_by_order():
    """Whether torch.empty_like of a meta tensor lays its result out as
    _physical_order says, whatever the input's strides: on PyTorch 2.x its
    meta kernel is the Python reference (empty_permuted in that order,
    about 100 us a call); 1.13's C++ kernel keeps the strides of a dense
    input (those of its dims of length 1 too), and is cheap."""
    x = torch.empty_strided((2, 1, 3), (3, 7, 1), device=META)
    y = torch.empty_strided((2, 3, 4), (1, 8, 2), device=META)
    return torch.empty_like(x).stride() == (3, 3, 1) and \
        torch.empty_like(y).stride() == (1, 8, 2)


# What _like_by_order() finds, told without calling empty_like: on PyTorch
# 2.x the reference that call runs imports torch.fx.experimental.
# symbolic_shapes, and with it sympy (0.46 s on the build machine, at a
# process's first summary). The reference is empty_like's Meta kernel of
# its own; 1.13 has none (its composite kernel serves meta).
# test_fast_meta.py checks that this agrees with _like_by_order().
_LIKE_BY_ORDER = torch._C._dispatch_has_kernel_for_dispatch_key(
    "aten::empty_like", "Meta")


def _physical_order(x):
    """The order, outermost first, in which PyTorch 2.x's empty_like lays
    out the dims of x (its reference: the identity for a contiguous x, the
    channels-last order for a channels-last one, else the dims sorted by
    stride, ties and stride-0 dims left where the sort finds them)."""
    shape, st = x.shape, x.stride()
    nd = len(shape)
    if nd <= 1:
        return list(range(nd))
    c = x.is_contiguous()
    cl = nd == 4 and x.is_contiguous(memory_format=torch.channels_last)
    if c and not cl:
        return list(range(nd))
    if cl and not c:
        return [0] + list(range(2, nd)) + [1]

    def order(i, j):
        """> 0: dim j goes outside dim i; < 0: it stays inside; 0: either."""
        a, b = st[i], st[j]
        if a == 0 or b == 0:
            return 0
        if a == b:  # the longer dim outside
            return 0 if shape[i] == 0 or shape[j] != 0 and \
                shape[j] >= shape[i] else 1
        return -1 if b > a else 1

    perm = list(range(nd - 1, -1, -1))  # innermost first while sorting
    for k in range(1, nd):
        j = k
        for i in range(k - 1, -1, -1):
            c = order(perm[i], perm[j])
            if c > 0:
                perm[i], perm[j] = perm[j], perm[i]
                j = i
            elif c < 0:
                break
    return perm[::-1]


def empty_like(x, dtype=None):
    """torch.empty_like(x, dtype=dtype) of a meta tensor x: on PyTorch 2.x
    (_LIKE_BY_ORDER) made directly, in the order _physical_order gives,
    without the reference's Python (about 100 us a call)."""
    if not _LIKE_BY_ORDER:
        return torch.empty_like(x, dtype=dtype or x.dtype)
    if x.is_contiguous() and not (
            x.dim() == 4
            and x.is_contiguous(memory_format=torch.channels_last)):
        # the identity order (_physical_order's first answer)
        return torch.empty(x.shape, dtype=dtype or x.dtype, device=META)
    return torch.empty_permuted(x.shape, _physical_order(x),
                                dtype=dtype or x.dtype, device=META)


def dense(x):
    """Laid out so that an element-wise result is laid out like it, as
    torch.empty_like makes it."""
    return x.is_contiguous() or x.dim() == 4 and \
        x.is_contiguous(memory_format=torch.channels_last)


def plain(x):
    """A contiguous meta tensor."""
    return isinstance(x, torch.Tensor) and x.is_meta and x.is_contiguous()


def new_strides(x):
    """x's strides are a new contiguous tensor's, those of its dims of
    length 1 included: is_contiguous() ignores those, which PyTorch 1.13's
    convolution reads to choose its output's layout."""
    want = 1
    for n, s in zip(reversed(x.shape), reversed(x.stride())):
        if s != want:
            return False
        want *= n
    return True


def broadcast(s, t):
    """The broadcast of two shapes as a list, None where they do not
    broadcast: torch.broadcast_shapes' answer, which on PyTorch 2.x runs
    its Python reference (about 100 us a call, as much as the kernels
    here save)."""
    n = len(s) - len(t)
    if n < 0:
        s, t, n = t, s, -n
    out = list(s[:n])
    for x, y in zip(s[n:], t):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return out


def number(x):
    return isinstance(x, (int, float))


def ordered(x):
    """The dims longer than 1 have distinct, non-zero strides: one order
    of them, which PyTorch's kernels and empty_like both follow (a stride
    0 or a tie leaves the order to each one's own rule)."""
    seen = set()
    for n, s in zip(x.shape, x.stride()):
        if n != 1:
            if s == 0 or s in seen:
                return False
            seen.add(s)
    return True


def permuted_dense(x):
    """x's elements fill its storage span exactly in some order of its
    dims (a permutation of a contiguous tensor), no dim longer than 1
    with stride 0."""
    dims = sorted((s, n) for s, n in zip(x.stride(), x.shape) if n != 1)
    expect = 1
    for s, n in dims:
        if s != expect:
            return False
        expect *= n
    return True


def ints(v):
    return isinstance(v, (list, tuple)) and all(type(i) is int for i in v)
