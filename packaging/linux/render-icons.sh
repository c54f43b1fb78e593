#!/usr/bin/env bash
# Renders assets/icon.svg to the PNGs that are committed beside it:
#   assets/icons/hicolor/<N>x<N>/apps/io.github.solescope.Solescope.png  (the desktop icon theme sizes)
#   assets/icon.png                                                     (256 px, the window icon)
# (The .deb installs the SVG itself as the scalable icon, straight from assets/icon.svg.)
# Run it after changing the SVG. Builds do not need it: the PNGs are in the repository.
# Needs rsvg-convert (Debian package librsvg2-bin); installs it with apt when missing and root.
set -euo pipefail

app_id=io.github.solescope.Solescope
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
svg=$repo/assets/icon.svg

if ! command -v rsvg-convert >/dev/null; then
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
        apt-get install -y -qq librsvg2-bin >/dev/null
    else
        echo "render-icons: rsvg-convert is missing (Debian: apt-get install librsvg2-bin)" >&2
        exit 1
    fi
fi

for size in 16 32 48 64 128 256 512; do
    dir=$repo/assets/icons/hicolor/${size}x${size}/apps
    mkdir -p "$dir"
    rsvg-convert --width "$size" --height "$size" "$svg" --output "$dir/$app_id.png"
done
cp "$repo/assets/icons/hicolor/256x256/apps/$app_id.png" "$repo/assets/icon.png"
echo "render-icons: wrote $(find "$repo/assets/icons" -type f | wc -l) icons and assets/icon.png"
