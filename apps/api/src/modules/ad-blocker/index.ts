/** The ad blocker module (the features switch and its categories) as the composition and the nodes see it. */
export { featuresService, type FeaturesService } from './service.js';
export { featuresRoutes } from './routes.js';
export { dnsBlockingFor, eraseFeatureSwitches, featuresRepository, type FeaturesRepository } from './repository.js';
