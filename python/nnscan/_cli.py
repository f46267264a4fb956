"""The `nnscan` console script: runs the C command bundled in this package
(nnscan/bin/nnscan, put there by the root setup.py) with the same arguments;
exec replaces this process, so its exit status is the command's."""
import os
import sys


def main():
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "nnscan")
    if not os.path.isfile(exe):
        sys.stderr.write("nnscan: this install has no bundled nnscan command "
                         f"({exe}); install with `pip install .` at the "
                         "repository root, or use the one `cmake --install` "
                         "put on PATH\n")
        return 127
    os.execv(exe, ["nnscan"] + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
