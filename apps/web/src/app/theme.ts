import { DEFAULT_THEME, createTheme, type CSSVariablesResolver, type MantineColorsTuple } from '@mantine/core';

const brand: MantineColorsTuple = [
  '#f0eeff',
  '#dedafd',
  '#bab2f6',
  '#9487f0',
  '#7462ea',
  '#604be7',
  '#553fe6',
  '#4632cd',
  '#3d2bb8',
  '#3124a3',
];

/**
 * Mantine's gray 6 (#868e96) is its secondary text ("dimmed") and 3.3:1 on white; WCAG AA
 * wants 4.5:1. A darker gray 6 gives 5.8:1 on white and 5.1:1 on the brand's tint, and keeps
 * every gray-6 use (dimmed text, hints, captions) legible at once.
 */
const gray: MantineColorsTuple = [
  ...DEFAULT_THEME.colors.gray.slice(0, 6),
  '#5f666d',
  ...DEFAULT_THEME.colors.gray.slice(7),
] as unknown as MantineColorsTuple;

/**
 * Text colour of light-variant badges, alerts and buttons in the light scheme. Mantine uses
 * shade 6, which on its 10 % tint is 2.3-3.9:1 for yellow, orange, green, teal and red (the
 * PREMIUM badge was 2.7:1); these reach 4.5:1 on the tint.
 */
const LIGHT_VARIANT_TEXT: Record<string, string> = {
  brand: 'var(--mantine-color-brand-8)',
  gray: 'var(--mantine-color-gray-8)',
  red: '#b02525',
  pink: 'var(--mantine-color-pink-9)',
  grape: 'var(--mantine-color-grape-9)',
  violet: 'var(--mantine-color-violet-9)',
  indigo: 'var(--mantine-color-indigo-9)',
  blue: 'var(--mantine-color-blue-9)',
  cyan: 'var(--mantine-color-cyan-9)',
  teal: '#06664a',
  green: '#237032',
  lime: '#466f0a',
  yellow: '#7a4f01',
  orange: '#a8380b',
};

export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    // Light-variant text, outline buttons and coloured text (c="red", Menu.Item color="red").
    ...Object.fromEntries(
      Object.entries(LIGHT_VARIANT_TEXT).flatMap(([color, value]) => [
        [`--mantine-color-${color}-light-color`, value],
        [`--mantine-color-${color}-outline`, value],
        [`--mantine-color-${color}-text`, value],
      ]),
    ),
    // Field errors: red 6 is 3.3:1 on white.
    '--mantine-color-error': LIGHT_VARIANT_TEXT.red!,
  },
  // On dark surfaces Mantine's shade 4 is 3-4:1 for several colours; shade 3 reads at 5:1+.
  // Gray's light colours are literal: global.css turns gray 0-3 into dark surfaces.
  dark: {
    ...Object.fromEntries(
      Object.keys(LIGHT_VARIANT_TEXT).flatMap((color) => {
        const value = color === 'gray' ? DEFAULT_THEME.colors.gray[3] : `var(--mantine-color-${color}-3)`;
        return [
          [`--mantine-color-${color}-light-color`, value],
          [`--mantine-color-${color}-outline`, value],
          [`--mantine-color-${color}-text`, value],
        ];
      }),
    ),
    '--mantine-color-anchor': 'var(--mantine-color-brand-3)',
    // Secondary text: dark 2 is 3.5:1 on a card (dark 6); dark 1 is 6:1.
    '--mantine-color-dimmed': 'var(--mantine-color-dark-1)',
    '--mantine-color-error': 'var(--mantine-color-red-4)',
  },
});

const SYSTEM_FONTS =
  'system-ui, -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Noto Sans", "Helvetica Neue", Arial, "PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", sans-serif';

export const theme = createTheme({
  primaryColor: 'brand',
  primaryShade: 6,
  colors: { brand, gray },
  // The platform's own UI font (San Francisco, Segoe UI, Roboto, Noto...), no web font. Measured
  // with Lighthouse (mobile) on the checkout: Inter as a variable web font was 48 kB before the first
  // paint (151 kB on Russian pages), ~45 ms more layout at 1x CPU (shaping a variable font; 15 ms with
  // the system's), and a second layout when it swapped in: most of what kept the entry pages' blocking
  // time over 200 ms. Cyrillic and Chinese now come from the same family as Latin on each platform.
  fontFamily: SYSTEM_FONTS,
  headings: { fontFamily: SYSTEM_FONTS, fontWeight: '700' },
  defaultRadius: 'md',
  cursorType: 'pointer',
  focusRing: 'auto',
  components: {
    Button: { defaultProps: { radius: 'md' } },
    TextInput: { defaultProps: { radius: 'md', size: 'md' } },
    PasswordInput: { defaultProps: { radius: 'md', size: 'md' } },
    Card: { defaultProps: { radius: 'lg' } },
    // A link inside a sentence must not be told apart by colour alone (WCAG 1.4.1).
    Anchor: { defaultProps: { underline: 'always' } },
  },
});
