import { Suspense, lazy, useState } from 'react';
import { useSession } from '../../lib/session';
import { UserButton } from './UserButton';

const loadPopover = () => import('./UserMenuPopover');
const UserMenuPopover = lazy(loadPopover);

/**
 * The header's user menu. Its dropdown (Mantine Menu and floating-ui, ~20 kB gzip) is not part
 * of the first screen: it starts downloading when the pointer or focus reaches the button,
 * and the first press opens it as soon as it is there.
 */
export function UserMenu() {
  const user = useSession((s) => s.user);
  const [pressed, setPressed] = useState(false);

  if (!user) return null;
  const button = (
    <UserButton
      user={user}
      aria-haspopup="menu"
      aria-expanded={false}
      onPointerEnter={() => void loadPopover()}
      onFocus={() => void loadPopover()}
      onClick={() => setPressed(true)}
    />
  );
  if (!pressed) return button;
  return (
    <Suspense fallback={button}>
      <UserMenuPopover defaultOpened />
    </Suspense>
  );
}
