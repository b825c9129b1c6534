#!/usr/bin/env node
// OpenVPN's script hooks, run by the Debian openvpn server the agent configures (no shell):
//   auth-user-pass-verify "node helper.mjs verify USERS_DIR" via-file   → argv ends with the credentials file
//   client-connect "node helper.mjs connect USERS_DIR PLAIN_DNS FILTER_DNS" → argv ends with the config file to write
// USERS_DIR holds one JSON file per service user, written by the agent from the API's desired state
// ({ verifier, openvpn, adblock, dns }); the password itself is never on the node. Exit 0 accepts.
// Plain JavaScript with no dependencies: it starts in ~40 ms for every connection.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { scryptSync, timingSafeEqual } from 'node:crypto';

const USERNAME = /^[a-z0-9]{6,32}$/;
const [mode, usersDir, ...rest] = process.argv.slice(2);

function entry(username) {
  if (!USERNAME.test(username ?? '')) return null;
  try {
    return JSON.parse(readFileSync(path.join(usersDir, `${username}.json`), 'utf8'));
  } catch {
    return null;
  }
}

function verify(verifier, password) {
  const m = /^scrypt\$(\d{1,7})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/.exec(
    verifier ?? '',
  );
  if (!m || password.length > 256) return false;
  const [N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (N < 2 || N > 1 << 20 || (N & (N - 1)) !== 0 || r > 32 || p > 16) return false;
  const expected = Buffer.from(m[5], 'base64');
  const got = scryptSync(password, Buffer.from(m[4], 'base64'), expected.length, { N, r, p, maxmem: 256 * N * r });
  return got.length === expected.length && timingSafeEqual(got, expected);
}

try {
  if (mode === 'verify') {
    const [username = '', password = ''] = readFileSync(rest.at(-1), 'utf8').split('\n');
    const e = entry(username);
    process.exit(e?.openvpn && verify(e.verifier, password) ? 0 : 1);
  } else if (mode === 'connect') {
    const [plain, filter, file] = rest;
    const e = entry(process.env.common_name || process.env.username);
    if (!e?.openvpn) process.exit(1);
    // The ad blocker is read at connect time: switching it takes effect on the next connection.
    // `dns` is the resolver of the user's categories (issue 23); files from before it have adblock only.
    const dns = /^\d{1,3}(\.\d{1,3}){3}$/.test(e.dns ?? '') ? e.dns : e.adblock ? filter : plain;
    writeFileSync(file, `push "dhcp-option DNS ${dns}"\n`);
    process.exit(0);
  }
} catch (err) {
  process.stderr.write(`warren openvpn helper: ${err.message}\n`);
}
process.exit(1);
