#!/usr/bin/env bash
# The Python suite on the newest PyTorch Debian ships (sid's python3-torch),
# next to the host's (Debian 12: PyTorch 1.13). Run as root:
#
#   tests/sid_chroot.sh setup DIR          # make (or reuse) the chroot
#   tests/sid_chroot.sh test DIR LIBRARY   # onnx 1.20 conformance, then
#                                          # python/tests (+ python/tests_hf),
#                                          # then both against the rules
#   tests/sid_chroot.sh shell DIR          # a shell in it, checkout at /nnscan
#
# setup: `debootstrap --variant=minbase sid DIR` from the host's own Debian
# mirror, then apt-get installs SID_PACKAGES; a marker file written last
# (DIR/.nnscan-sid-ready, holding the package list) makes a later setup
# reuse the chroot (installing what a changed list adds), and a setup that
# died half-way start over.
# test/shell: mounts proc, the host's /dev (read-only: its device nodes work,
# nothing in it can be deleted), a tmpfs on /dev/shm and the checkout
# (read-only) at DIR/nnscan only while the command runs, and always unmounts
# them (trap on EXIT), so `rm -rf build` never reaches the host's /dev or
# the checkout through the chroot. A run killed with SIGKILL leaves them
# mounted: any later call unmounts what it finds first (`unmount DIR`).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)

# What the Python suites need on PyTorch 2.x: torch, torchvision and
# transformers (the Hugging Face zoo), pytest, jsonschema (report schema),
# onnx (method="onnx", graph checks), venv + pip + setuptools + wheel
# (test_packaging's offline install), a C compiler (test_header,
# test_packaging's stand-in libraries) and CMake, make and zlib's headers
# (test_packaging builds the repository root with `pip install .`),
# accelerate (the transformers Trainer of test_step_meter_hf.py) and
# onnx 1.20's backend node tests (libonnx-testdata: tests/conformance, run
# on them by the host-built binary beside LIBRARY), and OpenBLAS
# (libopenblas0-pthread: bench/recording_speed.py times eager forwards
# here, which the reference BLAS makes 5-50x slower).
SID_PACKAGES=(python3-torch python3-torchvision python3-transformers
              python3-pytest python3-jsonschema python3-onnx python3-venv
              python3-pip python3-setuptools python3-wheel gcc libc6-dev
              cmake make zlib1g-dev python3-accelerate libonnx-testdata
              libopenblas0-pthread)
MARKER=.nnscan-sid-ready

die() { echo "sid_chroot.sh: $*" >&2; exit 1; }

# The first mirror the host's apt uses (deb822 debian.sources, else the
# one-line sources.list), so the chroot comes from where the host's
# packages come from.
host_mirror() {
  local f uri
  for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] || continue
    uri=$(awk '/^URIs:/ { print $2; exit }' "$f")
    [ -n "$uri" ] && { echo "$uri"; return; }
  done
  if [ -r /etc/apt/sources.list ]; then
    uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) { print $i; exit } }' \
      /etc/apt/sources.list)
    [ -n "$uri" ] && { echo "$uri"; return; }
  fi
  echo http://deb.debian.org/debian
}

# The host apt's date checks (a mirror serving a frozen snapshot has its
# host configured not to check Valid-Until): the chroot's apt does the same.
host_apt_opts() {
  apt-config dump 2>/dev/null |
    sed -n 's/^\(Acquire::Check-\(Valid-Until\|Date\)\) "\(.*\)";$/-o \1=\3/p'
}

# Every mount point under DIR, deepest first.
mounts_under() {
  local dir
  dir=$(realpath -m "$1")
  awk -v d="$dir" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/self/mounts |
    sort -r
}

unmount() {
  local m
  for m in $(mounts_under "$1"); do
    umount "$m" 2>/dev/null || umount -l "$m"
  done
  if [ -n "$(mounts_under "$1")" ]; then
    die "cannot unmount everything under $1: $(mounts_under "$1" | tr '\n' ' ')"
  fi
}

mount_all() { # DIR
  local dir=$1
  unmount "$dir"
  trap 'unmount "$dir"' EXIT
  trap 'exit 130' INT TERM
  mkdir -p "$dir/proc" "$dir/dev" "$dir/nnscan"
  mount -t proc proc "$dir/proc"
  mount --bind /dev "$dir/dev"
  mount -o remount,bind,ro "$dir/dev"
  mount -t tmpfs -o size=1g,mode=1777 tmpfs "$dir/dev/shm"
  mount --bind "$ROOT" "$dir/nnscan"
  mount -o remount,bind,ro "$dir/nnscan"
}

apt_install() { # DIR: SID_PACKAGES into the chroot (apt from the host's mirror)
  local dir=$1 opts
  opts=$(host_apt_opts | tr '\n' ' ')
  cp -L /etc/resolv.conf "$dir/etc/resolv.conf"
  (
    mount_all "$dir"
    echo "== apt-get install (sid): ${SID_PACKAGES[*]}"
    chroot "$dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
      DEBIAN_FRONTEND=noninteractive /bin/sh -c \
      "apt-get $opts update -q && apt-get $opts install -y -q --no-install-recommends \"\$@\" && apt-get clean" \
      sh "${SID_PACKAGES[@]}"
  )
}

# The chroot takes about 2.5 GB installed, and apt holds the packages it
# downloads (about 0.9 GB) until they are in: a disk that fills half-way
# leaves dpkg's "No space left on device" deep in apt's output, so say it
# first, naming the folder and what it has.
NEED_MB=4096
enough_space() { # DIR
  local free
  free=$(df -Pm "$1" | awk 'NR == 2 { print $4 }')
  [ -n "$free" ] || return 0
  [ "$free" -ge "$NEED_MB" ] ||
    die "$free MB free on the filesystem of $1; the sid chroot needs about $NEED_MB MB (debootstrap, then PyTorch, transformers and their packages)"
}

setup() { # DIR
  local dir=$1 want
  want=$(printf '%s\n' "${SID_PACKAGES[@]}")
  if [ -f "$dir/$MARKER" ]; then
    if [ "$(cat "$dir/$MARKER")" = "$want" ]; then
      echo "== sid chroot $dir: ready (reused)"
      return
    fi
    # a complete chroot made for another package list: add what is new
    rm -f "$dir/$MARKER"
    apt_install "$dir"
    echo "$want" >"$dir/$MARKER"
    return
  fi
  command -v debootstrap >/dev/null || die "debootstrap is not installed"
  unmount "$dir"
  rm -rf "$dir"
  mkdir -p "$dir"
  enough_space "$dir"
  local mirror
  mirror=$(host_mirror)
  echo "== debootstrap --variant=minbase sid $dir $mirror"
  debootstrap --variant=minbase sid "$dir" "$mirror" >"$dir.debootstrap.log" 2>&1 ||
    { tail -30 "$dir.debootstrap.log"; die "debootstrap failed (log: $dir.debootstrap.log)"; }
  echo "deb $mirror sid main" >"$dir/etc/apt/sources.list"
  apt_install "$dir"
  echo "$want" >"$dir/$MARKER"
}

run_tests() { # DIR LIBRARY (a path inside the checkout)
  local dir=$1 lib
  lib=$(realpath "$2")
  case $lib in "$ROOT"/*) ;; *) die "$2 is not inside the checkout $ROOT";; esac
  [ -f "$dir/$MARKER" ] || die "no chroot in $dir: run '$0 setup $dir' first"
  local suites=(tests)
  [ -d "$ROOT/python/tests_hf" ] && suites+=(tests_hf)
  mount_all "$dir"
  # onnx 1.20's node tests, scored as a deployed model has them (integer
  # inputs bound): none wrong or refused, the allowlist kept, and at least
  # 92 % of the opset 18-25 cases full (issue 44).
  local conf=${lib%/*}/tests/conformance
  [ -x "$conf" ] || die "no conformance binary at $conf (build the tests)"
  echo "== conformance on onnx $(chroot "$dir" python3 -c 'import onnx; print(onnx.__version__)') node tests (sid chroot)"
  chroot "$dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    NNS_REQUIRE_TESTDATA=1 /bin/sh -c 'cd /nnscan/tests && exec "$@"' sh \
    "/nnscan/${conf#"$ROOT"/}" --bind-ints --opset-from 18 --min-full 92 \
    --allowlist conformance/allowlist_onnx120.txt \
    /usr/share/libonnx-testdata/data | grep -v '^new '
  echo "== pytest on $(chroot "$dir" python3 -c 'import torch; print("PyTorch", torch.__version__)') (sid chroot): ${suites[*]}"
  # The checkout is read-only in the chroot: no bytecode, no pytest cache.
  chroot "$dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 NNSCAN_LIBRARY="/nnscan/${lib#"$ROOT"/}" \
    /bin/sh -c 'cd /nnscan/python && exec python3 -m pytest -q -p no:cacheprovider -rfEs "$@"' \
    sh "${suites[@]}"
  # Every summary of both suites made with the layers' replay off too and
  # compared, report by report (tools/switch_same.py): replayed layers
  # against every call recorded on PyTorch 2.x, whose decompositions and
  # models the host's suite does not see (about 7 min).
  echo "== every summary with the layers replayed against every call recorded (tools/switch_same.py)"
  chroot "$dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 NNSCAN_LIBRARY="/nnscan/${lib#"$ROOT"/}" \
    /bin/sh -c 'cd /nnscan/python && exec python3 ../tools/switch_same.py -q -p no:cacheprovider "$@"' \
    sh "${suites[@]}"
  # Repeated attention calls replayed (python/nnscan/replay.py) against
  # every call run, on decoders, encoders and an encoder-decoder of five
  # layers, with and without a padding mask: the same reports (a few s).
  echo "== replayed attention against every call run (tools/replay_zoo.py)"
  chroot "$dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 NNSCAN_LIBRARY="/nnscan/${lib#"$ROOT"/}" \
    python3 /nnscan/tools/replay_zoo.py llama mistral qwen2 gemma2 gpt2 \
    bert whisper vit
}

[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap, chroot and mount need it)"
[ $# -ge 2 ] || die "usage: $0 setup DIR | test DIR LIBRARY | shell DIR | unmount DIR"
cmd=$1 dir=$(realpath -m "$2")
case $cmd in
  setup) setup "$dir" ;;
  test) [ $# -eq 3 ] || die "usage: $0 test DIR LIBRARY"; run_tests "$dir" "$3" ;;
  shell) mount_all "$dir"; chroot "$dir" /bin/bash -c 'cd /nnscan; exec bash -i' ;;
  unmount) unmount "$dir" ;;
  *) die "unknown command $cmd" ;;
esac
