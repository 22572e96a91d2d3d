/**
 * The app's Mantine theme: Mantine's defaults, made to meet WCAG AA contrast (4.5:1 for text).
 * Mantine's default filled shade (6) puts white text on blue at 3.6:1 and its dimmed grey is 3.3:1
 * on white; shade 8 and a darker grey pass. Focus rings show for keyboard focus (`:focus-visible`)
 * on every Mantine control.
 */
import { createTheme, type CSSVariablesResolver } from '@mantine/core';

export const theme = createTheme({
  primaryShade: 8,
  focusRing: 'auto',
  components: {
    // an active link's description is drawn at 90% opacity: 4.1:1 on its tint, full opacity 4.9:1
    NavLink: { styles: { description: { opacity: 1 } } },
    // a badge says one word or two: never cut to "ACT…" by a narrow table column or a long title beside it
    Badge: { styles: { root: { minWidth: 'max-content' } } },
  },
});

export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    // 6.1:1 on white, still lighter than body text
    '--mantine-color-dimmed': '#5c636a',
    '--mantine-color-error': 'var(--mantine-color-red-9)',
  },
  dark: {},
});
