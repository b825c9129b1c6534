/** Where a visitor is (GET /api/ip/info); the country lookup itself is lib/geoip.ts. */
export { geoRoutes } from './routes.js';
