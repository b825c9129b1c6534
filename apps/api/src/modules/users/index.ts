/** The accounts module as other modules and the composition see it. */
export { usersService, type UsersService, type RequestContext } from './service.js';
export { usersRoutes } from './routes.js';
export {
  type TokenRow,
  type UserRow,
  type UserPlanRow,
  type UsersRepository,
  usersRepository,
  userPlansRepository,
  newsletterRecipients,
  userIdByEmail,
  userReferralsRepository,
} from './repository.js';
export { LIMITS, perIpRules, spend, spendSignIn } from './limits.js';
export { secondFactor, type SecondFactor } from './second-factor.js';
export { securityMails, type SecurityMails } from './security-mail.js';
export { accountErasure, type AccountErasure, type ErasedAccount, type ErasurePart } from './erasure.js';
