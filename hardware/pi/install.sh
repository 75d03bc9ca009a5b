#!/bin/sh
# Installs axon on a Raspberry Pi (Raspberry Pi OS, arm64): the binaries
# built by `make pi` (axon and the first-party plugins only), a system user
# in the spi and gpio groups, subordinate ids for the plugin sandbox, a
# starter config, a root-only secrets file and the hardened systemd unit.
# Safe to run again: it replaces the binaries and the unit, keeps an existing
# config and secrets file, and restarts a running service.
#
#   sudo hardware/pi/install.sh [BIN_DIR]
#
# BIN_DIR defaults to bin/linux-arm64 of this checkout. Environment:
#
#   CONFIG     the starter config, default examples/pi-pet.hcl
#   DESTDIR    install into this directory instead of / and touch nothing
#              outside it: the user and groups go into $DESTDIR/etc/passwd,
#              group, shadow, gshadow, subuid and subgid (useradd, groupadd
#              and usermod --prefix, shadow 4.8 and later; the files are
#              created empty when missing), files are owned by the numeric
#              ids written there, apt-get and the user namespace probe are
#              skipped. hardware/pi/install_test.go runs it that way.
#   SYSTEMCTL  the systemctl to call, default systemctl (the test passes a
#              stand-in that records its calls)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin_dir=${1:-"$root/bin/linux-arm64"}
config=${CONFIG:-"$root/examples/pi-pet.hcl"}
destdir=${DESTDIR:-}
systemctl=${SYSTEMCTL:-systemctl}

# Paths on the installed system; $destdir is prepended only when writing.
prefix=/usr/local/lib/axon
doc_dir=/usr/local/share/doc/axon
etc_dir=/etc/axon
unit=/etc/systemd/system/axon.service
user=axon

# The plugins of plugins/ (install_test.go checks this list against that
# directory). examples/ plugins (provider-echo, provider-anthropic-sdk) are
# demonstrations and are not installed.
plugins="display-epd display-png display-term provider-anthropic provider-cli provider-gemini provider-ollama provider-openai tool-clock tool-fetch tool-mcp tool-notes"

die() {
	echo "install.sh: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "run as root: sudo $0 $*"
[ -x "$bin_dir/axon" ] || die "$bin_dir/axon not found: run 'make pi' and copy bin/linux-arm64 here, or pass its path"
if [ -z "$destdir" ]; then
	case $(uname -m) in
	aarch64 | arm64) ;;
	*) echo "install.sh: warning: this machine is $(uname -m); the binaries are linux/arm64" >&2 ;;
	esac
else
	case $destdir in
	/*) ;;
	*) die "DESTDIR must be an absolute path: $destdir" ;;
	esac
	destdir=${destdir%/}
fi

# Account tools: against $destdir/etc when DESTDIR is set.
acct() {
	if [ -n "$destdir" ]; then
		cmd=$1
		shift
		"$cmd" --prefix "$destdir" "$@"
	else
		"$@"
	fi
}
has_group() { grep -q "^$1:" "$destdir/etc/group" 2>/dev/null; }
has_user() { grep -q "^$1:" "$destdir/etc/passwd" 2>/dev/null; }
id_of() { awk -F: -v n="$2" '$1 == n { print $3; exit }' "$destdir/etc/$1"; }

# Binaries: axon and the first-party axon-<kind>-<name> plugins, side by
# side (the host looks for plugins next to its own executable).
install -d -m 0755 "$destdir$prefix" "$destdir/usr/local/bin"
install -m 0755 "$bin_dir/axon" "$destdir$prefix/"
for p in $plugins; do
	if [ -f "$bin_dir/axon-$p" ]; then
		install -m 0755 "$bin_dir/axon-$p" "$destdir$prefix/"
	else
		echo "install.sh: warning: $bin_dir/axon-$p not found" >&2
	fi
done
# Earlier versions of this script installed every axon-* of BIN_DIR.
rm -f "$destdir$prefix/axon-provider-echo" "$destdir$prefix/axon-provider-anthropic-sdk"
ln -sfn "$prefix/axon" "$destdir/usr/local/bin/axon"
install -d -m 0755 "$destdir$doc_dir"
if [ -f "$here/../README.md" ]; then
	install -m 0644 "$here/../README.md" "$destdir$doc_dir/README.md"
else
	echo "install.sh: warning: $here/../README.md not found; the unit's Documentation= link will be dangling" >&2
fi

# The user: no login, no home of its own; its state lives in /var/lib/axon
# (systemd's StateDirectory). spi and gpio own the panel's devices on
# Raspberry Pi OS; create them elsewhere so the unit still starts.
if [ -n "$destdir" ]; then
	install -d -m 0755 "$destdir/etc"
	for f in passwd group subuid subgid; do
		[ -e "$destdir/etc/$f" ] || install -m 0644 /dev/null "$destdir/etc/$f"
	done
	for f in shadow gshadow; do
		[ -e "$destdir/etc/$f" ] || install -m 0640 /dev/null "$destdir/etc/$f"
	done
fi
for g in spi gpio; do
	has_group "$g" || acct groupadd --system "$g"
done
if ! has_user "$user"; then
	acct useradd --system --user-group --home-dir /var/lib/axon --no-create-home \
		--shell /usr/sbin/nologin --comment "axon broker" "$user"
fi
acct usermod -a -G spi,gpio "$user"
uid=$(id_of passwd "$user")
gid=$(id_of group "$user")
[ -n "$uid" ] && [ -n "$gid" ] || die "user $user was not created"

# Subordinate ids, so that each plugin can run under a uid of its own
# (README "Security model"); not needed when the config turns the sandbox
# off. The unit's NoNewPrivileges=yes still keeps the setuid newuidmap from
# running; a drop-in with NoNewPrivileges=no turns them on (hardware/README.md).
if [ -f "$destdir$etc_dir/axon.hcl" ]; then
	active_config=$destdir$etc_dir/axon.hcl
else
	active_config=$config
fi
if grep -Eq '^[[:space:]]*sandbox[[:space:]]*=[[:space:]]*"none"' "$active_config" 2>/dev/null; then
	echo "sandbox = \"none\" in $active_config: no subordinate ids"
else
	if [ -z "$destdir" ]; then
		command -v newuidmap >/dev/null || apt-get install -y uidmap || echo "install.sh: warning: could not install uidmap" >&2
	fi
	if ! grep -q "^$user:" "$destdir/etc/subuid" 2>/dev/null; then
		[ -e "$destdir/etc/subuid" ] || install -m 0644 /dev/null "$destdir/etc/subuid"
		[ -e "$destdir/etc/subgid" ] || install -m 0644 /dev/null "$destdir/etc/subgid"
		acct usermod --add-subuids 200000-265535 --add-subgids 200000-265535 "$user"
	fi
fi

# The plugin sandbox is built by axon itself, from user namespaces an
# unprivileged user may create. Say so now if this kernel forbids them,
# rather than at the first plugin start.
if [ -z "$destdir" ] && command -v unshare >/dev/null && ! setpriv --reuid="$user" --regid="$user" --clear-groups \
	unshare --user --map-root-user --pid --fork --mount --net true 2>/dev/null; then
	echo "install.sh: warning: user $user cannot create user namespaces here; plugins will not start." >&2
	echo "  Allow them (sysctl user.max_user_namespaces=15000, and kernel.unprivileged_userns_clone=1 on Debian kernels)," >&2
	echo "  or set sandbox = \"none\" in /etc/axon/axon.hcl." >&2
fi

# Config: readable by the service's group, writable by root only, never
# overwritten. Check it as the service's user: sudo -u axon axon check
# --config /etc/axon/axon.hcl (a login user outside group axon cannot read it).
install -d -m 0750 -o 0 -g "$gid" "$destdir$etc_dir"
if [ ! -e "$destdir$etc_dir/axon.hcl" ]; then
	if [ -f "$config" ]; then
		install -m 0640 -o 0 -g "$gid" "$config" "$destdir$etc_dir/axon.hcl"
		echo "installed $etc_dir/axon.hcl from $config: edit it for your providers and panel"
	else
		echo "install.sh: warning: no $etc_dir/axon.hcl and no starter config at $config" >&2
	fi
fi
# Secrets: read by systemd (as root) for the unit's EnvironmentFile=.
if [ ! -e "$destdir$etc_dir/secrets.env" ]; then
	install -m 0600 -o 0 -g 0 /dev/null "$destdir$etc_dir/secrets.env"
	echo "created $etc_dir/secrets.env (root only): put provider keys there, e.g. ZAI_API_KEY=..."
fi

# State: the unit's StateDirectory= makes these at every start; made here
# too, so that axon check, run before the first start, finds the directory
# the display block grants for its state_file.
install -d -m 0750 -o "$uid" -g "$gid" "$destdir/var/lib/axon" "$destdir/var/lib/axon/epd"

install -d -m 0755 "$destdir$(dirname "$unit")"
install -m 0644 "$here/axon.service" "$destdir$unit"
if [ -n "$destdir" ]; then
	# Offline: enable links the unit into $destdir; nothing is started.
	"$systemctl" --root="$destdir" enable axon.service >/dev/null
	echo "installed into $destdir: enable is recorded there; nothing was started"
	exit 0
fi
"$systemctl" daemon-reload
"$systemctl" enable axon.service >/dev/null
if "$systemctl" is-active --quiet axon.service; then
	"$systemctl" restart axon.service
	echo "restarted axon"
else
	echo "enabled axon: start it with 'systemctl start axon'; follow it with 'journalctl -u axon -f'"
fi
