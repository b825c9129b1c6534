/** The rewards module (invite friends, free days) as the composition sees it. */
export { rewardsService, type RewardsService } from './service.js';
export { rewardsRoutes } from './routes.js';
export { eraseRewardsData } from './repository.js';
