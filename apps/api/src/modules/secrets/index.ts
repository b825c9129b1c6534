/** Secret rotation: the start-up check of the keys sealed data names, `npx warren secrets status|reseal` (README: Rotating secrets). */
export { type ColumnReport, type SecretsService, secretsService } from './service.js';
export { SEALED_COLUMNS } from './repository.js';
