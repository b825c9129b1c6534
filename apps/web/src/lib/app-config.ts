/**
 * Build-time settings of the web app (Vite env). The App Store listing is a placeholder until
 * the iOS app is published: set VITE_IOS_APP_STORE_URL when building.
 */
export const IOS_APP_STORE_URL: string = (import.meta.env.VITE_IOS_APP_STORE_URL as string | undefined) || 'https://apps.apple.com/app/id0000000000';
