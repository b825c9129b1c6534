/** The profile module (account settings, unsubscribe) as the composition sees it. */
export { profileService, type ProfileService } from './service.js';
export { profileRoutes } from './routes.js';
