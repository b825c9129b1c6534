import { useId as useReactId } from 'react';

/**
 * Stands in for @mantine/hooks' useId (vite.config.ts `mantineStableIds` points Mantine's own
 * import here). Mantine's starts from React's id, then swaps it for a random one in a layout
 * effect: after the take-over of a server-rendered page that is a synchronous re-render of every
 * input, radio group and switch in one task (~40 ms on the checkout at 4x CPU: the page's
 * longest task), and every id on the page changes under assistive technology. React's own id is
 * already unique within a root, the same on the server and in the browser, and stable while the
 * component lives; Warren renders one root. Same output as Mantine's first render, so the
 * server's HTML (rendered with Mantine's) matches.
 */
export function useId(staticId?: string): string {
  const reactId = useReactId();
  return typeof staticId === 'string' ? staticId : `mantine-${reactId.replace(/:/g, '')}`;
}
