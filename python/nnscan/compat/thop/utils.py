"""thop's clever_format."""
from collections.abc import Iterable


def clever_format(nums, format="%.2f"):  # noqa: A002 - thop's keyword
    """Numbers as thop prints them: 1.82G, 11.69M, 512.00K, 12.00B (a
    unit once the value is strictly above 1e12, 1e9, 1e6, 1e3). One
    number gives one string, several give a tuple."""
    many = isinstance(nums, Iterable) and not isinstance(nums, (str, bytes))
    out = []
    for n in (nums if many else [nums]):
        for scale, unit in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "K")):
            if n > scale:
                out.append(format % (n / scale) + unit)
                break
        else:
            out.append(format % n + "B")
    return out[0] if len(out) == 1 else tuple(out)
