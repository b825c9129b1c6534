/** The features module (ad blocker and other plan features) as the composition sees it. */
export { featuresService, type FeaturesService } from './service.js';
export { featuresRoutes } from './routes.js';
export { eraseFeatureSwitches, featuresRepository, type FeaturesRepository } from './repository.js';
