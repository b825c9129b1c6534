/** Health, the brand, and the development outbox. */
export { systemRoutes } from './routes.js';
export { systemRepository } from './repository.js';
