// Relative on purpose: the Vite config loader bundles relative files but leaves workspace packages to Node.
import { CHECKOUT_ROUTES, IOS_ROUTES } from '../../../packages/contract/src/routes';

/**
 * The page modules (as in src/app/router.tsx) a first visit to each path renders. The build
 * turns this into dist/route-preloads.json, and the API puts `<link rel="modulepreload">`
 * for them into index.html, so a page's code downloads with the app's instead of after it.
 * route-modules.test.ts checks each module is the one router.tsx loads for that path.
 */
const shell = 'src/app/shell/AppLayout.tsx';
const page = (feature: string, name: string) => `src/features/${feature}/routes/${name}.tsx`;

export const ROUTE_MODULES: Record<string, string[]> = {
  '/': [page('auth', 'SignInPage')],
  '/sign-in': [page('auth', 'SignInPage')],
  '/auth': [page('auth', 'SignInPage')],
  '/sign-up': [page('auth', 'SignUpPage')],
  '/forgot-pass': [page('auth', 'ForgotPassPage')],
  '/reset-password': [page('auth', 'ResetPasswordPage')],
  '/dashboard': [shell, page('dashboard', 'DashboardPage'), 'src/features/ad-blocker/components/FeatureListPanel.tsx'],
  '/server-locations': [shell, page('locations', 'ServerLocationsPage')],
  '/setup': [shell, page('setup', 'SetupPage')],
  '/setup/downloads': [shell, page('setup', 'DownloadsPage')],
  '/setup/wg': [shell, page('wireguard', 'WireGuardPage')],
  '/setup/configuration-files': [shell, page('openvpn-socks5', 'ConfigurationFilesPage')],
  '/setup/router-configuration': [shell, page('openvpn-socks5', 'RouterConfigurationPage')],
  '/setup/socks5-proxy': [shell, page('openvpn-socks5', 'Socks5ProxyPage')],
  '/plans': [shell, page('plans', 'PlansPage')],
  '/affiliate': [shell, page('affiliate', 'AffiliatePage')],
  '/rewards': [shell, page('rewards', 'RewardsPage')],
  '/profile': [shell, page('profile', 'ProfilePage')],
  '/subscription': [shell, page('subscription', 'SubscriptionPage')],
  ...Object.fromEntries(CHECKOUT_ROUTES.map((p) => [p, [page('checkout', 'CheckoutPage')]])),
  ...Object.fromEntries(IOS_ROUTES.map((p) => [p, [page('ios', 'IosPage')]])),
};
