/**
 * The WireGuard module as code outside the VPN area sees it: the address pools' parser (config.ts
 * checks WG_IPV4_POOL and WG_IPV6_POOL with it at start). The area's services and routes are reached through
 * nodes/index.ts.
 */
export { parsePools, type Pools } from './addresses.js';
