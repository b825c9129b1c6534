import type { MouseEvent } from 'react';
import classes from './SkipLink.module.css';

/**
 * The first stop of the Tab key on every page, shown only while focused: it moves focus to the
 * page's content (the shell's #main-content, else the page's <main>), past the header and menus.
 * RootLayout renders it, so signed-out, checkout and iOS pages have it as the shell does.
 */
export function SkipLink({ label }: { label: string }) {
  const skip = (e: MouseEvent) => {
    const target = document.getElementById('main-content') ?? document.querySelector<HTMLElement>('main');
    if (!target) return;
    e.preventDefault();
    if (!target.hasAttribute('tabindex')) target.tabIndex = -1;
    target.focus();
  };
  return (
    <a href="#main-content" className={classes.skipLink} onClick={skip} data-testid="skip-link">
      {label}
    </a>
  );
}
