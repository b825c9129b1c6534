/** The accounts module as other modules and the composition see it. */
export { usersService, type UsersService } from './service.js';
export { usersRoutes } from './routes.js';
export { type UserRow, type UserPlanRow, userPlansRepository, newsletterRecipients, userIdByEmail, userReferralsRepository } from './repository.js';
