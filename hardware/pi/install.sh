#!/bin/sh
# Installs axon on a Raspberry Pi (Raspberry Pi OS, arm64): the binaries
# built by `make pi`, a system user in the spi and gpio groups, a starter
# config and the hardened systemd unit. Safe to run again: it replaces the
# binaries and the unit, keeps an existing config, and restarts a running
# service.
#
#   sudo hardware/pi/install.sh [BIN_DIR]
#
# BIN_DIR defaults to bin/linux-arm64 of this checkout. CONFIG (environment)
# names the starter config, default examples/pi-pet.hcl.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin_dir=${1:-"$root/bin/linux-arm64"}
config=${CONFIG:-"$root/examples/pi-pet.hcl"}

prefix=/usr/local/lib/axon
doc_dir=/usr/local/share/doc/axon
etc_dir=/etc/axon
unit=/etc/systemd/system/axon.service
user=axon

die() {
	echo "install.sh: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "run as root: sudo $0 $*"
[ -x "$bin_dir/axon" ] || die "$bin_dir/axon not found: run 'make pi' and copy bin/linux-arm64 here, or pass its path"
case $(uname -m) in
aarch64 | arm64) ;;
*) echo "install.sh: warning: this machine is $(uname -m); the binaries are linux/arm64" >&2 ;;
esac

# Binaries: axon and every axon-<kind>-<name> plugin, side by side (the host
# looks for plugins next to its own executable).
install -d -m 0755 "$prefix"
for f in "$bin_dir"/axon "$bin_dir"/axon-*; do
	[ -f "$f" ] || continue
	install -m 0755 "$f" "$prefix/"
done
ln -sfn "$prefix/axon" /usr/local/bin/axon
install -d -m 0755 "$doc_dir"
install -m 0644 "$here/../README.md" "$doc_dir/README.md"

# The user: no login, no home of its own; its state lives in /var/lib/axon
# (systemd's StateDirectory). spi and gpio own the panel's devices on
# Raspberry Pi OS; create them elsewhere so the unit still starts.
for g in spi gpio; do
	getent group "$g" >/dev/null || groupadd --system "$g"
done
if ! id -u "$user" >/dev/null 2>&1; then
	useradd --system --user-group --home-dir /var/lib/axon --no-create-home \
		--shell /usr/sbin/nologin --comment "axon broker" "$user"
fi
usermod -a -G spi,gpio "$user"

# Subordinate ids, so that each plugin can run under a uid of its own
# (README "Security model"). The unit's NoNewPrivileges=yes still keeps
# the setuid newuidmap from running; a drop-in with NoNewPrivileges=no turns
# them on (hardware/README.md).
command -v newuidmap >/dev/null || apt-get install -y uidmap || echo "install.sh: warning: could not install uidmap" >&2
if ! grep -q "^$user:" /etc/subuid 2>/dev/null; then
	usermod --add-subuids 200000-265535 --add-subgids 200000-265535 "$user"
fi

# The plugin sandbox is built by axon itself, from user namespaces an
# unprivileged user may create. Say so now if this kernel
# forbids them, rather than at the first plugin start.
if command -v unshare >/dev/null && ! setpriv --reuid="$user" --regid="$user" --clear-groups \
	unshare --user --map-root-user --pid --fork --mount --net true 2>/dev/null; then
	echo "install.sh: warning: user $user cannot create user namespaces here; plugins will not start." >&2
	echo "  Allow them (sysctl user.max_user_namespaces=15000, and kernel.unprivileged_userns_clone=1 on Debian kernels)," >&2
	echo "  or set sandbox = \"none\" in /etc/axon/axon.hcl." >&2
fi

# Config: readable by the service, writable by root only. Never overwritten.
install -d -m 0750 -o root -g "$user" "$etc_dir"
if [ ! -e "$etc_dir/axon.hcl" ]; then
	if [ -f "$config" ]; then
		install -m 0640 -o root -g "$user" "$config" "$etc_dir/axon.hcl"
		echo "installed $etc_dir/axon.hcl from $config: edit it for your providers and panel"
	else
		echo "install.sh: warning: no $etc_dir/axon.hcl and no starter config at $config" >&2
	fi
fi
if [ ! -e "$etc_dir/secrets.env" ]; then
	install -m 0600 -o root -g root /dev/null "$etc_dir/secrets.env"
	echo "created $etc_dir/secrets.env (root only): put provider keys there, e.g. ZAI_API_KEY=..."
fi

install -m 0644 "$here/axon.service" "$unit"
systemctl daemon-reload
systemctl enable axon.service >/dev/null
if systemctl is-active --quiet axon.service; then
	systemctl restart axon.service
	echo "restarted axon"
else
	echo "enabled axon: start it with 'systemctl start axon'; follow it with 'journalctl -u axon -f'"
fi
