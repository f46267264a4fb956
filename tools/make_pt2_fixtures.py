"""Writes tests/fixtures/pt2/: small_cnn.pt2 (tools/pt2_models.py's CNN,
exported with a dynamic batch by torch.export.save: stored entries) and
small_cnn_deflated.pt2 (the same entries deflated, for the reader's zlib
path), and the same archive as the pt2 fuzz target's seed. Run in the sid
chroot (PyTorch 2.x):

    /work/sidrun . 'python3 tools/make_pt2_fixtures.py'
"""
import os
import shutil
import sys
import zipfile

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pt2_models  # noqa: E402

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
out = os.path.join(root, "tests", "fixtures", "pt2")
seeds = os.path.join(root, "tests", "fuzz", "seeds", "fuzz_pt2")
os.makedirs(out, exist_ok=True)
os.makedirs(seeds, exist_ok=True)
torch.manual_seed(0)
stored = os.path.join(out, "small_cnn.pt2")
pt2_models.export("small_cnn", stored)
deflated = os.path.join(out, "small_cnn_deflated.pt2")
with zipfile.ZipFile(stored) as src, \
        zipfile.ZipFile(deflated, "w", zipfile.ZIP_DEFLATED) as dst:
    for info in src.infolist():
        # the sample inputs and weights are not read: left out of the
        # deflated copy, which shows the reader needs neither
        if "/data/" in info.filename:
            continue
        dst.writestr(info.filename, src.read(info.filename))
shutil.copy(deflated, os.path.join(seeds, "small_cnn_deflated.pt2"))
print("wrote", stored, deflated)
