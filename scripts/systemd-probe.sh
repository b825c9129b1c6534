#!/bin/bash
# Runs deploy/warren-api.service under a real systemd (PID 1 of private pid, mount, network, uts and
# ipc namespaces) on a machine without one, as a production server would: the built server
# (`npm run build` first), NODE_ENV=production, the unit's user and confinement. It starts the
# unit, waits for /api/health, takes a backup with the CLI as README: Running in production says
# (`sudo -u warren env DATA_DIR=/var/lib/warren npx warren …`, through the admin socket), stops the
# unit and prints how long the stop took and how it ended. Root only; not part of `npm test`.
#
# Careful: systemd's boot units act on the host's disk through a mount namespace (systemd-tmpfiles
# --boot empties /tmp: it did once, here). So /tmp and /run are private tmpfs here (its files are in /var/tmp), the
# unit gets DefaultDependencies=no (nothing of the boot is pulled in), and udev, sysctl, tmpfiles
# and remount-fs are masked. On the host it makes /opt/warren and /etc/warren-api (empty mount
# points) and the unit makes /var/lib/warren: all three are removed at the end.
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "run as root" >&2; exit 1; }
root=$(cd "$(dirname "$0")/.." && pwd)
node_bin=$(command -v node)
"$node_bin" -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 24 ? 0 : 1)' || { echo "Node 24 first: . scripts/use-node.sh" >&2; exit 1; }
[ -f "$root/apps/api/dist/server.js" ] || { echo "npm run build first" >&2; exit 1; }
work=$(mktemp -d /var/tmp/warren-systemd-probe.XXXXXX)
mkdir -p "$work/units/warren-api.service.d" "$work/etc-warren"
cp "$root/deploy/warren-api.service" "$work/units/"
printf '[Unit]\nDescription=probe\n' > "$work/units/probe.target"
printf '[Unit]\nDefaultDependencies=no\n[Service]\nStandardOutput=append:%s/service.log\nStandardError=append:%s/service.log\n' "$work" "$work" \
  > "$work/units/warren-api.service.d/probe.conf"
for u in network-online.target systemd-tmpfiles-setup.service systemd-tmpfiles-setup-dev.service systemd-udevd.service \
  systemd-sysctl.service systemd-remount-fs.service; do ln -s /dev/null "$work/units/$u"; done
cp /etc/passwd /etc/group "$work/"
grep -q '^warren:' "$work/passwd" || {
  echo 'warren:x:990:990:Warren API:/var/lib/warren:/usr/sbin/nologin' >> "$work/passwd"
  echo 'warren:x:990:' >> "$work/group"
}
# A production configuration every start-up check accepts (nothing here is reached: no mail is sent, no payment made).
cat > "$work/etc-warren/warren.env" <<ENV
APP_SECRET=systemd-probe-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
MAIL_URL=smtp://mail.acme-privacy.invalid:25
MAIL_FROM="Acme VPN <no-reply@acme-privacy.com>"
STRIPE_SECRET_KEY=sk_live_probe
STRIPE_PUBLISHABLE_KEY=pk_live_probe
STRIPE_WEBHOOK_SECRET=whsec_probe
CAPTCHA_PROVIDER=turnstile
CAPTCHA_SECRET=probe
CAPTCHA_SITE_KEY=probe
BRANDS_FILE=/etc/warren-api/brands.json
TRUST_PROXY=true
ENV
chmod 600 "$work/etc-warren/warren.env"
echo '{"brands":[{"id":"acme-vpn","hosts":["vpn.acme-privacy.com"],"origin":"https://vpn.acme-privacy.com","productName":"Acme VPN","kind":"vpn","logo":"/brand/warren-vpn.svg","mainProduct":true,"helpCenterUrl":"https://help.acme-privacy.com/"}]}' \
  > "$work/etc-warren/brands.json"
mkdir -p /opt/warren /etc/warren-api
cat > "$work/boot.sh" <<BOOT
#!/bin/bash
set -e
ip link set lo up
mount -t tmpfs tmpfs /tmp; mount -t tmpfs tmpfs /run
mount --bind $work/units /etc/systemd/system
mount --bind $work/passwd /etc/passwd
mount --bind $work/group /etc/group
mount --bind $root /opt/warren
mount --bind $work/etc-warren /etc/warren-api
mount --bind $node_bin /usr/bin/node
exec /lib/systemd/systemd --system --unit=probe.target
BOOT
chmod +x "$work/boot.sh"
setsid unshare --fork --pid --mount --net --uts --ipc --mount-proc "$work/boot.sh" > "$work/boot.log" 2>&1 &
pid=""
for _ in $(seq 1 50); do pid=$(pgrep -f "^/lib/systemd/systemd --system --unit=probe.target" | head -1 || true); [ -n "$pid" ] && break; sleep 0.2; done
[ -n "$pid" ] || { echo "systemd did not start: $(cat "$work/boot.log")" >&2; exit 1; }
cleanup() { kill -9 "$pid" 2>/dev/null || true; rm -rf /var/lib/warren; rmdir /opt/warren /etc/warren-api 2>/dev/null || true; }
trap cleanup EXIT
in_ns() { nsenter -t "$pid" -m -p -n -u "$@"; }
until in_ns systemctl is-system-running >/dev/null 2>&1; do sleep 0.2; done
in_ns systemctl start warren-api
up=""
for i in $(seq 1 120); do
  [ "$(in_ns curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8080/api/health)" = 200 ] && { up=$i; break; }
  in_ns systemctl is-failed -q warren-api && break
  sleep 1
done
in_ns systemctl status warren-api --no-pager | head -8
[ -n "$up" ] || { echo "not healthy; the service's output:"; tail -20 "$work/service.log"; exit 1; }
echo "health 200 after ${up} s"
in_ns runuser -u warren -- env PATH="$(dirname "$node_bin"):$PATH" DATA_DIR=/var/lib/warren bash -c \
  'cd /opt/warren && npx warren db backup --file /var/lib/warren/probe.backup' | tail -1
t0=$(date +%s%N)
in_ns systemctl stop warren-api
echo "stop took $(( ($(date +%s%N) - t0) / 1000000 )) ms; $(in_ns systemctl show warren-api -p Result -p ExecMainStatus | tr '\n' ' ')"
grep -o '"msg":"[^"]*"' "$work/service.log" | tail -4
