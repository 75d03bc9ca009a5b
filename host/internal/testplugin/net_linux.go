//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// setnsNet moves this goroutine's thread into pid's network namespace and
// connects to ADDR from there. Getting into the namespace is already the
// escape, so it is reported even when the connect then fails. The thread is
// locked and never unlocked, so it is thrown away with the goroutine instead
// of carrying the foreign namespace back to the runtime; the connect is done
// with raw syscalls on that thread.
func setnsNet(_ context.Context, args []string) string {
	pid, err := pidArg(args[0])
	if err != nil {
		return usage(err)
	}
	ap, err := netip.ParseAddrPort(args[1])
	if err != nil {
		return usage(fmt.Errorf("ADDR must be IP:port: %w", err))
	}
	path := fmt.Sprintf("/proc/%d/ns/net", pid)
	f, err := os.Open(path)
	if err != nil {
		return blocked("%v", err)
	}
	defer f.Close()
	runtime.LockOSThread()
	if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
		return blocked("setns(%s): %v", path, err)
	}
	local, err := connectRaw(ap, netTimeout)
	if err != nil {
		return escaped("entered the network namespace of pid %d; connect to %s from there: %v", pid, ap, err)
	}
	return escaped("entered the network namespace of pid %d and connected to %s from %s", pid, ap, local)
}

// connectRaw connects a TCP socket to ap on the calling thread, waiting at
// most timeout, and returns the local address.
func connectRaw(ap netip.AddrPort, timeout time.Duration) (string, error) {
	domain, addr := unix.AF_INET6, ap.Addr().Unmap()
	var sa unix.Sockaddr = &unix.SockaddrInet6{Port: int(ap.Port()), Addr: addr.As16()}
	if addr.Is4() {
		domain, sa = unix.AF_INET, &unix.SockaddrInet4{Port: int(ap.Port()), Addr: addr.As4()}
	}
	fd, err := unix.Socket(domain, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return "", fmt.Errorf("socket: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.Connect(fd, sa); err != nil && err != unix.EINPROGRESS {
		return "", err
	}
	for deadline := time.Now().Add(timeout); ; {
		left := time.Until(deadline)
		if left <= 0 {
			return "", fmt.Errorf("connect %w after %s", errTimeout, timeout)
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}, int(left/time.Millisecond)+1)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("poll: %w", err)
		}
		if n > 0 {
			break
		}
	}
	soErr, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err != nil {
		return "", fmt.Errorf("SO_ERROR: %w", err)
	}
	if soErr != 0 {
		return "", unix.Errno(soErr)
	}
	local, err := unix.Getsockname(fd)
	return sockaddrText(local, err), nil
}

func dialTCP(ctx context.Context, args []string) string {
	d := net.Dialer{Timeout: netTimeout}
	c, err := d.DialContext(ctx, "tcp", args[0])
	if err != nil {
		return blocked("%v", err)
	}
	defer c.Close()
	return escaped("connected to %s from %s; the peer sent: %s", c.RemoteAddr(), c.LocalAddr(), fromPeer(c))
}

// loopback listens on 127.0.0.1 and connects to itself: what a jail with
// Loopback allows its plugin (the proxy's listener) and no other jail. It
// is not an escape: that loopback is the jail's own.
func loopback(ctx context.Context, _ []string) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return blocked("listen: %v", err)
	}
	defer l.Close()
	d := net.Dialer{Timeout: netTimeout}
	c, err := d.DialContext(ctx, "tcp", l.Addr().String())
	if err != nil {
		return blocked("connect to own listener %s: %v", l.Addr(), err)
	}
	c.Close()
	return "loopback: listened on and connected to " + l.Addr().String()
}

func dialUDP(ctx context.Context, args []string) string {
	d := net.Dialer{Timeout: netTimeout}
	c, err := d.DialContext(ctx, "udp", args[0])
	if err != nil {
		return blocked("%v", err)
	}
	defer c.Close()
	c.SetWriteDeadline(time.Now().Add(netTimeout))
	n, err := c.Write([]byte("hostile"))
	if err != nil {
		return blocked("%v", err)
	}
	return escaped("sent a %d-byte datagram to %s from %s", n, c.RemoteAddr(), c.LocalAddr())
}

// rawSocket tries the sockets that need CAP_NET_RAW (raw IP, packet) or a
// ping_group_range that admits us (ICMP datagram "ping" sockets; a new
// network namespace admits no group). A plain UDP socket is not tried: any
// process may create one, sandboxed or not.
func rawSocket(context.Context, []string) string {
	tries := []struct {
		name                  string
		domain, typ, protocol int
	}{
		{"AF_INET SOCK_RAW IPPROTO_ICMP", unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP},
		{"AF_PACKET SOCK_RAW ETH_P_ALL", unix.AF_PACKET, unix.SOCK_RAW, int(htons(unix.ETH_P_ALL))},
		{"AF_INET SOCK_DGRAM IPPROTO_ICMP", unix.AF_INET, unix.SOCK_DGRAM, unix.IPPROTO_ICMP},
		{"AF_INET6 SOCK_DGRAM IPPROTO_ICMPV6", unix.AF_INET6, unix.SOCK_DGRAM, unix.IPPROTO_ICMPV6},
	}
	var made, refused []string
	for _, t := range tries {
		fd, err := unix.Socket(t.domain, t.typ|unix.SOCK_CLOEXEC, t.protocol)
		if err != nil {
			refused = append(refused, t.name+": "+err.Error())
			continue
		}
		unix.Close(fd)
		made = append(made, t.name)
	}
	if len(made) > 0 {
		return escaped("created %s (refused: %s)", strings.Join(made, ", "), strings.Join(refused, "; "))
	}
	return blocked("%s", strings.Join(refused, "; "))
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

func abstractUnix(ctx context.Context, args []string) string {
	d := net.Dialer{Timeout: netTimeout}
	c, err := d.DialContext(ctx, "unix", "@"+args[0])
	if err != nil {
		return blocked("%v", err)
	}
	defer c.Close()
	return escaped("connected to @%s; the peer sent: %s", args[0], fromPeer(c))
}

// unixConnect connects to a unix socket on the file system and asks it, as
// an HTTP server, for its models.
func unixConnect(ctx context.Context, args []string) string {
	d := net.Dialer{Timeout: netTimeout}
	c, err := d.DialContext(ctx, "unix", args[0])
	if err != nil {
		return blocked("%v", err)
	}
	defer c.Close()
	c.SetWriteDeadline(time.Now().Add(peerTimeout))
	if _, err := io.WriteString(c, "GET /v1/models HTTP/1.0\r\n\r\n"); err != nil {
		return escaped("connected to %s, but the request failed: %v", args[0], err)
	}
	return escaped("connected to %s; the reply: %s", args[0], fromPeer(c))
}

// fromPeer is what c's peer sends within peerTimeout, as loot.
func fromPeer(c net.Conn) string {
	c.SetReadDeadline(time.Now().Add(peerTimeout))
	b, err := io.ReadAll(io.LimitReader(c, lootLimit+1))
	s := loot(b)
	if err != nil && !os.IsTimeout(err) {
		s += " (read: " + err.Error() + ")"
	}
	return s
}
