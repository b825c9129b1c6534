import { Suspense, lazy, useEffect, useState } from 'react';
import { useSession } from '../../lib/session';
import { UserButton } from './UserButton';

const loadPopover = () => import('./UserMenuPopover');
const UserMenuPopover = lazy(loadPopover);

/**
 * The header's user menu. Its dropdown (Mantine Menu and floating-ui, ~20 kB gzip) is not part
 * of the first screen: it downloads once the page is idle, or at the first press if that comes
 * sooner, and then opens at once.
 */
export function UserMenu() {
  const user = useSession((s) => s.user);
  const [pressed, setPressed] = useState(false);

  useEffect(() => {
    const idle = window.requestIdleCallback ?? ((cb: () => void) => window.setTimeout(cb, 1500));
    const cancel = window.cancelIdleCallback ?? window.clearTimeout;
    const handle = idle(() => void loadPopover());
    return () => cancel(handle);
  }, []);

  if (!user) return null;
  const button = <UserButton user={user} aria-haspopup="menu" aria-expanded={false} onClick={() => setPressed(true)} />;
  if (!pressed) return button;
  return (
    <Suspense fallback={button}>
      <UserMenuPopover defaultOpened />
    </Suspense>
  );
}
