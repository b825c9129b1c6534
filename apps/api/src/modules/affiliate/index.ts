/** The affiliate module (referral links, clicks, earnings) as other modules and the composition see it. */
export { affiliateService, ensureCode, type AffiliateService } from './service.js';
export { affiliateRoutes } from './routes.js';
export { eraseAffiliateData } from './repository.js';
