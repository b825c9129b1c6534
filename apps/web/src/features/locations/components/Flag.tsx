import classes from '../routes/locations.module.css';

/**
 * The country as a small code chip. Flag emoji are not drawn on Windows nor by Linux without an
 * emoji font, so we do not rely on them.
 */
export function Flag({ code }: { code: string }) {
  return (
    <span className={classes.flag} aria-hidden>
      {code.toUpperCase()}
    </span>
  );
}
