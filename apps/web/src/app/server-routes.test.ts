import { describe, expect, it } from 'vitest';
import { matchRoutes, type RouteObject } from 'react-router';
import { routes } from './router';
import { SERVER_PAGES, serverRoutes } from './server-routes';
import type { RouteHandle } from './route-handle';

type Lazy = () => Promise<{ Component?: unknown }>;

describe('the pages the server renders match the browser router', () => {
  it.each(Object.keys(SERVER_PAGES))(
    '%s: same shape (root layout, then the page), same title, same page component',
    async (pathname) => {
      const client = matchRoutes(routes, pathname)!;
      const server = matchRoutes(serverRoutes(), pathname)!;
      expect(client.map((m) => m.route.id ?? 'page')).toHaveLength(2);
      expect(server).toHaveLength(2);
      expect(server[0]!.route.Component).toBe(client[0]!.route.Component);
      expect(server[0]!.route.ErrorBoundary).toBe(client[0]!.route.ErrorBoundary);
      expect(server[0]!.route.HydrateFallback).toBe(client[0]!.route.HydrateFallback);
      const clientPage = client[1]!.route as RouteObject & { handle?: RouteHandle };
      expect((server[1]!.route.handle as RouteHandle).titleKey).toBe(clientPage.handle?.titleKey);
      expect((server[1]!.route.handle as RouteHandle).language).toBe(clientPage.handle?.language);
      const loaded = await (clientPage.lazy as unknown as Lazy)();
      expect(loaded.Component).toBe(server[1]!.route.Component);
    },
  );
});
