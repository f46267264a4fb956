#!/usr/bin/env bash
# bench/get_peers.sh DEST [MIRRORS]
#
# Puts the hook-based tools bench/recording_speed.py compares with into
# DEST, each at a pinned commit, as plain source trees for PYTHONPATH (no
# pip, no build): DEST/torchinfo, DEST/torchscan, DEST/thop. Nothing of
# theirs is in this repository. Then:
#
#   PYTHONPATH=python:DEST/torchinfo:DEST/torchscan:DEST/thop \
#     python3 bench/recording_speed.py --only torchvision,hf
#
# The sources come from MIRRORS/OWNER+NAME/repo when that bare git
# directory exists (an offline copy), else from a clone of GitHub (the only
# step that needs a network; the bench itself never does). Each tree gets
# a NAME-VERSION.dist-info with the package's version and the commit, so
# that importlib.metadata finds it as if installed (torchscan reads its own
# version that way at import) and the bench can print what it timed.
set -euo pipefail

[ $# -ge 1 ] || { sed -n 2,17p "$0" >&2; exit 2; }
dest=$1
mirrors=${2:-}
mkdir -p "$dest"

# name  owner/repo  commit  version (the package's own at that commit)
PEERS=(
  "torchinfo TylerYep/torchinfo 5c4164f1e2e185ce33c597dbe00535bf8ed2b930 1.8.0.post205"
  "torchscan frgfm/torch-scan 6431b493ae7293e52f22e475f2f591760b559ecd 0.2.0.dev0"
  "thop Lyken17/pytorch-OpCounter 43c064afb71383501e41eaef9e8c8407265cf77f 0.1.1.post2209072238"
)
# torchinfo: v1.8.0 plus 205 commits (its __version__ says 1.8.0);
# torchscan: main after v0.1.2, pyproject's 0.2.0.dev0 (the 0.2 API:
# torch.utils.flop_counter, PyTorch >= 2.1; on PyTorch 1.13 use its tag
# v0.1.2); thop: the commit PyPI's thop 0.1.1.post2209072238 was built from.

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for line in "${PEERS[@]}"; do
  read -r name repo commit version <<<"$line"
  gitdir=$mirrors/${repo/\//+}/repo
  if [ -z "$mirrors" ] || [ ! -d "$gitdir" ]; then
    gitdir=$tmp/$name.git
    git clone -q --bare --filter=blob:none "https://github.com/$repo" "$gitdir"
  fi
  rm -rf "${dest:?}/$name"
  mkdir -p "$dest/$name"
  git --git-dir="$gitdir" archive "$commit" | tar -x -C "$dest/$name"
  info=$dest/$name/$name-$version.dist-info
  mkdir -p "$info"
  printf 'Metadata-Version: 2.1\nName: %s\nVersion: %s\nHome-page: https://github.com/%s\nSummary: %s at %s (bench/get_peers.sh)\n' \
    "$name" "$version" "$repo" "$repo" "$commit" >"$info/METADATA"
  echo "$repo $commit" >"$dest/$name/PEER_COMMIT"
  echo "$name $version  $repo@$commit  -> $dest/$name"
done
echo "PYTHONPATH=python:$dest/torchinfo:$dest/torchscan:$dest/thop"
