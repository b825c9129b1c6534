import fp from 'fastify-plugin';
import { staffRoutes } from './routes.js';

/** The operator console's API (issue 15) as the composition and app.ts see it. */
export { staffService, type StaffService } from './service.js';
export { CLI_ACTOR } from './audit.js';
export { eraseStaffData, logMail, staffRepository, type AuditHead } from './repository.js';
export { parseHead, type ChainReport } from './audit-chain.js';
export type { StaffRouteInfo } from './routes.js';
/** A plugin without encapsulation: app.staffRoutes (the role matrix's route table) is visible on the app. */
export const staffModule = fp(staffRoutes, { name: 'staff' });
