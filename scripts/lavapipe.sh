#!/usr/bin/env bash
# Mesa 25's lavapipe (a CPU Vulkan driver) for Dawn on a machine without a GPU, in .cache/mesa/
# (git-ignored): Dawn refuses Debian 12's Mesa 22 lavapipe ("shaderUniform*ArrayDynamicIndexing
# required"), and bookworm-backports has Mesa 25. The package is unpacked privately, not installed,
# so the system's Vulkan drivers stay as they are; its ICD file is .cache/mesa/icd.json, which
# tests/harness.py and scripts/bench.py --dawn hand to Dawn through VK_ICD_FILENAMES.
# Idempotent: does nothing when the ICD file exists.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=.cache/mesa
if [ -f "$dest/icd.json" ] && [ -f "$(sed -E 's/.*"library_path": "([^"]+)".*/\1/' "$dest/icd.json")" ]; then
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "deb http://deb.debian.org/debian bookworm-backports main" > "$work/sources.list"
mkdir -p "$work/lists/partial"
apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o "Dir::State::Lists=$work/lists" -o APT::Sandbox::User=root)
apt-get "${apt_opts[@]}" update -qq
(cd "$work" && apt-get "${apt_opts[@]}" download -qq mesa-vulkan-drivers)
rm -rf "$dest" && mkdir -p "$dest"
dpkg -x "$work"/mesa-vulkan-drivers_*.deb "$dest/root"
lib=$(find "$(pwd)/$dest/root" -name libvulkan_lvp.so | head -n 1)
[ -n "$lib" ] || { echo "lavapipe.sh: no libvulkan_lvp.so in the package" >&2; exit 1; }
printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s", "api_version": "1.4.305"}}\n' \
  "$lib" > "$dest/icd.json"
echo "lavapipe.sh: Mesa $(dpkg-deb -f "$work"/mesa-vulkan-drivers_*.deb Version) in $dest"
