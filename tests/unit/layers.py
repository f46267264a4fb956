"""The house as DESIGN.md draws it: which folder of src/ may use which.

Data flows one way and lower folders never reach higher ones, so a change
that makes the builder call the aten front, or the op table call the
analysis, fails here instead of waiting for a reader to notice. Two kinds
of use are checked, each against LAYERS below:
  - an #include of another folder's header ("../front/front.h");
  - a call or a reference at link time: an undefined symbol of one
    folder's object file that another folder's object file defines (a
    public function such as nns_model_set_module counts: where it is
    defined is the folder it belongs to).

    tests/unit/layers.py SRC_DIR OBJECTS_DIR
OBJECTS_DIR holds the library's object files by folder
(build/CMakeFiles/nnscan_objects.dir/src); without it only the includes
are checked.
"""
import os
import re
import subprocess
import sys

# folder -> the folders it may use (besides itself). cli/ uses the public
# header alone, so it is not a folder of the library.
LAYERS = {
    "base": set(),
    "ir": {"base"},
    "ops": {"base", "ir"},
    "infer": {"base", "ir", "ops"},
    "analyze": {"base", "ir", "ops", "infer"},
    "inspect": {"base", "ir", "analyze"},
    "report": {"base", "ir", "ops", "analyze", "inspect"},
    # the front ends: bytes (ONNX, a .pt2 archive, a binding's packed
    # calls) into the graph; the aten front lowers calls through ops/
    "front": {"base", "ir", "ops"},
    "pt2": {"base", "ir", "ops", "front"},
    # the ONNX loader hands a zip (a torch.export archive) to pt2/ by its
    # first bytes: nns_model_load_file reads either
    "onnx": {"base", "ir", "pt2"},
}

INCLUDE = re.compile(r'#include "\.\./([a-z0-9_]+)/')


def include_edges(src):
    bad = []
    for folder in sorted(os.listdir(src)):
        top = os.path.join(src, folder)
        if not os.path.isdir(top):
            continue
        for dirpath, _, files in os.walk(top):
            for f in files:
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, f)
                with open(path, encoding="utf-8") as fh:
                    for n, line in enumerate(fh, 1):
                        m = INCLUDE.match(line)
                        if m and m.group(1) not in LAYERS.get(folder, set()) \
                                and m.group(1) != folder:
                            bad.append(f"{os.path.relpath(path, src)}:{n}: "
                                       f"{folder}/ includes {m.group(1)}/")
    return bad


def symbols(paths, *flags):
    """path -> its symbols (nm -A over all paths in one run)."""
    out = subprocess.run(["nm", "-A", *flags, *paths], check=True,
                         capture_output=True, text=True).stdout
    got = {p: [] for p in paths}
    for line in out.splitlines():
        path, _, rest = line.partition(":")
        if rest.strip():
            got[path].append(rest.split()[-1])
    return got


def link_edges(objects):
    folder_of = {}  # object path -> its folder
    for folder in sorted(os.listdir(objects)):
        for dirpath, _, files in os.walk(os.path.join(objects, folder)):
            for f in files:
                if f.endswith(".o"):
                    folder_of[os.path.join(dirpath, f)] = folder
    paths = sorted(folder_of)
    if not paths:
        return [], 0
    defined = {}  # symbol -> folder
    for path, syms in symbols(paths, "-g", "--defined-only").items():
        for s in syms:
            defined[s] = folder_of[path]
    bad = set()
    for path, syms in symbols(paths, "-u").items():
        folder = folder_of[path]
        for s in syms:
            owner = defined.get(s)
            if owner and owner != folder and \
                    owner not in LAYERS.get(folder, set()):
                name = os.path.basename(path)[:-2]
                bad.add(f"{folder}/{name} uses {s} of {owner}/")
    return sorted(bad), len(defined)


def main():
    src = sys.argv[1]
    folders = {d for d in os.listdir(src)
               if os.path.isdir(os.path.join(src, d))}
    unknown = folders - set(LAYERS) - {"cli"}
    bad = [f"src/{d}/ is in no layer: add it to LAYERS in "
           f"tests/unit/layers.py" for d in sorted(unknown)]
    bad += include_edges(src)
    n = 0
    if len(sys.argv) > 2:
        more, n = link_edges(sys.argv[2])
        bad += more
        if n == 0:
            bad.append(f"no symbols under {sys.argv[2]}: wrong folder?")
    for b in bad:
        print("layers:", b)
    print(f"layers: {len(folders)} folders, {n} symbols checked, "
          f"{len(bad)} uses against the layering")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
