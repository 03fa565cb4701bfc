#!/usr/bin/env bash
# 'make deb': kprof's Debian packages (debian/), built from a copy of the
# source in build/deb/, then checked by lintian (no errors allowed; its
# warnings are shown). The packages land in build/deb/:
#   kprofctl, kprof-dev, kprof-dkms, kprof-samples-dkms
set -euo pipefail
. "$(dirname "$0")/../ci/common.sh"

version=$(dpkg-parsechangelog -l "$KPROF_TOP/debian/changelog" -S Version)
out=$KPROF_BUILD/deb
src=$out/kprof-$version
rm -rf "$out"
mkdir -p "$src"
# The tracked files only: no build outputs in the source package.
if git -C "$KPROF_TOP" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$KPROF_TOP" ls-files -z --cached --others --exclude-standard |
		(cd "$KPROF_TOP" && xargs -0 cp --parents -t "$src" 2>/dev/null || true)
else
	tar -C "$KPROF_TOP" --exclude=./build -cf - . | tar -C "$src" -xf -
fi
info "building the Debian packages of kprof $version in $out"
(cd "$src" && DEB_BUILD_OPTIONS="parallel=$(nproc) ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -us -uc -b \
	>"$out/build.log" 2>&1) || {
	tail -n 40 "$out/build.log" >&2
	die "dpkg-buildpackage failed (log: $out/build.log)"
}
changes=$(ls "$out"/kprof_"$version"_*.changes)
# Its tags only (not its notice that it runs as root).
lintian --fail-on error --tag-display-limit 0 "$changes" 2>&1 | grep -v '^running with root privileges' \
	>"$out/lintian.txt" || true
grep -q '^E: ' "$out/lintian.txt" && { cat "$out/lintian.txt" >&2; die "lintian found errors in the packages"; }
[ ! -s "$out/lintian.txt" ] || { echo "lintian (no errors):"; cat "$out/lintian.txt"; }
(cd "$out" && ls -1 ./*.deb)
