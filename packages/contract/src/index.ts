export * from './constants.js';
export * from './errors.js';
export * from './brand.js';
export * from './account.js';
export * from './routes.js';
export * from './billing.js';
export * from './setup.js';
export * from './nodes.js';
