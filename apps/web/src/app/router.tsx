import { createBrowserRouter, redirect, type LoaderFunctionArgs, type RouteObject } from 'react-router';
import { CHECKOUT_ROUTES, IOS_ROUTES } from '@warren/contract';
import { RootLayout } from './RootLayout';
import { PageLoader, RouteError } from './RouteError';
import { guard } from './guard-loader';
import { checkoutLoader } from '../features/checkout/loader';
import type { GuardKind } from './guards';
import type { RouteHandle } from './route-handle';

type LazyPage = () => Promise<{ Component: React.ComponentType }>;

const authPages = {
  signIn: () => import('../features/auth/routes/SignInPage').then((m) => ({ Component: m.SignInPage })),
  signUp: () => import('../features/auth/routes/SignUpPage').then((m) => ({ Component: m.SignUpPage })),
  forgot: () => import('../features/auth/routes/ForgotPassPage').then((m) => ({ Component: m.ForgotPassPage })),
  reset: () => import('../features/auth/routes/ResetPasswordPage').then((m) => ({ Component: m.ResetPasswordPage })),
};
// The dashboard composes the feature list panel (features don't import each other).
const dashboard: LazyPage = () =>
  Promise.all([
    import('../features/dashboard/routes/DashboardPage'),
    import('../features/ad-blocker/components/FeatureListPanel'),
  ]).then(([d, f]) => ({
    Component: () => <d.DashboardPage features={<f.FeatureListPanel />} />,
  }));
const affiliate: LazyPage = () =>
  import('../features/affiliate/routes/AffiliatePage').then((m) => ({ Component: m.AffiliatePage }));
const rewards: LazyPage = () =>
  import('../features/rewards/routes/RewardsPage').then((m) => ({ Component: m.RewardsPage }));
const profile: LazyPage = () =>
  import('../features/profile/routes/ProfilePage').then((m) => ({ Component: m.ProfilePage }));
const subscription: LazyPage = () =>
  import('../features/subscription/routes/SubscriptionPage').then((m) => ({ Component: m.SubscriptionPage }));
const setNewPass: LazyPage = () =>
  import('../features/profile/routes/SetNewPassPage').then((m) => ({ Component: m.SetNewPassPage }));
const plans: LazyPage = () => import('../features/plans/routes/PlansPage').then((m) => ({ Component: m.PlansPage }));
const specialPlan: LazyPage = () =>
  import('../features/plans/routes/SpecialPlanPage').then((m) => ({ Component: m.SpecialPlanPage }));
const thankYou: LazyPage = () =>
  import('../features/billing/routes/ThankYouPage').then((m) => ({ Component: m.ThankYouPage }));
const failedPayment: LazyPage = () =>
  import('../features/billing/routes/FailedPaymentPage').then((m) => ({ Component: m.FailedPaymentPage }));
const paymentEvent: LazyPage = () =>
  import('../features/billing/routes/PaymentEventPage').then((m) => ({ Component: m.PaymentEventPage }));
const checkout: LazyPage = () =>
  import('../features/checkout/routes/CheckoutPage').then((m) => ({ Component: m.CheckoutPage }));
const ios: LazyPage = () => import('../features/ios/routes/IosPage').then((m) => ({ Component: m.IosPage }));
const serverLocations: LazyPage = () =>
  import('../features/locations/routes/ServerLocationsPage').then((m) => ({ Component: m.ServerLocationsPage }));
const setup: LazyPage = () => import('../features/setup/routes/SetupPage').then((m) => ({ Component: m.SetupPage }));
const downloads: LazyPage = () =>
  import('../features/setup/routes/DownloadsPage').then((m) => ({ Component: m.DownloadsPage }));
const wireguard: LazyPage = () =>
  import('../features/wireguard/routes/WireGuardPage').then((m) => ({ Component: m.WireGuardPage }));
const configurationFiles: LazyPage = () =>
  import('../features/openvpn-socks5/routes/ConfigurationFilesPage').then((m) => ({
    Component: m.ConfigurationFilesPage,
  }));
const routerConfiguration: LazyPage = () =>
  import('../features/openvpn-socks5/routes/RouterConfigurationPage').then((m) => ({
    Component: m.RouterConfigurationPage,
  }));
const socks5: LazyPage = () =>
  import('../features/openvpn-socks5/routes/Socks5ProxyPage').then((m) => ({ Component: m.Socks5ProxyPage }));
const stealth: LazyPage = () =>
  import('../features/stealth/routes/StealthPage').then((m) => ({ Component: m.StealthPage }));

/**
 * The operator console (/staff): its own chunks, loaded only when a /staff page is opened (never
 * in a customer's first load; e2e/tests/staff.spec.ts checks the customer pages' scripts), its own
 * frame, session (a cookie for /api/staff) and words (the `staff` namespace, in its chunk).
 */
const staff = {
  frame: () => import('../features/staff/routes/StaffFrame').then((m) => ({ Component: m.StaffFrame })),
  signIn: () => import('../features/staff/routes/StaffSignInPage').then((m) => ({ Component: m.StaffSignInPage })),
  console: () =>
    import('../features/staff/routes/StaffConsole').then((m) => ({
      Component: m.StaffConsole,
      loader: m.staffConsoleLoader,
    })),
  customers: () => import('../features/staff/routes/CustomersPage').then((m) => ({ Component: m.CustomersPage })),
  customer: () => import('../features/staff/routes/CustomerPage').then((m) => ({ Component: m.CustomerPage })),
  nodes: () => import('../features/staff/routes/NodesPage').then((m) => ({ Component: m.NodesPage })),
  jobs: () => import('../features/staff/routes/JobsPage').then((m) => ({ Component: m.JobsPage })),
  audit: () => import('../features/staff/routes/AuditPage').then((m) => ({ Component: m.AuditPage })),
  passkeys: () => import('../features/staff/routes/PasskeysPage').then((m) => ({ Component: m.PasskeysPage })),
};
/** Console routes say so in their handle: the customer-page audits (e2e/tests/routes.ts) leave them to the staff spec. */
const staffHandle = (titleKey: string) => ({ titleKey: `staff:titles.${titleKey}`, staff: true });

const staffRoutes: RouteObject = {
  path: 'staff',
  lazy: staff.frame,
  handle: { staff: true },
  children: [
    { path: 'sign-in', lazy: staff.signIn, handle: staffHandle('signIn') },
    {
      id: 'staff-console',
      lazy: staff.console,
      handle: { staff: true },
      children: [
        { index: true, loader: () => redirect('/staff/customers'), handle: { staff: true } },
        { path: 'customers', lazy: staff.customers, handle: staffHandle('customers') },
        { path: 'customers/:customerId', lazy: staff.customer, handle: staffHandle('customer') },
        { path: 'nodes', lazy: staff.nodes, handle: staffHandle('nodes') },
        { path: 'jobs', lazy: staff.jobs, handle: staffHandle('jobs') },
        { path: 'audit', lazy: staff.audit, handle: staffHandle('audit') },
        { path: 'passkeys', lazy: staff.passkeys, handle: staffHandle('passkeys') },
      ],
    },
  ],
};

function page(path: string, kind: GuardKind, titleKey: string, lazy: LazyPage): RouteObject {
  const handle: RouteHandle = { titleKey, guard: kind };
  return { path, loader: guard(kind), lazy, handle };
}

const appRoutes: RouteObject[] = [
  page('dashboard', 'protected', 'titles.dashboard', dashboard),
  page('server-locations', 'protected', 'titles.serverLocations', serverLocations),
  page('setup', 'protected', 'titles.setup', setup),
  page('setup/downloads', 'protected', 'titles.downloads', downloads),
  page('setup/configuration-files', 'protected', 'titles.configurationFiles', configurationFiles),
  page('setup/router-configuration', 'protected', 'titles.routerConfiguration', routerConfiguration),
  page('setup/socks5-proxy', 'protected', 'titles.socks5', socks5),
  page('setup/stealth', 'protected', 'titles.stealth', stealth),
  page('setup/wg', 'protected', 'titles.wireguard', wireguard),
  page('plans', 'plans', 'titles.plans', plans),
  page('plans/:selectedPlan', 'plans', 'titles.plans', plans),
  page('special-plan', 'login', 'titles.specialPlan', specialPlan),
  page('thank-you', 'thankYou', 'titles.thankYou', thankYou),
  page('failed-payment', 'failedPayment', 'titles.failedPayment', failedPayment),
  page('zg/paymentEvent', 'paymentEvent', 'titles.paymentEvent', paymentEvent),
  page('affiliate', 'affiliate', 'titles.affiliate', affiliate),
  page('rewards', 'protected', 'titles.rewards', rewards),
  page('profile', 'profile', 'titles.profile', profile),
  // Signed-in only (not activation): a customer whose plan was refunded or lapsed still sees their payments.
  page('subscription', 'login', 'titles.subscription', subscription),
  page('set-new-pass', 'setNewPass', 'titles.setNewPass', setNewPass),
];

/** `?selectedPlan=X` anywhere → /plans/X (spec section 2, start-up). */
export function rootLoader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const plan = url.searchParams.get('selectedPlan');
  if (plan && /^[A-Za-z0-9_-]{1,64}$/.test(plan) && url.pathname !== `/plans/${plan}`) throw redirect(`/plans/${plan}`);
  return null;
}

export const routes: RouteObject[] = [
  {
    id: 'root',
    Component: RootLayout,
    loader: rootLoader,
    HydrateFallback: PageLoader,
    ErrorBoundary: RouteError,
    children: [
      // The auth area lives at the empty path.
      {
        index: true,
        loader: guard('guest'),
        lazy: authPages.signIn,
        handle: { titleKey: 'titles.signIn', guard: 'guest' },
      },
      {
        path: 'sign-in',
        loader: guard('guest'),
        lazy: authPages.signIn,
        handle: { titleKey: 'titles.signIn', guard: 'guest' },
      },
      {
        path: 'auth',
        loader: guard('guest'),
        lazy: authPages.signIn,
        handle: { titleKey: 'titles.signIn', guard: 'guest' },
      },
      {
        path: 'sign-up',
        loader: guard('guest'),
        lazy: authPages.signUp,
        handle: { titleKey: 'titles.signUp', guard: 'guest' },
      },
      {
        path: 'forgot-pass',
        loader: guard('guest'),
        lazy: authPages.forgot,
        handle: { titleKey: 'titles.forgotPass', guard: 'guest' },
      },
      {
        path: 'reset-password',
        loader: guard('guest'),
        lazy: authPages.reset,
        handle: { titleKey: 'titles.resetPassword', guard: 'guest' },
      },
      // The logged-in shell.
      {
        lazy: () => import('./shell/AppLayout').then((m) => ({ Component: m.AppLayout })),
        children: appRoutes,
      },
      // Checkout and iOS pages: no shell, no login.
      ...CHECKOUT_ROUTES.map((p): RouteObject => ({
        path: p.slice(1),
        loader: checkoutLoader,
        lazy: checkout,
        handle: { titleKey: 'titles.checkout' },
      })),
      ...IOS_ROUTES.map((p): RouteObject => ({
        path: p.slice(1),
        lazy: ios,
        handle: {
          titleKey: p.includes('update') ? 'titles.iosUpdate' : 'titles.iosDownload',
          language: p.endsWith('-ru') ? 'ru' : undefined,
        } satisfies RouteHandle,
      })),
      staffRoutes,
      { path: '*', loader: () => redirect('/') },
    ],
  },
];

export function createRouter() {
  return createBrowserRouter(routes);
}

/** Resolves once the first navigation (page code, guards, their redirects) is done. */
export function whenRouterSettled(router: ReturnType<typeof createBrowserRouter>): Promise<void> {
  const settled = () => router.state.initialized && router.state.navigation.state === 'idle';
  if (settled()) return Promise.resolve();
  return new Promise((resolve) => {
    const stop = router.subscribe(() => {
      if (!settled()) return;
      stop();
      resolve();
    });
  });
}
