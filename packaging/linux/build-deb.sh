#!/usr/bin/env bash
# Builds the Debian package, checks it, installs it into a throwaway root and runs it there.
#
#   bash packaging/linux/build-deb.sh            # everything; the .deb lands in target/debian/
#   SOLESCOPE_DEB_SKIP_BUILD=1 bash ...          # check the .deb already in target/debian/
#
# Steps: install missing tools (apt: lintian, appstream, desktop-file-utils, xvfb, ...; cargo-deb
# from crates.io), `cargo deb --profile dist` (the whole-program-optimised build we ship), lintian (fails on errors and warnings), appstreamcli validate,
# desktop-file-validate, `dpkg --root` into a temporary root, the installed binary's --version,
# then two first runs under Xvfb, each with an empty HOME: --screenshot (the PNG must not be
# blank, the window's WM_CLASS must be the app id) and the window opened and closed as a user
# would; both must write only under $XDG_DATA_HOME/solescope. Last, a minimal Debian made with
# mmdebstrap installs the .deb with apt-get and runs it (SOLESCOPE_DEB_SKIP_CLEAN_SYSTEM=1 skips
# this: it downloads about 100 MB of Debian packages).
set -euo pipefail

app_id=io.github.solescope.Solescope
# The cargo-deb major version this script was written against (its asset and field names).
cargo_deb_version=3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$repo"

step() { printf '\n==> %s\n' "$*"; }
fail() { printf 'build-deb: FAILED: %s\n' "$*" >&2; exit 1; }

as_root() {
    if [[ $(id -u) -eq 0 ]]; then
        "$@"
    elif command -v sudo >/dev/null; then
        sudo "$@"
    else
        fail "need root (or sudo) to run: $*"
    fi
}

apt_updated=
apt_get() {
    if [[ -z $apt_updated ]]; then
        as_root apt-get update -qq
        apt_updated=1
    fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get -y -qq --no-install-recommends "$@" >/dev/null
}

# Whether every group of a Depends field ("a (>= 1), b | c") has an installed member.
depends_installed() {
    local group alternative name
    while IFS= read -r group; do
        for alternative in ${group//|/ }; do
            name=${alternative%%(*}
            [[ $name == \(* || $name == *\) || -z $name ]] && continue
            if dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q 'install ok installed'; then
                continue 2
            fi
        done
        echo "missing: $group"
        return 1
    done < <(tr ',' '\n' <<<"$1" | sed 's/([^)]*)//g; s/^ *//; s/ *$//' | grep -v '^$')
}

step "tools"
# command -> Debian package that provides it
declare -A needed=(
    [lintian]=lintian
    [appstreamcli]=appstream
    [desktop-file-validate]=desktop-file-utils
    [xvfb-run]=xvfb
    [xauth]=xauth
    [xprop]=x11-utils
    [xwininfo]=x11-utils
    [dpkg-shlibdeps]=dpkg-dev
    [python3]=python3
)
missing=()
for tool in "${!needed[@]}"; do
    command -v "$tool" >/dev/null || missing+=("${needed[$tool]}")
done
if ((${#missing[@]})); then
    echo "installing: ${missing[*]}"
    # shellcheck disable=SC2046 # one word per package, deduplicated
    apt_get install $(printf '%s\n' "${missing[@]}" | sort -u)
fi
if ! cargo deb --version >/dev/null 2>&1; then
    echo "installing cargo-deb $cargo_deb_version.x from crates.io"
    cargo install cargo-deb --locked --version "^$cargo_deb_version"
fi
echo "cargo-deb $(cargo deb --version 2>&1 | awk '{print $NF}'), $(lintian --version), $(appstreamcli --version)"

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
[[ -n $version ]] || fail "no version in Cargo.toml"

if [[ -z ${SOLESCOPE_DEB_SKIP_BUILD:-} ]]; then
    step "cargo deb --locked --strip --profile dist (fat LTO, one codegen unit; several times a release build)"
    started=$SECONDS
    # --strip also drops the .comment section that rustc's strip leaves (lintian:
    # binary-has-unneeded-section). The `dist` profile (Cargo.toml) is the shipped binary's:
    # cargo-deb takes the asset `target/release/solescope` from the profile's own folder.
    cargo deb --locked --strip --profile dist
    echo "built in $((SECONDS - started)) s"
fi
deb=target/debian/solescope_${version}-1_$(dpkg --print-architecture).deb
[[ -f $deb ]] || fail "no $deb"
echo "$deb: $(stat -c %s "$deb") bytes; binary $(stat -c %s target/dist/solescope) bytes"
dpkg-deb --info "$deb" | sed -n '/Package:/,$p'

step "lintian"
# Overrides ship inside the package (usr/share/lintian/overrides/solescope), each with its reason.
lintian --info --display-level '>=pedantic' --fail-on error,warning "$deb"
echo "lintian: no errors or warnings"

step "appstreamcli validate"
appstreamcli validate --no-net "packaging/linux/$app_id.metainfo.xml"

step "desktop-file-validate"
desktop-file-validate "packaging/linux/$app_id.desktop"
echo "desktop-file-validate: clean"

work=$(mktemp -d "${TMPDIR:-/tmp}/solescope-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT

step "install into a throwaway root: $work/root"
root=$work/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
# The root's package database is empty, so its Depends cannot be met there (they are met on
# this system instead, below); the package has no maintainer scripts, so nothing runs chrooted.
dpkg_root=(dpkg --root="$root" --log=/dev/null --force-depends --force-not-root)
# (It lists every Depends as missing there: kept out of the way unless the install fails.)
"${dpkg_root[@]}" --install "$deb" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg --install"; }
"${dpkg_root[@]}" --status solescope | grep -E '^(Status|Version):'
expected=(
    usr/bin/solescope
    "usr/share/applications/$app_id.desktop"
    "usr/share/metainfo/$app_id.metainfo.xml"
    "usr/share/icons/hicolor/scalable/apps/$app_id.svg"
    usr/share/man/man1/solescope.1.gz
    usr/share/doc/solescope/copyright
    usr/share/doc/solescope/changelog.Debian.gz
    usr/share/lintian/overrides/solescope
)
for size in 16 32 48 64 128 256 512; do
    expected+=("usr/share/icons/hicolor/${size}x${size}/apps/$app_id.png")
done
for file in "${expected[@]}"; do
    [[ -f $root/$file ]] || fail "$file is not installed"
    "${dpkg_root[@]}" --search "/$file" >/dev/null || fail "dpkg does not list /$file as solescope's"
done
echo "${#expected[@]} files in their standard places, all owned by the package:"
"${dpkg_root[@]}" --listfiles solescope | sort | while read -r path; do
    [[ -d $root$path ]] || echo "  $path"
done
# The installed copies validate too (the same files, but this proves what was packaged).
appstreamcli validate --no-net "$root/usr/share/metainfo/$app_id.metainfo.xml" >/dev/null
desktop-file-validate "$root/usr/share/applications/$app_id.desktop"
grep -qx "Exec=solescope" "$root/usr/share/applications/$app_id.desktop" || fail "Exec is not solescope"

step "runtime dependencies (the package's Depends, installed on this system)"
depends=$(dpkg-deb --field "$deb" Depends)
echo "Depends: $depends"
if ! depends_installed "$depends"; then
    apt_get satisfy "$depends"
    depends_installed "$depends" || fail "apt could not satisfy the Depends"
fi
echo "all installed"
bin=$root/usr/bin/solescope
if ldd "$bin" | grep -q 'not found'; then
    ldd "$bin"
    fail "a linked library is missing"
fi

step "solescope --version"
shown=$("$bin" --version)
echo "$shown"
[[ $shown == "solescope $version" ]] || fail "--version says '$shown', expected 'solescope $version'"

# Runs the installed binary under Xvfb as a first run: `env -i`, and a fresh HOME, XDG_DATA_HOME,
# TMPDIR, XDG_RUNTIME_DIR and working directory under $work/$1. $2 is the bash to run there, with
# $BIN the binary. Then checks that the run wrote files only under $XDG_DATA_HOME/solescope.
#
# XDG_RUNTIME_DIR is empty and DBUS_SESSION_BUS_ADDRESS unset, so a run cannot reach (and write
# to) the keyring of whoever runs this script; the app then keeps the key for the session.
# XDG_CONFIG_HOME, XDG_CACHE_HOME and XDG_STATE_HOME are left at their defaults under HOME, so
# anything written there is caught. xvfb-run's authority file is kept outside the checked dirs.
first_run() {
    local name=$1 script=$2 dir=$work/$1
    mkdir -p "$dir"/{home,data,tmp,cwd,runtime}
    chmod 700 "$dir/runtime"
    if ! (
        cd "$dir/cwd"
        env -i PATH=/usr/bin:/bin LANG=C.UTF-8 NO_COLOR=1 SOLESCOPE_LOG=info \
            HOME="$dir/home" XDG_DATA_HOME="$dir/data" XDG_RUNTIME_DIR="$dir/runtime" \
            TMPDIR="$dir/tmp" BIN="$bin" OUT="$dir" HERE="$here" \
            xvfb-run -a -f "$work/$name.Xauthority" -s '-screen 0 1280x1024x24' bash -c "$script"
    ) >"$dir/run.log" 2>&1; then
        sed 's/^/  | /' "$dir/run.log"
        fail "the $name run failed"
    fi
    sed 's/^/  | /' "$dir/run.log" | tail -n 5
    echo "  files after the run:"
    (cd "$dir" && find home data tmp cwd runtime -mindepth 1 -printf '    %y %p\n' | sort)
    local stray outside
    stray=$(cd "$dir" && find home tmp cwd runtime -mindepth 1 -print)
    [[ -z $stray ]] || fail "the $name run wrote outside the data directory: $stray"
    outside=$(cd "$dir/data" && find . -mindepth 1 -maxdepth 1 ! -name solescope -print)
    [[ -z $outside ]] || fail "the $name run wrote in XDG_DATA_HOME outside solescope/: $outside"
    [[ -f $dir/data/solescope/demo-catalogue.sqlite ]] || fail "no demo catalogue in XDG_DATA_HOME/solescope"
    echo "  everything the $name run wrote is under \$XDG_DATA_HOME/solescope"
}

step "first run: solescope --screenshot under Xvfb"
# shellcheck disable=SC2016 # expanded by the inner bash, in the run's environment
first_run screenshot '
    "$BIN" --screenshot "$OUT/shot.png" &
    pid=$!
    # While the window is up, read its WM_CLASS (what StartupWMClass must match).
    while kill -0 "$pid" 2>/dev/null; do
        window=$(xwininfo -root -tree 2>/dev/null | awk "/Solescope/ {print \$1; exit}")
        if [[ -n $window ]] && xprop -id "$window" WM_CLASS >"$OUT/wm_class" 2>/dev/null; then
            break
        fi
        sleep 0.2
    done
    wait "$pid"
'
shot=$work/screenshot/shot.png
[[ -s $shot ]] || fail "no screenshot at $shot"
python3 "$here/check-png.py" "$shot"
cp "$shot" target/debian/first-run-screenshot.png
echo "  kept as target/debian/first-run-screenshot.png"
wm_class=$(cat "$work/screenshot/wm_class" 2>/dev/null || true)
echo "  window: ${wm_class:-not seen}"
[[ $wm_class == *"\"$app_id\""* ]] ||
    fail "WM_CLASS does not name $app_id: StartupWMClass and the Wayland app id would not match"

step "first run: the window as a user opens and closes it"
# Once the demo catalogue is built (it is renamed into place when complete) and the first fetches
# have landed, close the window as a window manager would (Xvfb has none), and check the app
# exited cleanly and saved its state.
# shellcheck disable=SC2016 # expanded by the inner bash, in the run's environment
first_run window '
    "$BIN" &
    pid=$!
    for _ in $(seq 600); do
        [[ -f $XDG_DATA_HOME/solescope/demo-catalogue.sqlite ]] && break
        kill -0 "$pid" 2>/dev/null || { echo "the app ended before its catalogue was built"; exit 1; }
        sleep 0.2
    done
    sleep 3
    window=$(xwininfo -root -tree | awk "/Solescope/ {print \$1; exit}")
    [[ -n $window ]] || { echo "no Solescope window"; exit 1; }
    python3 "$HERE/x11-close.py" "$window"
    wait "$pid" || { echo "the app exited with $? when closed"; exit 1; }
    echo "closed; saved state: $(cd "$XDG_DATA_HOME" && find . -name app.ron)"
    [[ -n $(find "$XDG_DATA_HOME" -name app.ron) ]] || { echo "no app.ron after closing"; exit 1; }
'

step "a clean Debian: mmdebstrap, apt-get install the .deb, run it"
# The dpkg root above proves the files; this proves the Depends: a minimal Debian of this
# system's release (essential packages and apt, from the Debian mirror) gets the .deb with
# apt-get and no recommends, then runs --version and --screenshot under its own Xvfb.
if [[ -n ${SOLESCOPE_DEB_SKIP_CLEAN_SYSTEM:-} ]]; then
    echo "skipped (SOLESCOPE_DEB_SKIP_CLEAN_SYSTEM)"
else
    command -v mmdebstrap >/dev/null || apt_get install mmdebstrap
    suite=$(sed -n "s/^VERSION_CODENAME=//p" /etc/os-release)
    clean=$work/clean
    mkdir -p "$clean"
    cp "$deb" "$clean/solescope.deb"
    started=$SECONDS
    # shellcheck disable=SC2016 # $1 is the chroot, expanded by mmdebstrap's hook shell
    if ! mmdebstrap --variant=apt --mode=auto \
        --customize-hook="copy-in $clean/solescope.deb /tmp" \
        --customize-hook='chroot "$1" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends /tmp/solescope.deb xvfb xauth' \
        --customize-hook='chroot "$1" dpkg-query -W -f "installed: \${Package} \${Version}\n" solescope' \
        --customize-hook='chroot "$1" solescope --version' \
        --customize-hook='chroot "$1" env -i PATH=/usr/bin:/bin HOME=/tmp/home NO_COLOR=1 sh -c "mkdir -p /tmp/home && xvfb-run -a solescope --screenshot /tmp/shot.png"' \
        --customize-hook="copy-out /tmp/shot.png $clean" \
        "$suite" /dev/null >"$clean/log" 2>&1; then
        tail -n 40 "$clean/log"
        fail "the clean-system install or run failed (log above)"
    fi
    grep -E '^(installed: |solescope [0-9])' "$clean/log" | sed 's/^/  /'
    python3 "$here/check-png.py" "$clean/shot.png"
    echo "  a minimal $suite with only the Depends ran it ($((SECONDS - started)) s)"
fi

step "passed: $deb"
