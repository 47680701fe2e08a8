#!/usr/bin/env bash
# make release: the static binaries of both programs for each of RELEASE_PLATFORMS, packed per
# platform with the systemd units, the licence, the README and the changelog, their SHA-256
# checksums (SHA256SUMS), and the version's CHANGELOG section (RELEASE-NOTES.md), in
# $DIST/$VERSION/. The Makefile passes VERSION, GO, DIST, RELEASE_PLATFORMS, STATIC_TAG_LIST and
# STATIC_LDFLAGS.
#
# cgo (go-sqlite3) needs a C compiler for each target: the host's for its own architecture, a
# cross compiler (CC_linux_arm64, default aarch64-linux-gnu-gcc) for another. A platform whose
# compiler is missing is not built, says so and makes the run fail once the others are built:
# nothing is ever packed in its place.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VERSION:?}" "${STATIC_TAG_LIST:?}" "${STATIC_LDFLAGS:?}"
GO=${GO:-go}
DIST=${DIST:-dist}
RELEASE_PLATFORMS=${RELEASE_PLATFORMS-linux/amd64 linux/arm64}

out="$DIST/$VERSION"
rm -rf "$out"
mkdir -p "$out"

# The release notes: a tag vX.Y.Z needs its "## [X.Y.Z]" section; anything else is a snapshot
# with the "## [Unreleased]" section.
if [[ $VERSION =~ ^v([0-9]+\.[0-9]+\.[0-9]+)$ ]]; then
	section="${BASH_REMATCH[1]}"
else
	section="Unreleased"
	echo "release: $VERSION is not a release tag (vMAJOR.MINOR.PATCH): a snapshot, with the [Unreleased] notes" >&2
fi
awk -v head="## [$section]" '
	index($0, head) == 1 { on = 1; print; next }
	on && /^## / { exit }
	on { print }' CHANGELOG.md >"$out/RELEASE-NOTES.md"
if [ ! -s "$out/RELEASE-NOTES.md" ]; then
	echo "release: CHANGELOG.md has no \"## [$section]\" section; write it before tagging $VERSION" >&2
	exit 1
fi

# Reproducible archives: every file dated by the commit, owned by root.
epoch=$(git log -1 --format=%ct 2>/dev/null || date +%s)
host_arch=$($GO env GOHOSTARCH)
built=() missing=()
for platform in $RELEASE_PLATFORMS; do
	goos=${platform%/*} goarch=${platform#*/}
	ccvar="CC_${goos}_${goarch}"
	if [ -n "${!ccvar:-}" ]; then
		cc=${!ccvar}
	elif [ "$goos/$goarch" = "linux/$host_arch" ]; then
		cc=${CC:-cc}
	else
		case $goarch in
		arm64) cc=aarch64-linux-gnu-gcc ;;
		amd64) cc=x86_64-linux-gnu-gcc ;;
		*) cc="" ;;
		esac
	fi
	if [ -z "$cc" ] || ! command -v "$cc" >/dev/null 2>&1; then
		echo "release: $platform NOT built: cgo (SQLite) needs a C compiler for $goarch, and ${cc:-none is known} is not installed" \
			"(Debian: apt-get install gcc-aarch64-linux-gnu for arm64; or set $ccvar)" >&2
		missing+=("$platform")
		continue
	fi
	name="moviesdiary-$VERSION-$goos-$goarch"
	stage="$out/$name"
	mkdir -p "$stage/systemd"
	echo "release: building $platform with $cc" >&2
	CGO_ENABLED=1 GOOS=$goos GOARCH=$goarch CC=$cc \
		$GO build -tags "$STATIC_TAG_LIST" -trimpath -ldflags "$STATIC_LDFLAGS" -o "$stage/" ./cmd/server ./cmd/worker
	for bin in server worker; do
		# A static binary has no program interpreter (no dynamic loader, no libc to match).
		if readelf -l "$stage/$bin" | grep -q INTERP; then
			echo "release: $platform: $bin is dynamically linked" >&2
			exit 1
		fi
		if [ "$goos/$goarch" = "linux/$host_arch" ]; then
			got=$("$stage/$bin" --version)
			if [[ $got != "moviesdiary $bin $VERSION" && $got != "moviesdiary $bin $VERSION ("* ]]; then
				echo "release: $platform: $bin --version says \"$got\", not $VERSION" >&2
				exit 1
			fi
		fi
	done
	cp LICENSE README.md CHANGELOG.md "$stage/"
	cp deploy/systemd/*.service deploy/systemd/moviesdiary.sysusers "$stage/systemd/"
	tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -C "$out" -czf "$out/$name.tar.gz" "$name"
	rm -rf "$stage"
	built+=("$platform")
done

if [ ${#built[@]} -gt 0 ]; then
	(cd "$out" && sha256sum -- *.tar.gz >SHA256SUMS)
fi
echo "release: $out: built ${built[*]:-nothing}${missing:+; NOT built: ${missing[*]}}" >&2
[ ${#missing[@]} -eq 0 ]
