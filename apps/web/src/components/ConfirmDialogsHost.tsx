import { Suspense, lazy, useState } from 'react';
import { useConfirmRequests } from '../lib/confirm';

const ConfirmDialogs = lazy(() => import('./ConfirmDialogs'));

/** Renders nothing until the first confirmation is asked for, then loads the dialogs and stays. */
export function ConfirmDialogsHost() {
  const requests = useConfirmRequests();
  const [wanted, setWanted] = useState(false);
  if (!wanted && requests.length > 0) setWanted(true);
  if (!wanted) return null;
  return (
    <Suspense fallback={null}>
      <ConfirmDialogs requests={requests} />
    </Suspense>
  );
}
