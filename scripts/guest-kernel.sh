# Sourced by the QEMU tiers (tests/kernel/run_kernel_tier.sh, sim/qemu/vbench.sh):
# Debian's kernel for a guest, and its modules for an initramfs. The caller
# defines say and die.
#
#   guest_kernel CACHE_DIR    sets HMTT_KVER (default: the newest installed
#                             /usr/src/linux-headers-*-amd64), hdr (its headers)
#                             and img (linux-image-KVER unpacked under CACHE_DIR,
#                             fetched with `apt-get download` the first time)
#   guest_modules ROOT NAME.. copies NAME.ko and its dependencies, in dependency
#                             order, into ROOT/lib/modules and writes the order
#                             to ROOT/lib/modules/order (the package has no
#                             modules.dep; modinfo reads each .ko's)

guest_kernel() {
	local cache=$1
	if [ -z "${HMTT_KVER:-}" ]; then
		hdr=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1 || true)
		[ -n "$hdr" ] || die "no /usr/src/linux-headers-*-amd64: run scripts/deps.sh all"
		HMTT_KVER=${hdr#/usr/src/linux-headers-}
	fi
	hdr=/usr/src/linux-headers-$HMTT_KVER
	[ -d "$hdr" ] || die "$hdr missing"
	mkdir -p "$cache"
	img=$cache/linux-image-$HMTT_KVER
	if [ ! -f "$img/boot/vmlinuz-$HMTT_KVER" ]; then
		say "fetching linux-image-$HMTT_KVER with apt-get download"
		(cd "$cache" && rm -f linux-image-"$HMTT_KVER"_*.deb &&
			apt-get download -q "linux-image-$HMTT_KVER" >/dev/null 2>"$cache/apt.err") \
			|| die "apt-get download linux-image-$HMTT_KVER failed: $(cat "$cache/apt.err")"
		rm -rf "$img.tmp" && dpkg-deb -x "$cache"/linux-image-"$HMTT_KVER"_*.deb "$img.tmp"
		mv "$img.tmp" "$img"
	fi
}

guest_modules() {
	local root=$1 name
	local kmods=$img/lib/modules/$HMTT_KVER/kernel
	local order=()
	shift
	_guest_add_module() {
		local name=$1 f dep
		for dep in "${order[@]}"; do [ "$dep" = "$name" ] && return 0; done
		f=$(find "$kmods" -name "$name.ko*" | head -n 1)
		[ -n "$f" ] || die "module $name not in linux-image-$HMTT_KVER"
		for dep in $(/sbin/modinfo -F depends "$f" | tr ',' ' '); do _guest_add_module "$dep"; done
		order+=("$name")
		case $f in
		*.xz) xz -dc "$f" >"$root/lib/modules/$name.ko" ;;
		*.zst) zstd -qdc "$f" >"$root/lib/modules/$name.ko" ;;
		*) cp "$f" "$root/lib/modules/$name.ko" ;;
		esac
	}
	for name in "$@"; do _guest_add_module "$name"; done
	echo "${order[@]}" >"$root/lib/modules/order"
}
