import { localStorageColorSchemeManager } from '@mantine/core';

/** Where the light / dark / system choice is kept: public/color-scheme.js reads the same key before the first paint. */
export const COLOR_SCHEME_KEY = 'warren-color-scheme';
export const colorSchemeManager = localStorageColorSchemeManager({ key: COLOR_SCHEME_KEY });
